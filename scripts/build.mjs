// `npm run build`: compiles src/ and strategies/ to dist/ (JavaScript, .d.ts, source maps) with
// tsconfig.build.json, then copies the plain-JavaScript worker files tsc does not emit and the
// dashboard's static files (src/server/dashboard/).
// `--if-stale`: only when dist/ is missing or older than the sources (npm start, the test setup).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (process.argv.includes('--if-stale')) {
  const { buildIsStale } = await import('./build-stale.mjs');
  if (!buildIsStale(root)) process.exit(0);
  process.stderr.write('mizan: building dist/ (the sources changed since the last build)...\n');
}
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });

function* files(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* files(p);
    else yield p;
  }
}
const dashboard = join(root, 'src/server/dashboard') + '/';
for (const f of files(join(root, 'src'))) {
  // The dashboard's HTML, CSS and plain JavaScript are served as they are (src/server/dashboard-files.ts).
  if (!f.endsWith('.mjs') && !f.startsWith(dashboard)) continue;
  const out = join(root, 'dist', relative(root, f));
  mkdirSync(dirname(out), { recursive: true });
  copyFileSync(f, out);
}

// Stamp: test/support/build-dist.ts rebuilds before a test run when a source is newer than this.
writeFileSync(join(root, 'dist/.build-stamp'), `${new Date().toISOString()}\n`);
