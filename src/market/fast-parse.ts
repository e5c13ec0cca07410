/**
 * Allocation-free parse of a plain decimal string ("62525.04", "1018259534.0000000000000000") to the
 * nearest double. Digits are accumulated into an integer mantissa (trailing fractional zeros are not
 * accumulated) and divided once by an exact power of ten: when the mantissa is below 2^53 and the
 * power at most 10^22, both operands are exact and IEEE division rounds correctly, so the result is
 * the same double `Number(s)` gives. Anything else (exponent, sign, long mantissa, junk) falls back to
 * `Number(s)` after a syntax check; returns NaN for non-numeric text.
 */
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
