/**
 * node-cron, loaded at its first use: a config or a backtest without a cron schedule never loads it
 * (nor the child_process module it imports), which keeps it off `mizan backtest`'s way to its first
 * candle. Its CommonJS build, required synchronously (a config check calls `validate` inside a
 * schema refinement); the same library as its ES module build, one copy per process.
 */
import { createRequire } from 'node:module';
import type nodeCronModule from 'node-cron';

type NodeCron = typeof nodeCronModule;
let lib: NodeCron | undefined;

export function nodeCron(): NodeCron {
  return (lib ??= createRequire(import.meta.url)('node-cron') as NodeCron);
}
