/**
 * Registers every `mizan` subcommand. Kept apart from main.ts (the entry, which parses process.argv)
 * so tests can build the program without parsing it.
 */
import type { Command } from 'commander';
import { registerJournalCommand } from './journal.js';
import { registerOrdersCommand } from './orders.js';
import { registerSimCommand } from '../sim/cli-command.js';
import { registerRunCommand } from './run.js';
import { registerCheckCommands } from './check.js';
import { registerRiskCommands } from './risk.js';
import { registerMarketCommands } from './market.js';
import { registerBacktestCommands } from './backtest.js';
import { registerAnalyzeCommands } from './analyze.js';
import { registerRecordCommand } from './record.js';
import { registerWorkerCommand } from './worker.js';
import { registerOptimizeCommands } from './optimize.js';
import { registerAccountCommands } from './account.js';

export function registerCommands(program: Command): void {
  registerRunCommand(program);
  registerCheckCommands(program);
  registerJournalCommand(program);
  registerOrdersCommand(program);
  registerSimCommand(program);
  registerBacktestCommands(program);
  registerAnalyzeCommands(program);
  registerRecordCommand(program);
  registerWorkerCommand(program);
  registerOptimizeCommands(program);
  registerRiskCommands(program);
  registerMarketCommands(program);
  registerAccountCommands(program);
}
