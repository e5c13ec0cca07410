/**
 * Cron schedules on a simulated clock. Live and paper runs use node-cron's timers; a backtest cannot
 * (its clock jumps), so this computes "the next fire time after t" from the same expression. The
 * fields come from node-cron's own parser (`parse`), so every form the config accepts (5 fields,
 * or 6 with seconds first; names, ranges, steps, lists, `L`, `nW`, `L-n`, `d#n`, `dL`) means the
 * same here; the day rules mirror node-cron 4's matcher (day of month AND day of week must both
 * match, as node-cron does). Times are local to the schedule's IANA time zone; a local time that
 * does not exist (a DST gap) is skipped, as node-cron does.
 */
import { nodeCron } from '../core/node-cron.js';

type DayToken = number | string;

export interface CronSchedule {
  /** The first fire time strictly after `afterMs` (ms, UTC), or undefined within the next 100 years. */
  next(afterMs: number): number | undefined;
}

interface Fields {
  second: number[];
  minute: number[];
  hour: number[];
  dayOfMonth: DayToken[];
  month: number[];
  dayOfWeek: DayToken[];
}

const lastDay = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();
const weekdayOf = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d)).getUTCDay();

function nearestWeekday(y: number, m: number, target: number): number {
  const last = lastDay(y, m);
  if (target < 1 || target > last) return -1;
  const wd = weekdayOf(y, m, target);
  if (wd === 6) return target === 1 ? target + 2 : target - 1;
  if (wd === 0) return target === last ? target - 2 : target + 1;
  return target;
}

function dayOfMonthMatches(field: DayToken[], y: number, m: number, d: number): boolean {
  for (const v of field) {
    if (v === d) return true;
    if (typeof v !== 'string') continue;
    if (v === 'L' && d === lastDay(y, m)) return true;
    const w = /^(\d{1,2}|L)W$/.exec(v);
    if (w && nearestWeekday(y, m, w[1] === 'L' ? lastDay(y, m) : Number(w[1])) === d) return true;
    const off = /^L-(\d{1,2})$/.exec(v);
    if (off && lastDay(y, m) - Number(off[1]) === d) return true;
  }
  return false;
}

function dayOfWeekMatches(field: DayToken[], y: number, m: number, d: number): boolean {
  const wd = weekdayOf(y, m, d);
  for (const v of field) {
    if (v === wd) return true;
    if (typeof v !== 'string') continue;
    const nth = /^([0-7])#([1-5])$/.exec(v);
    if (nth) {
      if (Number(nth[1]) % 7 === wd && Math.floor((d - 1) / 7) + 1 === Number(nth[2])) return true;
      continue;
    }
    const last = /^([0-7])L$/i.exec(v);
    if (last && Number(last[1]) % 7 === wd && d + 7 > lastDay(y, m)) return true;
  }
  return false;
}

/** Offset of a time zone from UTC at an instant, in ms (cached per hour). */
function offsetFn(timeZone: string): (ms: number) => number {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return () => 0;
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  });
  const cache = new Map<number, number>();
  return (ms) => {
    const key = Math.floor(ms / 3_600_000);
    let off = cache.get(key);
    if (off === undefined) {
      const p: Record<string, number> = {};
      for (const part of fmt.formatToParts(new Date(key * 3_600_000))) if (part.type !== 'literal') p[part.type] = Number(part.value);
      off = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!) - key * 3_600_000;
      if (cache.size > 10_000) cache.clear();
      cache.set(key, off);
    }
    return off;
  };
}

/** Parse a cron expression (as the config accepts it) for a time zone. Throws on an invalid one. */
export function cronSchedule(expression: string, timeZone = 'UTC'): CronSchedule {
  const f = nodeCron().parse(expression) as Fields;
  const seconds = [...f.second].sort((a, b) => a - b);
  const minutes = [...f.minute].sort((a, b) => a - b);
  const hours = [...f.hour].sort((a, b) => a - b);
  const offset = offsetFn(timeZone);
  /** UTC ms of a local wall time, or undefined when that local time does not exist (DST gap). */
  const toUtc = (y: number, mo: number, d: number, h: number, mi: number, s: number): number | undefined => {
    const local = Date.UTC(y, mo - 1, d, h, mi, s);
    let ms = local - offset(local);
    ms = local - offset(ms);
    return ms + offset(ms) === local ? ms : undefined;
  };
  return {
    next(afterMs) {
      const after = Math.floor(afterMs / 1000) * 1000;
      const localNow = new Date(after + offset(after));
      let y = localNow.getUTCFullYear();
      let mo = localNow.getUTCMonth() + 1;
      let d = localNow.getUTCDate();
      // Lower bound inside the first day only (later days start at 00:00:00).
      let bound = localNow.getUTCHours() * 3600 + localNow.getUTCMinutes() * 60 + localNow.getUTCSeconds();
      for (let i = 0; i < 366 * 100; i++) {
        if (f.month.includes(mo) && dayOfMonthMatches(f.dayOfMonth, y, mo, d) && dayOfWeekMatches(f.dayOfWeek, y, mo, d)) {
          for (const h of hours) {
            if (h * 3600 + 3599 <= bound) continue;
            for (const mi of minutes) {
              if (h * 3600 + mi * 60 + 59 <= bound) continue;
              for (const s of seconds) {
                if (h * 3600 + mi * 60 + s <= bound) continue;
                const ms = toUtc(y, mo, d, h, mi, s);
                if (ms !== undefined && ms > after) return ms;
              }
            }
          }
        }
        const nd = new Date(Date.UTC(y, mo - 1, d + 1));
        y = nd.getUTCFullYear();
        mo = nd.getUTCMonth() + 1;
        d = nd.getUTCDate();
        bound = -1;
      }
      return undefined;
    },
  };
}
