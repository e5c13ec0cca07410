/**
 * Importing mizan has no side effect on decimal.js: the program's own `Decimal` keeps its prototype
 * (every method the same function) and its settings, while mizan's arithmetic runs at its own
 * precision. Checked in a fresh Node process that imports decimal.js first, as a user's program would.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';

const SCRIPT = `
import { Decimal } from 'decimal.js';
const P = Decimal.prototype;
const names = () => Reflect.ownKeys(P).map(String).sort();
const settings = () => ({ precision: Decimal.precision, rounding: Decimal.rounding, toExpNeg: Decimal.toExpNeg, toExpPos: Decimal.toExpPos, minE: Decimal.minE, maxE: Decimal.maxE, modulo: Decimal.modulo, crypto: Decimal.crypto });
const namesBefore = names();
const methodsBefore = new Map(namesBefore.map((n) => [n, P[n]]));
const settingsBefore = settings();
const thirdBefore = new Decimal(1).div(3).toString();
const mizan = await import('mizan');
const changed = names().filter((n) => P[n] !== methodsBefore.get(n));
console.log(JSON.stringify({
  exports: Object.keys(mizan).length,
  namesSame: JSON.stringify(names()) === JSON.stringify(namesBefore),
  changed,
  settingsBefore,
  settingsAfter: settings(),
  thirdBefore,
  thirdAfter: new Decimal(1).div(3).toString(),
  mizanThird: mizan.d('1').div(3).toString(),
  mizanIsDecimal: mizan.d('1') instanceof Decimal,
}));
`;

describe('importing mizan', () => {
  it("leaves decimal.js's prototype and settings as they were", () => {
    // `mizan` resolves through package.json exports to the build (npm test builds first).
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT], { cwd: REPO, encoding: 'utf8' });
    const r = JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
    expect(r.exports).toBeGreaterThan(0);
    expect(r.namesSame).toBe(true);
    expect(r.changed).toEqual([]);
    expect(r.settingsAfter).toEqual(r.settingsBefore);
    expect(r.settingsBefore).toMatchObject({ precision: 20, rounding: 4 });
    expect(r.thirdAfter).toBe(r.thirdBefore);
    expect(r.thirdBefore).toBe('0.33333333333333333333');
    // mizan's own arithmetic keeps its 40 digits, and its values are ordinary decimal.js instances.
    expect(r.mizanThird).toBe('0.' + '3'.repeat(40));
    expect(r.mizanIsDecimal).toBe(true);
  }, 60_000);
});
