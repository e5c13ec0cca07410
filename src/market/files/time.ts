/**
 * Time fields of candle files, to Unix seconds (UTC).
 * - Epoch numbers: the unit is detected from the magnitude (>= 1e17 ns, >= 1e14 µs, >= 1e11 ms,
 *   else seconds; 1e11 s is the year 5138 and 1e11 ms is 1973).
 * - ISO dates `YYYY-MM-DD`, `YYYY-MM-DD HH:MM[:SS[.fff]]`, with `T` or a space, with an optional `Z`
 *   or `±HH:MM` offset. **Naive dates and times (no offset) are read as UTC**: backtesting.py and
 *   backtrader files carry no timezone.
 * Returns NaN for anything else (the caller names the file, line and field).
 */

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/;
const EPOCH = /^\d+(\.\d+)?$/;

export function epochToSeconds(v: number): number {
  if (!Number.isFinite(v) || v < 0) return NaN;
  if (v >= 1e17) return v / 1e9;
  if (v >= 1e14) return v / 1e6;
  if (v >= 1e11) return v / 1e3;
  return v;
}

export function parseTimeValue(raw: string | number): number {
  if (typeof raw === 'number') return epochToSeconds(raw);
  // fast path for plain epoch digits (the bundled format, hot in backtests)
  const c0 = raw.charCodeAt(0);
  if (c0 >= 48 && c0 <= 57) {
    const n = +raw;
    if (n === n && raw.indexOf('x') < 0 && raw.indexOf('e') < 0 && raw.indexOf('E') < 0) return epochToSeconds(n);
  }
  const s = raw.trim();
  if (EPOCH.test(s)) return epochToSeconds(Number(s));
  const m = ISO.exec(s);
  if (!m) return NaN;
  const [, y, mo, dd, hh, mi, ss, frac, tz] = m;
  const month = Number(mo);
  const day = Number(dd);
  const hour = hh === undefined ? 0 : Number(hh);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = ss === undefined ? 0 : Number(ss);
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return NaN;
  let ms = Date.UTC(Number(y), month - 1, day, hour, minute, second);
  if (frac !== undefined) ms += Math.round(Number(frac) * 1000);
  if (tz !== undefined && tz !== 'Z') {
    const sign = tz.startsWith('-') ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    ms -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  return ms / 1000;
}
