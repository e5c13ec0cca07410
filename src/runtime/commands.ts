/**
 * Registers every `mizan` subcommand. Kept apart from cli.ts so tests can build the program
 * without parsing process.argv.
 */
import type { Command } from 'commander';
import { registerJournalCommand } from '../store/cli-command.js';
import { registerSimCommand } from '../sim/cli-command.js';
import { registerRunCommand } from './run-command.js';
import { registerCheckCommands } from './check-command.js';
import { registerRiskCommands } from '../risk/cli-command.js';
import { registerMarketCommands } from '../market/cli-command.js';
import { registerBacktestCommands } from '../backtest/cli-command.js';

export function registerCommands(program: Command): void {
  registerRunCommand(program);
  registerCheckCommands(program);
  registerJournalCommand(program);
  registerSimCommand(program);
  registerBacktestCommands(program);
  registerRiskCommands(program);
  registerMarketCommands(program);
}
