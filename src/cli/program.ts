/**
 * The `mizan` program both entries share: the whole CLI (main.ts) and the bundled `mizan backtest`
 * (backtest-main.ts, dist/bundle/backtest.js).
 */
import { Command } from 'commander';
import { installProcessGuards } from './process-guard.js';

/** The process guards, the closed-pipe rule and the program without its subcommands. */
export function createProgram(): Command {
  // An uncaught exception or unhandled rejection is logged with the exit code, never a silent end.
  installProcessGuards();

  // `mizan strategies | head`: a closed pipe ends the output, not the process with a stack trace.
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });

  return new Command()
    .name('mizan')
    .description('Algorithmic trading for the Wallex exchange: live, paper and backtest.')
    .version('0.1.0')
    .showHelpAfterError();
}

/** Parse the command line and run the command; an error thrown out of it ends the process with status 1. */
export async function runProgram(program: Command): Promise<void> {
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    process.stderr.write(`mizan: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  }
}
