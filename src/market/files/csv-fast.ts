/**
 * Fast path of the columnar CSV reader: scans the text by char codes without splitting lines or
 * allocating field strings. A plain decimal field (`-12.345`, at most 15 significant digits and 22
 * decimals) is read as mantissa / 10^k: both exact doubles, and one IEEE division is correctly
 * rounded, so the result equals Number(field) (Clinger's fast path). Any other field (ISO date,
 * exponent, quotes, a long mantissa) sends that line through the general parser, which also
 * produces the errors.
 */
import { csvLayout } from './csv.js';
import { CandleFileError } from './errors.js';
import type { RawValue } from './sink.js';

export interface NumericRowSink {
  row(pos: number, t: RawValue, o: RawValue, h: RawValue, l: RawValue, c: RawValue, v: RawValue): void;
  rowNumbers(pos: number, t: number, o: number, h: number, l: number, c: number, v: number): void;
}

const POW10: number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** Parse a plain decimal in text[a, b), or NaN. */
function fastNumber(text: string, a: number, b: number): number {
  let i = a;
  let neg = false;
  if (i < b && text.charCodeAt(i) === 45) {
    neg = true;
    i++;
  }
  let m = 0;
  let digits = 0;
  let frac = -1;
  let seen = false;
  for (; i < b; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      seen = true;
      m = m * 10 + (c - 48);
      if (m !== 0) digits++;
      if (frac >= 0) frac++;
    } else if (c === 46 && frac < 0) frac = 0;
    else return NaN;
  }
  if (!seen || digits > 15 || frac > 22) return NaN;
  const v = frac > 0 ? m / POW10[frac]! : m;
  return neg ? -v : v;
}

/** Parse CSV text into a sink taking numbers. Returns false when the layout needs the general parser. */
export function scanCsvColumns(file: string, text: string, sink: NumericRowSink, base?: string): boolean {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let lineNo = 0;
  const n = text.length;
  // header
  let end = text.indexOf('\n', pos);
  if (end < 0) end = n;
  lineNo++;
  const layout = csvLayout(file, text.slice(pos, end).replace(/\r$/, ''), base);
  if (layout.clock >= 0) return false;
  pos = end + 1;
  const want = [layout.time, layout.open, layout.high, layout.low, layout.close, layout.volume];
  const width = layout.width;
  const starts = new Int32Array(width + 1);
  const ends = new Int32Array(width + 1);
  const vals = new Float64Array(6);
  while (pos < n) {
    end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    lineNo++;
    let lineEnd = end;
    if (lineEnd > pos && text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
    const lineStart = pos;
    pos = end + 1;
    if (lineEnd === lineStart) continue;
    let f = 0;
    let s = lineStart;
    for (let i = lineStart; i <= lineEnd && f <= width; i++) {
      if (i === lineEnd || text.charCodeAt(i) === 44) {
        starts[f] = s;
        ends[f] = i;
        f++;
        s = i + 1;
      }
    }
    let ok = f === width;
    for (let k = 0; ok && k < 6; k++) {
      const col = want[k]!;
      const v = col < 0 ? 0 : fastNumber(text, starts[col]!, ends[col]!);
      if (v !== v) ok = false;
      else vals[k] = v;
    }
    if (ok) {
      sink.rowNumbers(lineNo, vals[0]!, vals[1]!, vals[2]!, vals[3]!, vals[4]!, vals[5]!);
      continue;
    }
    const line = text.slice(lineStart, lineEnd);
    if (line.trim().length === 0) continue;
    const fields = line.split(',');
    if (fields.length !== width) return false; // odd shapes (split date/time rows): general parser
    const get = (col: number): string => (col < 0 ? '0' : fields[col]!.trim().replace(/^"(.*)"$/, '$1'));
    sink.row(lineNo, get(layout.time), get(layout.open), get(layout.high), get(layout.low), get(layout.close), get(layout.volume));
  }
  if (lineNo === 0) throw new CandleFileError({ file }, 'the file is empty (no header line)');
  return true;
}
