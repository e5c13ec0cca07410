/**
 * Field schemas shared by the configuration sections. Custom messages are predicates ("is not a
 * number ..."): the issue formatter puts the offending value in front of them.
 */
import * as z from 'zod';
import { nodeCron } from '../core/node-cron.js';
import { Decimal, toDecimal } from '../core/decimal.js';
import { RESOLUTIONS } from '../core/types/market.js';

/** Upper-case letters and digits: an asset (`USDT`) or a market symbol (`BTCUSDT`). */
export const SYMBOL_RE = /^[A-Z0-9]{2,20}$/;
const SYMBOL_HINT = 'is not a symbol (upper-case letters and digits, e.g. BTCUSDT or USDT)';

export const symbol = () => z.string().regex(SYMBOL_RE, { error: SYMBOL_HINT });

/** A record keyed by asset or market symbol. */
export function symbolMap<T extends z.ZodType>(value: T) {
  return z.record(z.string().regex(SYMBOL_RE, { error: SYMBOL_HINT }), value);
}

export interface MoneyOptions {
  /** Accept 0 (balances, fees). Negative amounts are never accepted. */
  allowZero?: boolean;
  /** Inclusive upper bound (e.g. 1 for fee fractions). */
  max?: string;
  description?: string;
}

/**
 * An amount of money, a price or a quantity: a number or a numeric string, turned into a Decimal
 * with toDecimal (never through a float: `0.00000001` stays exact). Zero or negative rejected
 * unless allowZero.
 */
export function money(opts: MoneyOptions = {}) {
  const schema = z
    .union([z.string(), z.number()], { error: 'is not a number (a decimal number or numeric string, e.g. 1000 or "0.5")' })
    .transform((v, ctx): Decimal => {
      let dec: Decimal;
      try {
        dec = toDecimal(v);
      } catch {
        ctx.addIssue({ code: 'custom', message: 'is not a number (a decimal number or numeric string, e.g. 1000 or "0.5")', input: v });
        return z.NEVER;
      }
      if (opts.allowZero ? dec.isNeg() : dec.lte(0)) {
        ctx.addIssue({ code: 'custom', message: opts.allowZero ? 'must not be negative (0 or more)' : 'must be positive (greater than 0)', input: v });
        return z.NEVER;
      }
      if (opts.max !== undefined && dec.gt(opts.max)) {
        ctx.addIssue({ code: 'custom', message: opts.allowZero ? `must be from 0 to ${opts.max}` : `must be more than 0 and at most ${opts.max}`, input: v });
        return z.NEVER;
      }
      return dec;
    });
  return opts.description ? schema.describe(opts.description) : schema;
}

/** A percentage as a plain number, 0 < p <= max (100 unless told). */
export function pct(description: string, max = 100) {
  return z
    .number({ error: 'is not a number (a percentage, e.g. 2.5)' })
    .gt(0, { error: `must be greater than 0 and at most ${max}` })
    .lte(max, { error: `must be greater than 0 and at most ${max}` })
    .describe(description);
}

export function positiveInt(description: string, max = 1_000_000_000) {
  return z
    .number({ error: 'is not a whole number' })
    .int({ error: 'is not a whole number' })
    .min(1, { error: `must be a whole number from 1 to ${max}` })
    .max(max, { error: `must be a whole number from 1 to ${max}` })
    .describe(description);
}

/** Candle resolution: one of the exchange's (minutes or D/1D/2D/3D), or seconds like `60s`. */
export function resolution() {
  const allowed = `one of ${RESOLUTIONS.join(', ')} (minutes or days) or seconds like "60s"`;
  return z
    .union([z.string(), z.number()], { error: `is not a resolution (${allowed})` })
    .transform((v, ctx): string => {
      const s = String(v).trim();
      if ((RESOLUTIONS as readonly string[]).includes(s) || /^[1-9]\d{0,5}s$/.test(s)) return s;
      ctx.addIssue({ code: 'custom', message: `is not a resolution (${allowed})`, input: v });
      return z.NEVER;
    })
    .describe(`Candle resolution: ${allowed}`);
}

/** Length of a configured resolution in seconds. */
export function resolutionToSeconds(res: string): number {
  if (res.endsWith('s')) return Number(res.slice(0, -1));
  if (res === 'D' || res === '1D') return 86_400;
  if (res === '2D') return 2 * 86_400;
  if (res === '3D') return 3 * 86_400;
  return Number(res) * 60;
}

export function cronExpr() {
  return z
    .string({ error: 'is not a cron expression (a string of 5 or 6 fields, e.g. "*/5 * * * *")' })
    .refine((s) => nodeCron().validate(s), { error: 'is not a valid cron expression (5 or 6 fields, e.g. "*/5 * * * *")' })
    .describe('Cron expression (5 fields, or 6 with seconds first), e.g. "0 */6 * * *"');
}

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

export function timeZone() {
  return z
    .string({ error: 'is not a time zone name (IANA, e.g. "Asia/Tehran" or "UTC")' })
    .refine(isTimeZone, { error: 'is not a known time zone (IANA names, e.g. "Asia/Tehran", "Europe/London", "UTC")' })
    .describe('IANA time zone, e.g. Asia/Tehran');
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;

/** A point in time: `2024-01-31` (UTC midnight), an ISO time with a zone, or Unix seconds. Output: epoch ms. */
export function instant(description: string) {
  const hint = 'is not a date (YYYY-MM-DD, an ISO time with a zone like 2024-01-31T12:00:00Z, or Unix seconds)';
  return z
    .union([z.string(), z.number()], { error: hint })
    .transform((v, ctx): number => {
      let ms = NaN;
      if (typeof v === 'number') ms = Number.isInteger(v) && v >= 0 ? v * 1000 : NaN;
      else if (DATE_ONLY.test(v) || DATE_TIME.test(v)) ms = Date.parse(DATE_ONLY.test(v) ? `${v}T00:00:00Z` : v);
      if (!Number.isFinite(ms)) {
        ctx.addIssue({ code: 'custom', message: hint, input: v });
        return z.NEVER;
      }
      return ms;
    })
    .describe(description);
}

/** A file or directory path (resolved against the loader's baseDir later). */
export function filePath(description: string) {
  return z.string().min(1, { error: 'must not be empty (a file path)' }).describe(description);
}
