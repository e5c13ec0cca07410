/** Reads cinar/indicator's reference CSVs (input columns + expected outputs rounded to 2 dp, 0 = warm-up). */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const CINAR_DIR = path.resolve(here, '../../fixtures/data/cinar-indicator');

export interface Table {
  rows: number;
  col(name: string): number[];
}

export function readCinar(rel: string): Table {
  const text = readFileSync(path.join(CINAR_DIR, rel), 'utf8');
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines[0]!.split(',');
  const data = lines.slice(1).map((l) => l.split(',').map(Number));
  return {
    rows: data.length,
    col(name: string): number[] {
      const i = header.indexOf(name);
      if (i < 0) throw new Error(`${rel}: no column ${name} in ${header.join(',')}`);
      return data.map((r) => r[i]!);
    },
  };
}

/**
 * Compares a computed series with an expected one: rows before `first` must be warm-up (expected 0,
 * actual NaN); from `first` on, the actual value must round to the expected one at `dp` decimals.
 * Returns a list of mismatch descriptions (empty when all match) and the number of compared rows.
 */
export function compareSeries(actual: ArrayLike<number>, expected: ArrayLike<number>, first: number, dp = 2): { mismatches: string[]; compared: number } {
  const tol = 0.5 * 10 ** -dp + 1e-9;
  const mismatches: string[] = [];
  let compared = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i]!;
    const e = expected[i]!;
    if (i < first) {
      if (e !== 0 || !Number.isNaN(a)) mismatches.push(`row ${i}: warm-up expected 0/NaN, got ${e}/${a}`);
      continue;
    }
    compared++;
    if (!(Math.abs(a - e) <= tol)) mismatches.push(`row ${i}: expected ${e}, got ${a}`);
  }
  return { mismatches, compared };
}
