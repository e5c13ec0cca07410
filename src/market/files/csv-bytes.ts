/**
 * Fastest path of the columnar CSV reader: scans the file's bytes (UTF-8, gunzipped if need be)
 * without decoding them to a string and without a string per row or field. A plain decimal field
 * (`-12.345`, at most 15 significant digits and 22 decimals) is read as mantissa / 10^k: both exact
 * doubles, and one IEEE division is correctly rounded, so the result equals Number(field) (Clinger's
 * fast path), exactly as csv-fast.ts does on a string. A line with any other field (ISO date,
 * exponent, quotes, spaces, a long mantissa) is decoded alone and goes through the same per-line
 * fallback as csv-fast.ts; an odd shape (split date/time rows, a blank first line, a separate clock
 * column) makes the caller use the general parser, which also produces its errors. Every row still
 * gets the sink's checks (increasing times, positive prices, bar shape, volume >= 0), written out in
 * the scan: a row that passes them goes straight into the sink's Float64Arrays (no call per row); one
 * that fails goes to the sink, which names the problem.
 * A plain file is read in blocks (csv-blocks.ts) and each block's whole lines scanned here.
 * 1M rows (55 MB): ~260 ms in blocks, ~470 ms with the file read whole, on the same (slow) day of the
 * bench machine; ~420 ms before that with a call into the sink per row and a first pass counting the
 * lines (readCsv1M in bench/e2e.ts).
 */
import { csvLayout, type CsvLayout } from './csv.js';
import { CandleFileError } from './errors.js';
import type { NumericRowSink } from './csv-fast.js';
import type { CandleColumns } from './columns.js';
import { epochToSeconds } from './time.js';

const POW10: number[] = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** Digits in b[from, to) (digits and at most one point) from the first non-zero one. */
function significantDigits(b: Uint8Array, from: number, to: number): number {
  let i = from;
  while (i < to && (b[i] === 48 || b[i] === 46)) i++;
  let d = 0;
  for (; i < to; i++) if (b[i] !== 46) d++;
  return d;
}

/**
 * What the byte scanner writes into: the sink's columns, filled in place (no call per row). The
 * scanner keeps the row count and the last time in locals and hands them back with sync() before
 * anything else touches the sink (a line it cannot read, a row that fails a check, the end).
 */
export interface ColumnWriter extends NumericRowSink {
  /** The columns being filled; `length` is the rows accepted so far. */
  readonly columns: CandleColumns;
  /** The time of the last row accepted (-Infinity before the first). */
  readonly last: number;
  /** Rows written directly: the new row count and last time. */
  sync(length: number, last: number): void;
  /** Room for at least `rows` more rows (may replace the arrays). */
  reserve(rows: number): CandleColumns;
}

/** Bytes per call of the inner scan: many short calls get the scan optimised as a whole early (one long call runs cold until on-stack replacement). */
const CHUNK_BYTES = 1 << 16;

/** Where the header line ends (its newline, or the end), or undefined when the general parser must read the file. */
export function readHeader(file: string, b: Uint8Array, buf: Buffer, base?: string): { layout: CsvLayout; pos: number } | undefined {
  const n = b.length;
  const pos = n >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
  let end = buf.indexOf(10, pos);
  if (end < 0) end = n;
  const headerLine = buf.toString('utf8', pos, end).replace(/\r$/, '');
  if (headerLine.trim().length === 0) return undefined; // leading blank lines: the general parser skips them
  const layout = csvLayout(file, headerLine, base);
  if (layout.clock >= 0) return undefined;
  return { layout, pos: end + 1 };
}

/**
 * Scan the whole lines of `b` from `pos` (a window of the file ending at a line's end, or at the
 * file's end). Returns where the next line starts, or -1 when a line needs the general parser.
 */
export function scanWindow(scan: ByteScan, pos: number, n: number, warm: { chunk: number }): number {
  // The first calls are short: the scan then returns (and its end gets type feedback) before it is
  // optimised; otherwise the optimised code, made while the first call was still looping, leaves it at
  // every return.
  while (pos < n) {
    const stop = Math.min(n, pos + warm.chunk);
    warm.chunk = Math.min(CHUNK_BYTES, warm.chunk * 2);
    if (scan.room() < scan.linesIn(pos, stop)) scan.grow(pos);
    pos = scan.chunk(pos, stop);
    if (pos < 0) return -1;
  }
  return pos;
}

/**
 * Parse CSV bytes into the sink's columns. Returns false when the layout needs the general parser.
 * The columns are sized from the first lines' average length (no pass to count the lines first).
 */
export function scanCsvBytes(file: string, b: Uint8Array, sink: ColumnWriter, base?: string): boolean {
  const n = b.length;
  if (n === 0) throw new CandleFileError({ file }, 'the file is empty (no header line)');
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const head = readHeader(file, b, buf, base);
  if (!head) return false;
  const scan = new ByteScan(head.layout, sink, n);
  scan.window(b, 0);
  scan.lineNo = 1;
  scan.size(head.pos);
  return scanWindow(scan, head.pos, n, { chunk: 256 }) >= 0;
}

/** The scan's state across calls (and across the blocks of a file read in blocks, csv-blocks.ts). */
export class ByteScan {
  lineNo = 0;
  private readonly vals: Float64Array;
  private cols!: CandleColumns;
  private len = 0;
  private last = -Infinity;
  /** The window of the file being scanned (positions in chunk() are in it) and its offset in the file. */
  private b: Uint8Array = new Uint8Array(0);
  private buf: Buffer = Buffer.alloc(0);
  private base = 0;

  constructor(
    private readonly layout: CsvLayout,
    private readonly sink: ColumnWriter,
    /** The file's size in bytes (for sizing the columns). */
    private readonly total: number,
  ) {
    this.vals = new Float64Array(layout.width);
  }

  /** Scan `b` next: bytes of the file from `base` on, ending at a line's end or at the file's end. */
  window(b: Uint8Array, base: number): void {
    this.b = b;
    this.buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    this.base = base;
  }

  /** Size the columns from the first lines of the window from `from` on: the bytes left over their average length, and 1 % more. */
  size(from: number): void {
    const buf = this.buf;
    let lines = 0;
    let at = from - 1;
    let next: number;
    while (lines < 1000 && (next = buf.indexOf(10, at + 1)) >= 0) {
      at = next;
      lines++;
    }
    const left = this.total - this.base - from;
    const rows = lines > 0 ? Math.ceil((left / Math.max(1, at + 1 - from)) * lines * 1.01) + 64 : 64;
    this.cols = this.sink.reserve(rows);
    this.len = this.cols.length;
    this.last = this.sink.last;
  }

  /** Rows that fit before the arrays are full. */
  room(): number {
    return this.cols.time.length - this.len;
  }

  /**
   * Lines that the bytes [pos, stop) may hold, from the average line so far with half as much again
   * to spare (a chunk that holds more grows the arrays when they are full). Asked before each chunk:
   * a fixed margin (a line every 8 bytes) made the last chunks of most files copy the arrays anew.
   */
  linesIn(pos: number, stop: number): number {
    const perLine = (this.base + pos) / Math.max(1, this.lineNo);
    return Math.ceil(((stop - pos) / Math.max(1, perLine)) * 1.5) + 16;
  }

  /** More room, from the bytes left at `pos` (in the window) and the average line so far. */
  grow(pos: number): void {
    const at = this.base + pos;
    const perLine = at / Math.max(1, this.lineNo);
    const rows = Math.ceil(((this.total - at) / Math.max(1, perLine)) * 1.05) + CHUNK_BYTES / 8;
    this.sink.sync(this.len, this.last);
    this.cols = this.sink.reserve(rows);
  }

  /**
   * Scan the lines starting in [pos, stop) (the last may run past stop). Returns where the next line
   * starts, or -1 when a line has an odd shape (the caller uses the general parser).
   */
  chunk(pos: number, stop: number): number {
    const b = this.b;
    const n = b.length;
    const width = this.layout.width;
    const tCol = this.layout.time;
    const oCol = this.layout.open;
    const hCol = this.layout.high;
    const lCol = this.layout.low;
    const cCol = this.layout.close;
    const vCol = this.layout.volume;
    const vals = this.vals;
    let cols = this.cols;
    let T = cols.time;
    let O = cols.open;
    let H = cols.high;
    let L = cols.low;
    let C = cols.close;
    let V = cols.volume;
    let len = this.len;
    let last = this.last;
    let lineNo = this.lineNo;
    while (pos < stop) {
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
        // Every digit into one float: exact while there are at most 15 significant digits (< 2^53).
        const k = i;
        let m = 0;
        let ch = 0;
        while (i < n && (ch = b[i]!) >= 48 && ch <= 57) {
          m = m * 10 + (ch - 48);
          i++;
        }
        let nd = i - k;
        let frac = -1;
        if (i < n && b[i] === 46) {
          i++;
          const fs = i;
          while (i < n && (ch = b[i]!) >= 48 && ch <= 57) {
            m = m * 10 + (ch - 48);
            i++;
          }
          frac = i - fs;
          nd += frac;
        }
        // The field ends at a comma or the line's end; anything else makes it NaN (skipped to its end).
        // Kept as branches (no flag carried along): this shape is what keeps the loop fast.
        ch = i < n ? b[i]! : 10;
        // A plain decimal: at most 15 significant digits and 22 decimals (written out here: as a call,
        // it is not inlined and costs a fifth of the scan).
        let x = NaN;
        if (ch === 44 || ch === 10) {
          if (nd !== 0 && (nd <= 15 || (frac <= 22 && significantDigits(b, k, i) <= 15))) x = frac > 0 ? m / POW10[frac]! : m;
        } else if (ch === 13 && (i + 1 >= n || b[i + 1] === 10)) {
          ch = 10; // a CR ending the line is no part of it
          if (nd !== 0 && (nd <= 15 || (frac <= 22 && significantDigits(b, k, i) <= 15))) x = frac > 0 ? m / POW10[frac]! : m;
        } else {
          while (i < n && (ch = b[i]!) !== 44 && ch !== 10) i++;
          if (i >= n) ch = 10;
        }
        if (f < width) vals[f] = neg ? -x : x;
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
        const tr = vals[tCol]!;
        const o = vals[oCol]!;
        const h = vals[hCol]!;
        const l = vals[lCol]!;
        const c = vals[cCol]!;
        const v = vCol < 0 ? 0 : vals[vCol]!;
        const t = epochToSeconds(tr);
        // The sink's checks (sink.ts), inline: increasing times, positive prices, the bar's shape, volume >= 0.
        if (t > last && o > 0 && h > 0 && l > 0 && c > 0 && l <= h && o <= h && c <= h && o >= l && c >= l && v >= 0) {
          if (len === T.length) {
            this.sync(len, last, lineNo);
            this.grow(pos);
            cols = this.cols;
            T = cols.time;
            O = cols.open;
            H = cols.high;
            L = cols.low;
            C = cols.close;
            V = cols.volume;
          }
          T[len] = t;
          O[len] = o;
          H[len] = h;
          L[len] = l;
          C[len] = c;
          V[len] = v;
          len++;
          last = t;
          continue;
        }
        if (tr === tr && o === o && h === h && l === l && c === c && v === v) {
          // Numbers that fail a check: the sink names the problem (it throws).
          this.sync(len, last, lineNo);
          this.sink.rowNumbers(lineNo, tr, o, h, l, c, v);
          this.reload();
          ({ cols, len, last } = this);
          T = cols.time;
          O = cols.open;
          H = cols.high;
          L = cols.low;
          C = cols.close;
          V = cols.volume;
          continue;
        }
      }
      this.sync(len, last, lineNo);
      if (!slowLine(this.buf.toString('utf8', lineStart, lineEnd), lineNo, this.layout, this.sink)) return -1;
      this.reload();
      ({ cols, len, last } = this);
      T = cols.time;
      O = cols.open;
      H = cols.high;
      L = cols.low;
      C = cols.close;
      V = cols.volume;
    }
    this.sync(len, last, lineNo);
    return pos;
  }

  private sync(len: number, last: number, lineNo: number): void {
    this.len = len;
    this.last = last;
    this.lineNo = lineNo;
    this.sink.sync(len, last);
  }

  /** After the sink added a row itself: its arrays (perhaps grown), row count and last time. */
  private reload(): void {
    this.cols = this.sink.columns;
    this.len = this.cols.length;
    this.last = this.sink.last;
  }
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
