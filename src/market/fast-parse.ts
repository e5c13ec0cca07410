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
