// Module resolve hook for strategies kept outside this checkout (see docs/strategies.md, "A strategy
// outside this folder").
//
// 1. A TypeScript or JavaScript file in a folder without any package.json above it has no declared
//    module type, so tsx compiles it as CommonJS; its `import ... from '<mizan>/src/index.ts'` then
//    becomes a require() of the ES modules mizan is made of, which Node refuses ("Cannot require() ES
//    Module ... in a cycle"). Such a file written with import/export is loaded as the ES module it is.
//    Files inside a package keep the type their package.json declares.
// 2. `import ... from 'mizan'` in such a folder (no node_modules/mizan there) resolves to the running
//    mizan's own package entry, as a file inside this checkout would.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** mizan's own package.json (from src/runtime/ in the sources, dist/src/runtime/ in the build). */
function selfPackage() {
  for (let d = dirname(fileURLToPath(import.meta.url)); ; d = dirname(d)) {
    const p = join(d, 'package.json');
    if (existsSync(p) && JSON.parse(readFileSync(p, 'utf8')).name === 'mizan') return p;
    if (dirname(d) === d) throw new Error(`mizan's package.json not found above ${fileURLToPath(import.meta.url)}`);
  }
}
const SELF = pathToFileURL(selfPackage()).href;
const SOURCE = /\.(ts|tsx|js|jsx)$/;
const ESM_SYNTAX = /^\s*(import\s*[\w{*'"]|export\s)/m;
const packageless = new Map();

function hasPackageAbove(file) {
  const start = dirname(file);
  const cached = packageless.get(start);
  if (cached !== undefined) return cached;
  let found = false;
  for (let d = start; ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) {
      found = true;
      break;
    }
    if (dirname(d) === d) break;
  }
  packageless.set(start, found);
  return found;
}

export async function resolve(specifier, context, next) {
  let r;
  try {
    r = await next(specifier, context);
  } catch (err) {
    if ((specifier === 'mizan' || specifier.startsWith('mizan/')) && err?.code === 'ERR_MODULE_NOT_FOUND') {
      return next(specifier, { ...context, parentURL: SELF });
    }
    throw err;
  }
  if (r.format === 'commonjs' && r.url.startsWith('file:')) {
    const file = fileURLToPath(r.url);
    if (SOURCE.test(file) && !file.includes('/node_modules/') && !hasPackageAbove(file)) {
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return r;
      }
      if (ESM_SYNTAX.test(text)) return { ...r, format: 'module' };
    }
  }
  return r;
}
