/**
 * Cron schedules of strategies (node-cron, with time zones). A tick is skipped, not queued, while
 * the previous one is still being handled: no overlapping runs.
 */
import { nodeCron } from '../core/node-cron.js';
import type { Logger } from '../core/logger.js';
import type { MizanConfig } from '../config/schema.js';
import type { TradingCore } from '../kernel/trading-core.js';

export function startSchedules(config: MizanConfig, core: TradingCore, logger: Logger): () => void {
  const tasks: { stop(): unknown }[] = [];
  for (const s of config.strategies) {
    if (!s.schedule) continue;
    let running = false;
    const task = nodeCron().schedule(
      s.schedule.cron,
      async () => {
        if (running) {
          logger.warn({ strategy: s.name }, 'schedule tick skipped: the previous one is still running');
          return;
        }
        running = true;
        try {
          await core.onSchedule(s.name, Date.now());
        } finally {
          running = false;
        }
      },
      { timezone: s.schedule.timezone, name: `mizan-${s.name}` },
    );
    tasks.push(task);
    logger.info({ strategy: s.name, cron: s.schedule.cron, timezone: s.schedule.timezone }, 'schedule started');
  }
  return () => {
    for (const t of tasks.splice(0)) t.stop();
  };
}
