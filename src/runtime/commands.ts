/**
 * Registers every `mizan` subcommand. Kept apart from cli.ts so tests can build the program
 * without parsing process.argv.
 */
import type { Command } from 'commander';
import { registerJournalCommand } from '../store/cli-command.js';

export function registerCommands(program: Command): void {
  registerJournalCommand(program);
  program
    .command('run')
    .description('run the strategies of a config file (paper on the embedded simulator by default)')
    .argument('<config>', 'YAML config file')
    .option('--duration <seconds>', 'stop after this many seconds')
    .option('--live', 'confirm live trading (the config must also say mode: live)')
    .action(async (config: string) => {
      process.stdout.write(
        `mizan: the trading runtime is not part of this build yet; config ${config} was not run.\n` +
          'Try `mizan sim` to start the embedded exchange simulator.\n',
      );
    });
}
