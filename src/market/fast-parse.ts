/**
 * Allocation-free parse of a plain decimal string ("62525.04", "1018259534.0000000000000000") to the
 * nearest double. Digits are accumulated into an integer mantissa (trailing fractional zeros are not
 * accumulated) and divided once by an exact power of ten: when the mantissa is below 2^53 and the
 * power at most 10^22, both operands are exact and IEEE division rounds correctly, so the result is
 * the same double `Number(s)` gives. Anything else (exponent, sign, long mantissa, junk) falls back to
 * `Number(s)` after a syntax check; returns NaN for non-numeric text.
 */
import type { Decimal } from 'decimal.js';

const POW10: number[] = [];
for (let i = 0; i <= 22; i++) POW10.push(10 ** i);

const PLAIN = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/;

export function parseDecimalString(s: string): number {
  const len = s.length;
  let mant = 0;
  let scale = 0;
  let zeros = 0;
  let dot = false;
  let digits = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      digits++;
      if (dot) {
        if (c === 48) {
          zeros++;
          continue;
        }
        while (zeros > 0) {
          mant *= 10;
          scale++;
          zeros--;
        }
        scale++;
      }
      mant = mant * 10 + (c - 48);
    } else if (c === 46 && !dot) {
      dot = true;
    } else {
      return slow(s);
    }
  }
  if (digits === 0 || mant > 9007199254740991 || scale > 22) return slow(s);
  return scale === 0 ? mant : mant / (POW10[scale] as number);
}

function slow(s: string): number {
  return PLAIN.test(s) ? Number(s) : NaN;
}

/**
 * A Decimal to the nearest double without going through a string (`toNumber()` does, ~2 µs).
 * decimal.js keeps the coefficient in base-10^7 words (`d`), the decimal exponent of the first digit
 * (`e`) and the sign (`s`). When the coefficient fits below 2^53 and the power of ten is at most
 * 10^22, one exact multiplication or division gives the correctly rounded double; otherwise this
 * falls back to `toNumber()`.
 */
export function decimalToNumber(x: Decimal): number {
  const d = x.d;
  if (!d || d.length > 3) return x.toNumber(); // NaN/Infinity have no words; > 21 digits: slow path
  let mant = d[0] as number;
  let digits = mant >= 1e6 ? 7 : mant >= 1e5 ? 6 : mant >= 1e4 ? 5 : mant >= 1e3 ? 4 : mant >= 100 ? 3 : mant >= 10 ? 2 : 1;
  for (let i = 1; i < d.length; i++) {
    mant = mant * 1e7 + (d[i] as number);
    digits += 7;
  }
  if (mant > 9007199254740991) return x.toNumber();
  const exp = x.e - (digits - 1);
  let v: number;
  if (exp === 0) v = mant;
  else if (exp > 0 && exp <= 22) v = mant * (POW10[exp] as number);
  else if (exp < 0 && exp >= -22) v = mant / (POW10[-exp] as number);
  else return x.toNumber();
  return x.s < 0 ? -v : v;
}

const MAX_SAFE = 9007199254740991;
/** '.' less '0', as parseTicks sees it. */
const DOT = 46 - 48;

/**
 * A plain decimal string ("62525.04", "5.", ".5", "1018259534.0000000000000000") as an integer
 * number of ticks at `scale` decimals (62525.04 at scale 2 → 6252504), without allocating and without
 * a division. Returns -1 when the string is not plain (sign, exponent, space, junk, no digit), has a
 * non-zero digit beyond `scale` decimals, or the tick count passes 2^53 − 1: the caller then takes
 * the general path. The result is exact: ticks × 10^−scale is the decimal the string spells.
 *
 * The hot path is the shape a market's stream sends, exactly `scale` decimals: the dot's place is
 * known from the length, so two loops read only digits, one test each, into the integer. Any other
 * shape takes one pass that reads each character once (digit, else the one dot, else refused) and
 * lifts the integer to the scale with one exact multiplication; more decimals than `scale` (trailing
 * zeros, as REST sends them) are checked and dropped with one exact division (a second pass that
 * stops accumulating at the scale only when the whole integer passes 2^53). The integer is
 * exact while below 2^53; past that it is at least 2^53 and so refused, as is a product past
 * 2^53 − 1 (below it, the product of two exact doubles is exact).
 */
export function parseTicks(s: string, scale: number): number {
  const len = s.length;
  const dot = len - 1 - scale; // where the dot is in "<digits>.<scale digits>"
  if (scale > 0 && dot > 0 && s.charCodeAt(dot) === 46) {
    let v = 0;
    for (let i = 0; i < dot; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return -1;
      v = v * 10 + d;
    }
    for (let i = dot + 1; i < len; i++) {
      const d = s.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return -1;
      v = v * 10 + d;
    }
    return v <= MAX_SAFE ? v : -1;
  }
  return ticksAnyShape(s, scale);
}

/** parseTicks for any other shape: no dot, fewer or more decimals than `scale`, junk. */
function ticksAnyShape(s: string, scale: number): number {
  const len = s.length;
  let v = 0;
  let dot = -1;
  for (let i = 0; i < len; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d >= 0 && d <= 9) v = v * 10 + d;
    else if (d === DOT && dot < 0) dot = i;
    else return -1;
  }
  const decimals = dot < 0 ? 0 : len - dot - 1;
  if (decimals > scale) {
    // The digits past the scale (trailing zeros, as REST and other exchanges send them) are the
    // integer's last ones: while it is exact (below 2^53) one exact division and its check say
    // whether they are all zeros, without reading the string again.
    const extra = decimals - scale;
    if (v <= MAX_SAFE && extra <= 22) {
      const f = POW10[extra] as number;
      const q = Math.floor(v / f);
      return q * f === v ? q : -1;
    }
    return ticksBeyondScale(s, scale);
  }
  if (len === (dot < 0 ? 0 : 1)) return -1; // no digit: "" or "."
  if (decimals < scale) v *= POW10[scale - decimals] as number;
  return v <= MAX_SAFE ? v : -1;
}

/** parseTicks for a plain string with more decimals than `scale`: they must all be zeros. */
function ticksBeyondScale(s: string, scale: number): number {
  const len = s.length;
  let v = 0;
  let frac = -1;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (frac < 0) {
      if (c === 46) frac = 0;
      else v = v * 10 + (c - 48);
    } else if (frac < scale) {
      v = v * 10 + (c - 48);
      frac++;
    } else if (c !== 48) return -1; // a non-zero digit beyond the scale
  }
  return v <= MAX_SAFE ? v : -1;
}

/** Decimals a plain decimal string needs (trailing fractional zeros ignored), or -1 when not plain. */
export function plainDecimals(s: string): number {
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(s)) return -1;
  const dot = s.indexOf('.');
  if (dot < 0) return 0;
  let end = s.length;
  while (end > dot + 1 && s.charCodeAt(end - 1) === 48) end--;
  return end - dot - 1;
}

/** 10^i as a double, exact for 0 ≤ i ≤ 22. */
export function pow10(i: number): number {
  return POW10[i] as number;
}
