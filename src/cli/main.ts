/**
 * The `mizan` command. Each area registers its own subcommands; this file only assembles them.
 */
import { Command } from 'commander';
import { registerCommands } from './commands.js';
import { registerInitCommands } from './init.js';

// `mizan strategies | head`: a closed pipe ends the output, not the process with a stack trace.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const program = new Command();
program
  .name('mizan')
  .description('Algorithmic trading for the Wallex exchange: live, paper and backtest.')
  .version('0.1.0')
  .showHelpAfterError();

registerCommands(program);
registerInitCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`mizan: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
