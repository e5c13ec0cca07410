/**
 * The candle length of a file and the check that its times keep to it. The length is the one its
 * meta file declares, else the smallest step between consecutive candle starts (a file may skip
 * candles: freqtrade omits bars without trades). Every step must then be a whole number of candles;
 * one that is not (a timestamp shifted by 17 s in a 5-minute file) is refused naming its line and
 * both times, instead of taking the odd step for the candle length.
 */
import { CandleFileError } from './errors.js';
import { readTextMaybeGzip } from './text.js';

/** Steps looked at to find the candle length (the whole file is checked against it). */
const SAMPLE = 5000;

const iso = (sec: number) => new Date(sec * 1000).toISOString().replace('.000Z', 'Z');

/**
 * The candle length of `file` (seconds): `declared` when given, else the smallest positive step of
 * the first candles. Throws a CandleFileError naming the line (or JSON row) of the first candle whose
 * step from the one before is not a whole number of candles.
 */
export function candleLength(file: string, time: ArrayLike<number>, declared?: number): number {
  let res = declared;
  if (!res) {
    let best = Infinity;
    for (let i = 1; i < time.length && i <= SAMPLE; i++) {
      const dt = time[i]! - time[i - 1]!;
      if (dt > 0 && dt < best) best = dt;
    }
    if (!Number.isFinite(best)) throw new CandleFileError({ file }, 'cannot infer the candle length from fewer than 2 candles');
    res = best;
  }
  const bad = firstOffGrid(time, res);
  if (bad < 0) return res;
  // The candle length the file keeps to elsewhere: the most common step (the odd step may be the smallest).
  const usual = declared ?? mostCommonStep(time);
  let at = firstOffGrid(time, usual);
  let step = usual;
  if (at < 0) {
    at = bad;
    step = res;
  }
  const t = time[at]!;
  const prev = time[at - 1]!;
  const lines = csvLines(file);
  const where = (row: number) => (lines?.[row] !== undefined ? { file, line: lines[row] } : { file, row });
  const before = lines?.[at - 1] !== undefined ? ` (line ${lines[at - 1]})` : ` (row ${at - 1})`;
  throw new CandleFileError(
    where(at),
    `time ${iso(t)} (${t}) is ${t - prev}s after the candle before it, ${iso(prev)} (${prev})${before}: ` +
      `the candles are ${step}s long${declared ? ' (its meta file)' : ''}, and the step between two candles must be a whole number of candles (a shifted or irregular timestamp)`,
  );
}

function firstOffGrid(time: ArrayLike<number>, res: number): number {
  for (let i = 1; i < time.length; i++) if ((time[i]! - time[i - 1]!) % res !== 0) return i;
  return -1;
}

function mostCommonStep(time: ArrayLike<number>): number {
  const counts = new Map<number, number>();
  let best = 0;
  let bestN = 0;
  for (let i = 1; i < time.length && i <= SAMPLE; i++) {
    const dt = time[i]! - time[i - 1]!;
    const n = (counts.get(dt) ?? 0) + 1;
    counts.set(dt, n);
    if (n > bestN) {
      best = dt;
      bestN = n;
    }
  }
  return best;
}

/** The line of each candle in a CSV file (header and blank lines skipped); undefined for a JSON file. */
function csvLines(file: string): number[] | undefined {
  let text: string;
  try {
    text = readTextMaybeGzip(file);
  } catch {
    return undefined;
  }
  const first = text.replace(/^[\s\ufeff]+/, '')[0];
  if (first === '[' || first === '{') return undefined;
  const lines: number[] = [];
  let header = false;
  let lineNo = 0;
  for (let pos = 0; pos < text.length;) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = text.length;
    lineNo++;
    if (text.slice(pos, end).trim().length > 0) {
      if (header) lines.push(lineNo);
      else header = true;
    }
    pos = end + 1;
  }
  return lines;
}
