/** Cron next-time on a simulated clock, checked against node-cron's own matcher. */
import cron from 'node-cron';
import { describe, expect, it } from 'vitest';
import { cronSchedule } from '../../src/backtest/cron.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

/** Walk `count` fire times; each must match node-cron, and no matching instant may lie between two (step: granularity). */
function checkAgainstNodeCron(expr: string, tz: string, startIso: string, count: number, stepMs: number): number[] {
  const task = cron.createTask(expr, () => undefined, { timezone: tz });
  const s = cronSchedule(expr, tz);
  const out: number[] = [];
  let t = at(startIso);
  for (let k = 0; k < count; k++) {
    const next = s.next(t)!;
    expect(next).toBeGreaterThan(t);
    expect(task.match(new Date(next)), `${expr} ${tz} ${iso(next)}`).toBe(true);
    for (let u = Math.floor(t / stepMs) * stepMs + stepMs; u < next; u += stepMs) {
      if (task.match(new Date(u))) throw new Error(`${expr} ${tz}: missed ${iso(u)} before ${iso(next)}`);
    }
    out.push(next);
    t = next;
  }
  return out;
}

describe('cronSchedule', () => {
  it('gives the next minute-granularity times of 5-field expressions', () => {
    const s = cronSchedule('*/15 9-17 * * mon-fri');
    expect(iso(s.next(at('2024-01-05T17:50:00Z')))).toBe('2024-01-08T09:00:00.000Z'); // Friday evening -> Monday
    expect(iso(s.next(at('2024-01-08T09:00:00Z')))).toBe('2024-01-08T09:15:00.000Z'); // strictly after
    expect(iso(s.next(at('2024-01-08T09:14:59.999Z')))).toBe('2024-01-08T09:15:00.000Z');
    expect(iso(cronSchedule('0 0 L * *').next(at('2024-02-10T00:00:00Z')))).toBe('2024-02-29T00:00:00.000Z');
    expect(iso(cronSchedule('0 12 * * 1#2').next(at('2024-03-01T00:00:00Z')))).toBe('2024-03-11T12:00:00.000Z');
  });

  it('handles the 6-field form (seconds first)', () => {
    const s = cronSchedule('*/20 * * * * *');
    expect(iso(s.next(at('2024-01-01T00:00:59Z')))).toBe('2024-01-01T00:01:00.000Z');
    expect(iso(s.next(at('2024-01-01T00:01:00Z')))).toBe('2024-01-01T00:01:20.000Z');
    checkAgainstNodeCron('5,35 */2 * * * *', 'UTC', '2024-01-01T23:57:00Z', 20, 1000);
  });

  it('agrees with node-cron on every fire time, in UTC and in a time zone', () => {
    checkAgainstNodeCron('30 */4 * * *', 'Asia/Tehran', '2023-01-03T00:00:00Z', 30, 60_000);
    checkAgainstNodeCron('0 8 * * 1-5', 'UTC', '2024-02-26T00:00:00Z', 10, 60_000);
    checkAgainstNodeCron('15 10 1,15 * *', 'UTC', '2024-01-01T00:00:00Z', 6, 3_600_000);
    // Across the 2024 spring-forward of New York (02:00-03:00 local does not exist).
    const got = checkAgainstNodeCron('30 * * * *', 'America/New_York', '2024-03-10T05:00:00Z', 4, 60_000);
    expect(got.map((t) => iso(t))).toEqual(['2024-03-10T05:30:00.000Z', '2024-03-10T06:30:00.000Z', '2024-03-10T07:30:00.000Z', '2024-03-10T08:30:00.000Z']);
    expect(iso(cronSchedule('0 2 * * *', 'America/New_York').next(at('2024-03-10T00:00:00Z')))).toBe('2024-03-11T06:00:00.000Z');
  });

  it('rejects what node-cron rejects', () => {
    expect(() => cronSchedule('61 * * * *')).toThrow();
    expect(() => cronSchedule('* * *')).toThrow();
  });
});
