/**
 * Cron schedules in a backtest: each strategy instance with `schedule.cron` gets `onSchedule(time)`
 * at every fire time of its expression (cron.ts) on the simulated clock, from the first candle close
 * at or after the run's start until the last candle. A tick between two candle closes runs at its own
 * time and sees the last closed candle (its book is that close); a tick at a candle's close time runs
 * after that candle was handled.
 */
import type { MizanConfig } from '../config/schema.js';
import type { StrategyInstance } from '../kernel/trading-core.js';
import { cronSchedule, type CronSchedule } from './cron.js';

interface Entry {
  name: string;
  cron: CronSchedule;
  next: number;
}

export class BacktestSchedules {
  private readonly entries: Entry[] = [];

  constructor(config: MizanConfig, instances: readonly StrategyInstance[], startMs: number) {
    for (const s of config.strategies) {
      if (!s.schedule || !instances.some((i) => i.name === s.name)) continue;
      const cron = cronSchedule(s.schedule.cron, s.schedule.timezone);
      const next = cron.next(startMs - 1);
      if (next !== undefined) this.entries.push({ name: s.name, cron, next });
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /** Earliest pending fire time (Infinity when none). */
  peek(): number {
    let t = Infinity;
    for (const e of this.entries) if (e.next < t) t = e.next;
    return t;
  }

  /** The strategies due at `t` (the earliest pending time); their next times move on. */
  take(t: number): string[] {
    const out: string[] = [];
    for (const e of this.entries) {
      if (e.next !== t) continue;
      out.push(e.name);
      e.next = e.cron.next(t) ?? Infinity;
    }
    return out;
  }
}
