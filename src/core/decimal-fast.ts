/**
 * Exact fast paths for decimal.js's most frequent operations (plus, minus, times and the
 * comparisons), installed on its prototype by core/decimal.ts. Every order, fill, reservation and
 * balance change goes through dozens of these, almost always on short numbers (a price, a quantity, a
 * fee): decimal.js copies the argument (`new Decimal(y)`) and works word by word in base 10^7, which
 * costs several times the arithmetic itself.
 *
 * decimal.js keeps a finite value as sign `s`, the decimal exponent `e` of its first digit and the
 * coefficient `d` in base-10^7 words aligned on the decimal point (no leading or trailing zero words).
 * When both operands have a coefficient below 2^53 (at most three words) the value is an integer
 * mantissa times a power of ten, and the sum, difference or product of two such values is computed
 * exactly with doubles as long as every intermediate stays below 2^53 (checked; IEEE arithmetic on
 * integers below 2^53 is exact, and a result at or above 2^53 is detected even when rounded). The
 * result is written back in decimal.js's own representation, the one its own arithmetic produces
 * (same `s`, `e`, `d`): it has at most 16 significant digits, so the precision (40) never rounds it.
 * Anything else (zero, NaN, infinities, long coefficients, far-apart exponents, a precision below 16)
 * takes decimal.js's own code. `test/core/decimal-fast.test.ts` compares both on many random pairs.
 *
 * The comparisons skip only the argument copy: decimal.js's algorithm, run on the argument itself
 * when it is already a finite Decimal of the same constructor with an exponent in range.
 */
import { Decimal } from 'decimal.js';

type Words = number[];
interface Internal {
  s: number;
  e: number;
  d: Words | null;
}

/** The Decimal constructor an instance was made by (decimal.js stores it on each instance). */
function ctorOf(v: Internal): typeof Decimal {
  return (v as unknown as { constructor: typeof Decimal }).constructor;
}

const SAFE = 2 ** 53;
const POW10: number[] = [];
for (let i = 0; i <= 22; i++) POW10.push(10 ** i);
/** Exponents beyond this (either way) take the slow path (decimal.js's own range checks apply there). */
const MAX_SCALE = 300;

const P = Decimal.prototype as unknown as Record<string, (this: Decimal, y: unknown) => unknown>;

/** decimal.js's own methods, kept for the slow path and for tests. */
export const originalDecimalMethods = {
  plus: P.plus!,
  minus: P.minus!,
  times: P.times!,
  cmp: P.cmp!,
  toDP: P.toDecimalPlaces! as (this: Decimal, dp?: unknown, rm?: unknown) => unknown,
};

// Scratch outputs of `split` (no allocation per call).
let mOut = 0;
let kOut = 0;

/**
 * Split a finite non-zero x into mantissa × 10^-k with the mantissa an integer below 2^53 without
 * trailing zeros (into mOut, kOut). False when the coefficient is too long or the scale too large.
 */
function split(x: Internal): boolean {
  const d = x.d!;
  const n = d.length;
  if (n > 3) return false;
  // The last word is never 0 (no trailing zero words): its trailing zeros go with small-integer steps.
  let last = d[n - 1]!;
  let z = 0;
  while (last % 10 === 0) {
    last = (last / 10) | 0;
    z++;
  }
  let m: number;
  if (n === 1) m = last;
  else {
    let high = d[0]!;
    if (n === 3) high = high * 1e7 + d[1]!;
    m = high * POW10[7 - z]! + last;
    if (m >= SAFE) return false;
  }
  // d[0] has base-10^7 exponent floor(e / 7): value = coefficient × 10^(7 × (floor(e / 7) − n + 1)).
  const k = 7 * (n - 1 - Math.floor(x.e / 7)) - z;
  if (k > MAX_SCALE || k < -MAX_SCALE) return false;
  mOut = m;
  kOut = k;
  return true;
}

/** a = q × floor(a / q) + r for an integer 0 < a < 2^53 and q ≤ 10^7, without a float modulo. */
let quotOut = 0;
function divmod(a: number, q: number): number {
  let t = Math.floor(a / q);
  let r = a - t * q;
  if (r < 0) {
    t--;
    r += q;
  } else if (r >= q) {
    t++;
    r -= q;
  }
  quotOut = t;
  return r;
}

/** Scratch words and a scratch Decimal for build (never handed out; copied by the constructor). */
const W1: Words = [0];
const W2: Words = [0, 0];
const W3: Words = [0, 0, 0];
const W4: Words = [0, 0, 0, 0];
const SCRATCH = new Decimal(1);

/** The Decimal s × m × 10^-k (m a positive integer below 2^53), in decimal.js's representation. */
function build(Ctor: typeof Decimal, s: number, m: number, k: number): Decimal {
  // Align on the decimal point: the fraction padded to whole words (F digits, a multiple of 7), so
  // the coefficient is m × 10^pad; its lowest word is (m mod 10^(7−pad)) × 10^pad and the rest are
  // the base-10^7 digits of m / 10^(7−pad) (no product above 2^53 is formed).
  const F = 7 * Math.ceil(k / 7);
  const pad = F - k;
  // Words and exponent are stored as small integers (`| 0`), as decimal.js's own are: a word or an
  // exponent held as a double would change the element kind of `d` or the field representation
  // of `e`, and every decimal.js function would then see two shapes.
  const low = (divmod(m, POW10[7 - pad]!) * POW10[pad]!) | 0;
  let rest = quotOut;
  let n: number;
  let w0: number;
  let w1 = 0;
  let w2 = 0;
  let w3 = 0;
  if (rest === 0) {
    n = 1;
    w0 = low;
  } else if (rest < 1e7) {
    n = 2;
    w0 = rest | 0;
    w1 = low;
  } else {
    const a = divmod(rest, 1e7) | 0;
    rest = quotOut;
    if (rest < 1e7) {
      n = 3;
      w0 = rest | 0;
      w1 = a;
      w2 = low;
    } else {
      n = 4;
      w1 = divmod(rest, 1e7) | 0;
      w0 = quotOut | 0;
      w2 = a;
      w3 = low;
    }
  }
  // The exponent of the first digit, from the whole coefficient (before dropping zero words).
  const digits = 7 * (n - 1) + (w0 < 10 ? 1 : w0 < 100 ? 2 : w0 < 1000 ? 3 : w0 < 10000 ? 4 : w0 < 100000 ? 5 : w0 < 1000000 ? 6 : 7);
  // No trailing zero words (w0 is never 0).
  while (n > 1 && (n === 4 ? w3 : n === 3 ? w2 : w1) === 0) n--;
  const words = n === 1 ? W1 : n === 2 ? W2 : n === 3 ? W3 : W4;
  words[0] = w0;
  if (n > 1) words[1] = w1;
  if (n > 2) words[2] = w2;
  if (n > 3) words[3] = w3;
  // decimal.js's own copy constructor makes the instance (its shape, its array copy) from a scratch
  // Decimal holding the result: one new object and one new array per result.
  const t = SCRATCH as unknown as Internal;
  t.s = s;
  t.e = (digits - 1 - F) | 0;
  t.d = words;
  const r = new Ctor(SCRATCH);
  t.d = W1;
  return r;
}

const ZERO = new Decimal(0) as unknown as Internal;

/** The argument of an operation as a Decimal: itself, or a number made exactly (decimalFromNumber); else undefined. */
function operand(y: unknown): Internal | undefined {
  // decimal.js stores its constructor on each instance: one property load, cheaper than instanceof.
  if (typeof y === 'object' && y !== null && (y as { constructor?: unknown }).constructor === Decimal) return y as unknown as Internal;
  if (typeof y === 'number') return y === 0 ? ZERO : (decimalFromNumber(y) as unknown as Internal | undefined);
  return undefined;
}

/** x + sy × y on the fast path, or undefined. */
function addSigned(x: Internal, y: unknown, sy: number): Decimal | undefined {
  const yi = operand(y);
  if (!yi) return undefined;
  const Ctor = ctorOf(x);
  if (ctorOf(yi) !== Ctor || Ctor.precision < 16) return undefined;
  const xd = x.d;
  const yd = yi.d;
  if (!xd || !yd) return undefined;
  if (!xd[0] || !yd[0]) {
    // One zero: decimal.js answers a copy of the other operand (negated for 0 − y), rounded to the
    // precision, which leaves a coefficient of at most five words (35 digits) as it is. Two zeros:
    // its sign rules for zero apply (slow path).
    if (xd[0]) return xd.length <= 5 && Ctor.precision >= 35 ? new Ctor(x as unknown as Decimal) : undefined;
    if (!yd[0] || yd.length > 5 || Ctor.precision < 35) return undefined;
    const r = new Ctor(yi as unknown as Decimal) as unknown as Internal;
    r.s = sy * yi.s;
    return r as unknown as Decimal;
  }
  if (!split(x)) return undefined;
  const m1 = mOut;
  const k1 = kOut;
  if (!split(yi)) return undefined;
  const m2 = mOut;
  const k2 = kOut;
  const K = k1 > k2 ? k1 : k2;
  const g1 = K - k1;
  const g2 = K - k2;
  if (g1 > 22 || g2 > 22) return undefined;
  const a = g1 === 0 ? m1 : m1 * POW10[g1]!;
  const b = g2 === 0 ? m2 : m2 * POW10[g2]!;
  if (a >= SAFE || b >= SAFE) return undefined;
  const sum = x.s * a + sy * yi.s * b;
  if (sum >= SAFE || sum <= -SAFE) return undefined;
  // Equal values cancel: decimal.js gives +0 (−0 when rounding towards −Infinity).
  if (sum === 0) return new Ctor(Ctor.rounding === Decimal.ROUND_FLOOR ? -0 : 0);
  return sum > 0 ? build(Ctor, 1, sum, K) : build(Ctor, -1, -sum, K);
}

function plus(this: Decimal, y: unknown): unknown {
  return addSigned(this as unknown as Internal, y, 1) ?? originalDecimalMethods.plus.call(this, y);
}

function minus(this: Decimal, y: unknown): unknown {
  return addSigned(this as unknown as Internal, y, -1) ?? originalDecimalMethods.minus.call(this, y);
}

function times(this: Decimal, y: unknown): unknown {
  const x = this as unknown as Internal;
  const yi = operand(y);
  if (yi) {
    const Ctor = ctorOf(x);
    const xd = x.d;
    const yd = yi.d;
    if (ctorOf(yi) === Ctor && Ctor.precision >= 16 && xd && yd && xd[0] && yd[0] && split(x)) {
      const m1 = mOut;
      const k1 = kOut;
      if (split(yi)) {
        const m = m1 * mOut;
        if (m < SAFE) {
          return build(Ctor, x.s * yi.s, m, k1 + kOut);
        }
      }
    }
  }
  return originalDecimalMethods.times.call(this, y);
}

/** decimal.js's comparison on the argument itself (no copy) when it is a finite Decimal in range. */
function cmp(this: Decimal, y: unknown): unknown {
  const x = this as unknown as Internal;
  if (y === 0) {
    // Against the number 0 (`x.gt(0)`, `x.lte(0)`): the sign, or 0 for a zero, NaN for NaN.
    const xd0 = x.d;
    if (!xd0) return x.s ? x.s : NaN;
    return xd0[0] ? x.s : 0;
  }
  const yi = operand(y);
  if (!yi) return originalDecimalMethods.cmp.call(this, y);
  const Ctor = ctorOf(x);
  const xd = x.d;
  const yd = yi.d;
  if (ctorOf(yi) !== Ctor || !xd || !yd || yi.e > Ctor.maxE || yi.e < Ctor.minE) return originalDecimalMethods.cmp.call(this, y);
  const xs = x.s;
  const ys = yi.s;
  if (!xd[0] || !yd[0]) return xd[0] ? xs : yd[0] ? -ys : 0;
  if (xs !== ys) return xs;
  if (x.e !== yi.e) return (x.e > yi.e) !== (xs < 0) ? 1 : -1;
  const xdL = xd.length;
  const ydL = yd.length;
  for (let i = 0, j = xdL < ydL ? xdL : ydL; i < j; ++i) {
    if (xd[i] !== yd[i]) return (xd[i]! > yd[i]!) !== (xs < 0) ? 1 : -1;
  }
  return xdL === ydL ? 0 : (xdL > ydL) !== (xs < 0) ? 1 : -1;
}

/**
 * toDecimalPlaces(dp, rm) for the rounding modes the project uses (UP, DOWN, HALF_UP, HALF_EVEN) on
 * a short number: its fraction digits cut at dp with integer arithmetic. A value that rounds to 0,
 * other modes and other arguments take decimal.js's code.
 */
function toDP(this: Decimal, dp?: unknown, rm?: unknown): unknown {
  const x = this as unknown as Internal;
  if (typeof dp === 'number' && (dp | 0) === dp && dp >= 0 && dp <= 100) {
    const Ctor = ctorOf(x);
    const mode = rm === undefined ? Ctor.rounding : rm;
    const xd = x.d;
    if ((mode === 0 || mode === 1 || mode === 4 || mode === 6) && xd && xd[0] && split(x)) {
      const m = mOut;
      const k = kOut;
      if (k <= dp) return build(Ctor, x.s, m, k);
      const g = k - dp;
      if (g <= 15) {
        const q = POW10[g]!;
        const rem = divmod(m, q);
        let t = quotOut;
        let up: boolean;
        if (mode === 1) up = false;
        else if (mode === 0) up = rem > 0;
        else {
          const twice = rem * 2;
          up = twice > q || (twice === q && (mode === 4 || t % 2 === 1));
        }
        if (up) t += 1;
        if (t !== 0) return build(Ctor, x.s, t, dp);
      }
    }
  }
  return originalDecimalMethods.toDP.call(this, dp, rm);
}

let installed = false;

/** Put the fast paths on decimal.js's prototype (once). */
export function installDecimalFastPaths(): void {
  if (installed) return;
  installed = true;
  P.plus = P.add = plus;
  P.minus = P.sub = minus;
  P.times = P.mul = times;
  P.cmp = P.comparedTo = cmp;
  P.toDecimalPlaces = P.toDP = toDP as (this: Decimal, y: unknown) => unknown;
}


/**
 * The Decimal of a finite non-zero number as its shortest round-trip decimal (what `String(v)`
 * prints, which core/decimal's toDecimal parses), made without the string: the fewest fraction
 * digits k ≤ 12 for which round(v × 10^k) / 10^k is v again (IEEE division of two exact integers
 * rounds correctly, so that holds exactly when the decimal reads back as v). Undefined for 0, for
 * magnitudes outside 10^-8..10^15, and when no k ≤ 12 is found: the caller takes the string path.
 */
export function decimalFromNumber(v: number): Decimal | undefined {
  const a = v < 0 ? -v : v;
  if (!(a >= 1e-8 && a < 1e15)) return undefined;
  for (let k = 0; k <= 12; k++) {
    const r = Math.round(a * POW10[k]!);
    if (r >= SAFE) return undefined;
    if (r / POW10[k]! === a) return r === 0 ? undefined : build(Decimal, v < 0 ? -1 : 1, r, k);
  }
  return undefined;
}
