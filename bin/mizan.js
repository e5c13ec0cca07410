#!/usr/bin/env node
// The `mizan` command: the compiled CLI (dist/, built by `npm run build`, which `prepare` and
// `pretest` run). A user's strategy file is compiled with esbuild when it is loaded
// (src/runtime/strategy-compile.ts); mizan itself is plain JavaScript here.
// In a checkout (src/ beside dist/), a build older than the sources is rebuilt first, so the command
// never runs JavaScript older than the TypeScript it was built from.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

// V8's allocation-site pretenuring, off for mizan's process (its worker threads included), as the
// command's first step (a program calling runBacktest itself keeps node's default). Early in a
// backtest the first orders are all still held when the first young-generation collections run, so
// V8 judged some of the per-order object literals long-lived and from then on allocated them in the
// old generation, where each one kept the young objects it points to (its Decimals, its fills) alive
// until the next full collection. Whether that happened depended on when the first collections
// fell, which anything run before the backtest moves (in a checkout, the build check below was
// enough): on about half of the 1M-candle runs the collector promoted 70-105 MB instead of ~30 MB
// and the peak RSS was 233-260 MB instead of ~197 MB. Without pretenuring every run promotes
// 30-35 MB, at the same speed (bench/results/e2e.json, gc1M).
v8.setFlagsFromString('--no-allocation-site-pretenuring');

const root = fileURLToPath(new URL('..', import.meta.url));
const staleCheck = new URL('../scripts/build-stale.mjs', import.meta.url);
if (existsSync(new URL('../src', import.meta.url)) && existsSync(staleCheck)) {
  const { buildIsStale } = await import(staleCheck.href);
  if (buildIsStale(root)) {
    process.stderr.write('mizan: building dist/ (the sources changed since the last build)...\n');
    // node:child_process only then: it is not on the way of a current build to its command.
    const { execFileSync } = await import('node:child_process');
    try {
      execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    } catch {
      process.stderr.write('mizan: the build failed (npm run build shows why)\n');
      process.exit(1);
    }
  }
}
// `mizan backtest`: its bundle (dist/bundle/, src/cli/backtest-main.ts), a few files to load instead of
// the two hundred modules of dist/src/ (the time to the first candle). Any other command: the whole CLI.
// The program has no option taking a value, so the first word that is not an option is the command.
const bundled = process.argv.slice(2).find((a) => !a.startsWith('-')) === 'backtest' ? new URL('../dist/bundle/backtest.js', import.meta.url) : undefined;
const cli = bundled && existsSync(bundled) ? bundled : new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('mizan: dist/ is missing: run `npm run build` in the mizan folder first\n');
  process.exit(1);
}
await import(cli.href);
