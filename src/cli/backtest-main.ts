/**
 * `mizan backtest` as one bundle: scripts/build.mjs bundles this file, the public API (src/index.ts)
 * and the bundled strategies with esbuild into dist/bundle/ (shared chunks, packages left as
 * imports), and bin/mizan.js loads dist/bundle/backtest.js for a `mizan backtest` command line: a few
 * files to load instead of some two hundred. A strategy's `mizan` is the bundle's own public API
 * (dist/bundle/index.js), so it shares the module instances (classes, Decimal) of the kernel that
 * runs it. This file stays at dist/bundle/ (the build does not rewrite its import.meta.url).
 */
import { registerBacktestCommands } from './backtest.js';
import * as start from './backtest-start.js';
import { createProgram, runProgram } from './program.js';
import { useMizanModules } from '../runtime/strategy-loader.js';

useMizanModules({
  api: new URL('./index.js', import.meta.url).href,
  resolve: (s) => import.meta.resolve(s),
  bundledStrategy: (name) => new URL(`./strategy-${name}.js`, import.meta.url).href,
});
const program = createProgram();
// The start's code imported with the command's (backtest-start.ts): in the bundle it shares their
// chunks instead of being split off at a dynamic import (fewer files to read before the first candle).
registerBacktestCommands(program, () => Promise.resolve(start));
await runProgram(program);
