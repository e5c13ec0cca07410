/**
 * Fastest path of the columnar CSV reader: scans the file's bytes (UTF-8, gunzipped if need be)
 * without decoding them to a string and without a string per row or field. A plain decimal field
 * (`-12.345`, at most 15 significant digits and 22 decimals) is read as mantissa / 10^k: both exact
 * doubles, and one IEEE division is correctly rounded, so the result equals Number(field) (Clinger's
 * fast path), exactly as csv-fast.ts does on a string. A line with any other field (ISO date,
 * exponent, quotes, spaces, a long mantissa) is decoded alone and goes through the same per-line
 * fallback as csv-fast.ts; an odd shape (split date/time rows, a blank first line, a separate clock
 * column) makes the caller use the general parser, which also produces its errors. Every row still
 * goes through the sink's checks (increasing times, positive prices, bar shape, volume >= 0).
 */
import { csvLayout, type CsvLayout } from './csv.js';
import { CandleFileError } from './errors.js';
import type { NumericRowSink } from './csv-fast.js';

const POW10: number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

function fieldValue(m: number, frac: number, neg: boolean): number {
  const v = frac > 0 ? m / POW10[frac]! : m;
  return neg ? -v : v;
}

/** Number of data lines at most (newlines + 1): the capacity to allocate once. */
export function countLines(b: Uint8Array): number {
  let n = 1;
  let i = -1;
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  while ((i = buf.indexOf(10, i + 1)) >= 0) n++;
  return n;
}

/** Parse CSV bytes into a sink taking numbers. Returns false when the layout needs the general parser. */
export function scanCsvBytes(file: string, b: Uint8Array, sink: NumericRowSink): boolean {
  const n = b.length;
  if (n === 0) throw new CandleFileError({ file }, 'the file is empty (no header line)');
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let pos = n >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  let lineNo = 0;
  let end = buf.indexOf(10, pos);
  if (end < 0) end = n;
  lineNo++;
  const headerLine = buf.toString('utf8', pos, end).replace(/\r$/, '');
  if (headerLine.trim().length === 0) return false; // leading blank lines: the general parser skips them
  const layout = csvLayout(file, headerLine);
  if (layout.clock >= 0) return false;
  pos = end + 1;
  const width = layout.width;
  const tCol = layout.time;
  const oCol = layout.open;
  const hCol = layout.high;
  const lCol = layout.low;
  const cCol = layout.close;
  const vCol = layout.volume;
  const vals = new Float64Array(width);
  while (pos < n) {
    // One pass over the line's bytes, field by field: a tight loop over the digits before and after
    // the point reads the number as its bytes go by; a field that is not a plain decimal becomes NaN
    // (and the loop skips to its end).
    const lineStart = pos;
    let f = 0;
    let i = pos;
    for (;;) {
      let neg = false;
      if (i < n && b[i] === 45) {
        neg = true;
        i++;
      }
      let mi = 0; // the first 9 digits as an int32 (a short dependency chain), then a float
      let m = 0;
      let nd = 0;
      let digits = 0;
      let frac = -1;
      let ch = 0;
      while (i < n && (ch = b[i]!) >= 48 && ch <= 57) {
        if (nd < 9) mi = mi * 10 + (ch - 48);
        else m = (nd === 9 ? mi : m) * 10 + (ch - 48);
        nd++;
        if (nd > 9 ? m !== 0 : mi !== 0) digits++;
        i++;
      }
      if (i < n && b[i] === 46) {
        frac = 0;
        i++;
        while (i < n && (ch = b[i]!) >= 48 && ch <= 57) {
          if (nd < 9) mi = mi * 10 + (ch - 48);
          else m = (nd === 9 ? mi : m) * 10 + (ch - 48);
          nd++;
          if (nd > 9 ? m !== 0 : mi !== 0) digits++;
          frac++;
          i++;
        }
      }
      let bad = nd === 0 || digits > 15 || frac > 22;
      ch = i < n ? b[i]! : 10;
      if (ch === 13 && (i + 1 >= n || b[i + 1] === 10)) ch = 10; // a CR ending the line is no part of it
      if (ch !== 44 && ch !== 10) {
        bad = true;
        while (i < n && (ch = b[i]!) !== 44 && ch !== 10) i++;
        if (i >= n) ch = 10;
      }
      if (f < width) vals[f] = bad ? NaN : fieldValue(nd <= 9 ? mi : m, frac, neg);
      f++;
      if (ch === 10) break;
      i++; // past the comma
    }
    if (i < n && b[i] === 13) i++; // at a CR ending the line: the newline is next
    lineNo++;
    pos = i + 1;
    let lineEnd = i;
    if (lineEnd > lineStart && b[lineEnd - 1] === 13) lineEnd--;
    if (lineEnd === lineStart) continue;
    if (f === width) {
      const t = vals[tCol]!;
      const o = vals[oCol]!;
      const h = vals[hCol]!;
      const l = vals[lCol]!;
      const c = vals[cCol]!;
      const v = vCol < 0 ? 0 : vals[vCol]!;
      if (t === t && o === o && h === h && l === l && c === c && v === v) {
        sink.rowNumbers(lineNo, t, o, h, l, c, v);
        continue;
      }
    }
    if (!slowLine(buf.toString('utf8', lineStart, lineEnd), lineNo, layout, sink)) return false;
  }
  return true;
}

/** A line the byte path cannot read: decoded and split (as csv-fast.ts does); false for an odd shape. */
function slowLine(line: string, lineNo: number, layout: CsvLayout, sink: NumericRowSink): boolean {
  if (line.trim().length === 0) return true;
  const fields = line.split(',');
  if (fields.length !== layout.width) return false; // odd shapes (split date/time rows): general parser
  const get = (col: number): string => (col < 0 ? '0' : fields[col]!.trim().replace(/^"(.*)"$/, '$1'));
  sink.row(lineNo, get(layout.time), get(layout.open), get(layout.high), get(layout.low), get(layout.close), get(layout.volume));
  return true;
}
