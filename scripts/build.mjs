// `npm run build`: compiles src/ and strategies/ to dist/ (JavaScript, .d.ts, source maps) with
// tsconfig.build.json, then copies the plain-JavaScript worker files tsc does not emit and the
// dashboard's static files (src/server/dashboard/).
// Then bundles `mizan backtest` (src/cli/backtest-main.ts) with the public API and the bundled
// strategies into dist/bundle/ with esbuild, for bin/mizan.js to load on a `mizan backtest` command.
// `--if-stale`: only when dist/ is missing or older than the sources (npm start, the test setup).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
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
  // The dashboard's HTML, CSS and plain JavaScript are served as they are (src/server/dashboard-files.ts);
  // its declarations (globals.d.ts) are for its type check only.
  if (!f.endsWith('.mjs') && !(f.startsWith(dashboard) && !f.endsWith('.d.ts'))) continue;
  const out = join(root, 'dist', relative(root, f));
  mkdirSync(dirname(out), { recursive: true });
  copyFileSync(f, out);
}

// `mizan backtest` as one bundle (src/cli/backtest-main.ts): that entry, the public API (the `mizan` a
// strategy imports, so it shares the kernel's module instances) and each bundled strategy, with their
// shared code in chunks; packages stay imports. A module that finds files beside itself through
// import.meta.url (workers, the strategies folder, the package root) keeps its place in dist/src/.
const { build } = await import('esbuild');
const dist = join(root, 'dist');
const bundleDir = join(dist, 'bundle');
const ownUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\/dist\/src\/.*\.js$/ }, (a) => {
      const text = readFileSync(a.path, 'utf8');
      if (a.path.endsWith('/cli/backtest-main.js') || !text.includes('import.meta.url')) return undefined;
      const rel = relative(bundleDir, a.path).split('\\').join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(rel)}, import.meta.url).href`), loader: 'js' };
    });
  },
};
const INLINED = new Set(['zod', 'yaml', 'commander', 'cli-progress']);
rmSync(bundleDir, { recursive: true, force: true });
const strategyEntries = readdirSync(join(dist, 'strategies'))
  .filter((f) => f.endsWith('.js'))
  .map((f) => [`strategy-${basename(f, '.js')}`, join(dist, 'strategies', f)]);
await build({
  entryPoints: { backtest: join(dist, 'src/cli/backtest-main.js'), index: join(dist, 'src/index.js'), ...Object.fromEntries(strategyEntries) },
  outdir: bundleDir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Pure JavaScript packages the backtest needs before its first candle are bundled in (tens of files
  // each to load otherwise); every other package stays an import: one copy of decimal.js for mizan and
  // the strategies, pino's transport threads, native modules, the commands' lazily loaded servers.
  external: Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).dependencies).filter((d) => !INLINED.has(d)),
  sourcemap: true,
  chunkNames: 'chunk-[hash]',
  // The CommonJS packages bundled in (commander, cli-progress) require() node's own modules.
  banner: { js: "import { createRequire as __mizanRequire } from 'node:module'; const require = __mizanRequire(import.meta.url);" },
  logLevel: 'warning',
  plugins: [ownUrl],
});

// Stamp: test/support/build-dist.ts rebuilds before a test run when a source is newer than this.
writeFileSync(join(root, 'dist/.build-stamp'), `${new Date().toISOString()}\n`);
