/**
 * Text of the report's numbers and times: amounts rounded as text at a number of decimals, and
 * minutes in UTC (backtest/report-html.ts prints its tables with them).
 */
import { Decimal } from '../core/decimal.js';

/** `YYYY-MM-DD HH:mm UTC` of a time in ms. */
export function utcMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Digits `int` + `frac` (no sign) plus one unit in the last place: carries through the nines. */
function roundedUp(int: string, frac: string): [string, string] {
  const d = (int + frac).split('');
  let i = d.length - 1;
  while (i >= 0 && d[i] === '9') d[i--] = '0';
  if (i >= 0) d[i] = String.fromCharCode(d[i]!.charCodeAt(0) + 1);
  else d.unshift('1');
  const all = d.join('');
  return [all.slice(0, all.length - frac.length), all.slice(all.length - frac.length)];
}

/**
 * A decimal string at `digits` decimals (rounded half up: a tie away from zero), thousands grouped.
 * A plain decimal string (the result's amounts are) is rounded as text, with exactly the digits and
 * sign Decimal's toFixed gives (a negative that rounds to zero keeps its sign: "-0.00"); anything
 * else (an exponent) goes through Decimal. The trades table formats five amounts per trade.
 */
export function fixed(v: string, digits: number): string {
  const dp = Math.max(0, digits);
  const m = PLAIN.exec(v);
  let sign: string;
  let int: string;
  let frac: string;
  if (m) {
    sign = m[1]!;
    int = m[2]!.replace(/^0+(?=\d)/, '');
    const all = m[3] ?? '';
    frac = all.slice(0, dp).padEnd(dp, '0');
    if (all.length > dp && all.charCodeAt(dp) >= 53 /* '5' */) [int, frac] = roundedUp(int, frac);
    // Decimal's toFixed: "-" when the value itself is below zero, whatever it rounds to.
    if (sign === '-' && !/[1-9]/.test(m[2]! + all)) sign = '';
  } else {
    const s = new Decimal(v).toFixed(dp, Decimal.ROUND_HALF_UP);
    sign = s.startsWith('-') ? '-' : '';
    const [i, f] = s.slice(sign.length).split('.') as [string, string | undefined];
    int = i;
    frac = f ?? '';
  }
  return sign + int.replace(/\B(?=(\d{3})+(?!\d))/g, ',') + (dp > 0 ? `.${frac}` : '');
}
