/**
 * The `mizan` command. Each area registers its own subcommands; this file only assembles them.
 */
import type { Command } from 'commander';
import { createProgram, runProgram } from './program.js';

const program = createProgram();

type Register = (program: Command) => void;

/**
 * The module that registers each subcommand: a command line naming one loads only its module (and
 * what it imports), not every command's: `mizan backtest` does not load the journal's SQLite, the
 * simulator's server or the optimiser before its first candle. Anything else (no command, --help,
 * `help`, an unknown word) registers them all, in the order `mizan --help` lists them.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  run: () => import('./run.js').then((m) => m.registerRunCommand),
  check: () => import('./check.js').then((m) => m.registerCheckCommands),
  strategies: () => import('./check.js').then((m) => m.registerCheckCommands),
  journal: () => import('./journal.js').then((m) => m.registerJournalCommand),
  sim: () => import('../sim/cli-command.js').then((m) => m.registerSimCommand),
  backtest: () => import('./backtest.js').then((m) => m.registerBacktestCommands),
  sweep: () => import('./backtest.js').then((m) => m.registerBacktestCommands),
  analyze: () => import('./analyze.js').then((m) => m.registerAnalyzeCommands),
  worker: () => import('./worker.js').then((m) => m.registerWorkerCommand),
  optimize: () => import('./optimize.js').then((m) => m.registerOptimizeCommands),
  study: () => import('./optimize.js').then((m) => m.registerOptimizeCommands),
  halt: () => import('./risk.js').then((m) => m.registerRiskCommands),
  resume: () => import('./risk.js').then((m) => m.registerRiskCommands),
  status: () => import('./risk.js').then((m) => m.registerRiskCommands),
  book: () => import('./market.js').then((m) => m.registerMarketCommands),
  candles: () => import('./market.js').then((m) => m.registerMarketCommands),
  markets: () => import('./market.js').then((m) => m.registerMarketCommands),
  account: () => import('./account.js').then((m) => m.registerAccountCommands),
  init: () => import('./init.js').then((m) => m.registerInitCommands),
  'new-strategy': () => import('./init.js').then((m) => m.registerInitCommands),
};

// The program has no option taking a value, so the first word that is not an option is the command.
const named = process.argv.slice(2).find((a) => !a.startsWith('-'));
const only = named !== undefined && Object.hasOwn(COMMANDS, named) ? COMMANDS[named] : undefined;
if (only) (await only())(program);
else {
  const [{ registerCommands }, { registerInitCommands }] = await Promise.all([import('./commands.js'), import('./init.js')]);
  registerCommands(program);
  registerInitCommands(program);
}

await runProgram(program);
