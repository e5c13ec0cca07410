/**
 * A user's strategy file compiled in process with esbuild (no module-loader hooks, no loader thread):
 * the file and the relative imports it makes (TypeScript or JavaScript, type-only imports dropped)
 * are bundled into one ES module; `mizan` and `mizan/<subpath>` are the running mizan's own modules
 * (the same module instances as the kernel running the strategy: one Decimal, one set of classes),
 * other packages are imported from where the strategy's folder resolves them. The output goes to
 * the project's cache folder (`.mizan/cache/strategies/`, or `$MIZAN_CACHE_DIR/strategies/`) with
 * the list of its source files and their sha256: a later start whose sources are byte for byte the
 * same imports it without starting esbuild; any change compiles again. Stack traces point into the
 * strategy's own files (an inline source map; source maps are turned on when a strategy is loaded).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plugin } from 'esbuild';
import { PACKAGE_ROOT } from '../package-root.js';

/** Where the running mizan's modules are: `mizan` itself and how to resolve `mizan/<subpath>`. */
export interface MizanModules {
  /** The URL of the public API module the kernel is built from (`mizan`). */
  api: string;
  /** Resolves `mizan/<subpath>` to a URL. */
  resolve(specifier: string): string;
  /** The URL of a bundled strategy's module (`sma-cross`), when it is not the file beside the loader. */
  bundledStrategy?(name: string): string;
}

interface Manifest {
  key: string;
  inputs: { path: string; sha256: string }[];
  output: string;
}

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

function cacheDir(): string {
  return join(resolve(process.env.MIZAN_CACHE_DIR ?? '.mizan/cache'), 'strategies');
}

/** The manifest's sources, each still with the same content? */
function fresh(m: Manifest): boolean {
  for (const i of m.inputs) {
    let data: Buffer;
    try {
      data = readFileSync(i.path);
    } catch {
      return false;
    }
    if (sha256(data) !== i.sha256) return false;
  }
  return true;
}

/** A compile error, located: `file:line:column: message` (esbuild's own wording), one per line. */
class StrategyCompileError extends Error {}

function bundlePlugin(mods: MizanModules): Plugin {
  return {
    name: 'mizan-strategy',
    setup(build) {
      build.onResolve({ filter: /^mizan(\/|$)/ }, (a) => ({ path: a.path === 'mizan' ? mods.api : mods.resolve(a.path), external: true }));
      // mizan's public API by its path in this checkout (`../src/index.js`, as the repository's own
      // example and test strategies import it): the running API too, not a second copy of mizan.
      const apiFiles = new Set(['src/index.ts', 'src/index.js', 'dist/src/index.js'].map((f) => join(PACKAGE_ROOT, f)));
      build.onResolve({ filter: /\/index\.[jt]s$/ }, (a) => (apiFiles.has(resolve(a.resolveDir, a.path)) ? { path: mods.api, external: true } : undefined));
      // A package the strategy imports: resolved from the strategy's folder, imported by absolute URL
      // (the compiled module lives in the cache folder, where a bare name would not resolve).
      build.onResolve({ filter: /^[^./]/ }, async (a) => {
        if (a.pluginData === 'inner' || isBuiltin(a.path)) return undefined;
        const r = await build.resolve(a.path, { kind: a.kind, resolveDir: a.resolveDir, importer: a.importer, pluginData: 'inner' });
        if (r.errors.length > 0) return { errors: r.errors };
        return { path: pathToFileURL(r.path).href, external: true };
      });
      // A file's own URL stays its own (not the compiled module's in the cache folder).
      build.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, (a) => {
        if (a.path.includes('/node_modules/')) return undefined;
        const url = pathToFileURL(a.path).href;
        const contents = readFileSync(a.path, 'utf8')
          .replaceAll('import.meta.url', JSON.stringify(url))
          .replaceAll('import.meta.filename', JSON.stringify(a.path))
          .replaceAll('import.meta.dirname', JSON.stringify(dirname(a.path)));
        const ext = extname(a.path).replace(/^\.[cm]?/, '');
        return { contents, loader: ext as 'js' | 'ts' | 'jsx' | 'tsx' };
      });
    },
  };
}

let sourceMaps = false;

/** Written whole or not at all (another process may be reading the cache folder). */
function writeAtomic(file: string, data: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

/**
 * The URL to import for the strategy file `file` (absolute), compiling it when the cache has no
 * up-to-date output. Throws StrategyCompileError naming file:line:column for a syntax error or an
 * import that does not resolve.
 */
export async function compileStrategy(file: string, mods: MizanModules): Promise<string> {
  if (!sourceMaps) {
    process.setSourceMapsEnabled(true);
    sourceMaps = true;
  }
  const key = sha256(`${file}\u0000${mods.api}\u0000${process.version}`);
  let dir = cacheDir();
  const manifestFile = join(dir, `${key}.json`);
  try {
    const m = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
    if (m.key === key && fresh(m)) return pathToFileURL(m.output).href;
  } catch {
    // No manifest yet (or an unreadable one): compile.
  }
  const { build } = await import('esbuild');
  let out;
  try {
    out = await build({
      entryPoints: [file],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target: `node${process.versions.node.split('.')[0]}`,
      outdir: dir,
      sourcemap: 'external',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
      absWorkingDir: dirname(file),
      plugins: [bundlePlugin(mods)],
    });
  } catch (err) {
    const errors = (err as { errors?: { text: string; location: { file: string; line: number; column: number } | null }[] }).errors;
    if (!errors?.length) throw err;
    const lines = errors.map((e) =>
      e.location ? `${resolve(dirname(file), e.location.file)}:${e.location.line}:${e.location.column + 1}: ${e.text}` : e.text,
    );
    throw new StrategyCompileError(lines.join('\n'));
  }
  // The source map inline, its sources absolute (stack traces name the strategy's own files).
  const mapFile = out.outputFiles.find((f) => f.path.endsWith('.map'))!;
  const map = JSON.parse(mapFile.text) as { sources: string[] };
  map.sources = map.sources.map((src) => pathToFileURL(resolve(dirname(mapFile.path), src)).href);
  const js = out.outputFiles.find((f) => !f.path.endsWith('.map'))!.text.replace(/\/\/# sourceMappingURL=.*\s*$/, '');
  const code = `${js}//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
  const inputs = Object.keys(out.metafile.inputs).map((p) => {
    const path = resolve(dirname(file), p);
    return { path, sha256: sha256(readFileSync(path)) };
  });
  const name = `${key.slice(0, 16)}-${sha256(code).slice(0, 16)}.mjs`;
  try {
    mkdirSync(dir, { recursive: true });
    writeAtomic(join(dir, name), code);
  } catch {
    // The project's cache folder cannot be written (a read-only checkout): a temporary folder then.
    dir = join(tmpdir(), 'mizan-strategies');
    mkdirSync(dir, { recursive: true });
    writeAtomic(join(dir, name), code);
  }
  const output = join(dir, name);
  try {
    writeAtomic(join(dir, `${key}.json`), JSON.stringify({ key, inputs, output } satisfies Manifest));
  } catch {
    // Without a manifest the next start compiles again; this one runs.
  }
  return pathToFileURL(output).href;
}
