/**
 * Reading a plain (not gzipped) CSV file for the byte scanner (csv-bytes.ts) in blocks into one reused
 * buffer, never whole: memory the size of the file costs more to fault in than to read (a fresh 55 MB
 * buffer took 160 ms to fill on the bench machine, the same bytes through a reused 1 MB block 12 ms).
 * Only whole lines are scanned; the part of a line at a block's end moves to the front of the buffer
 * for the next read.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ByteScan, readHeader, scanWindow, type ColumnWriter } from './csv-bytes.js';
import { CandleFileError } from './errors.js';

/** Bytes read from a file at a time (`scanCsvFile`), into one buffer reused for the whole file. */
export const BLOCK_BYTES = 1 << 20;

/**
 * `scanCsvBytes` on a plain (not gzipped) file, read in blocks of `blockBytes` into one reused buffer
 * instead of whole. Each block's whole lines are scanned; a line cut by the block's end moves to the
 * front of the buffer, the next read goes after it, and a line longer than the buffer doubles it.
 * Returns false when the layout needs the general parser (the caller then reads the file whole).
 * `baseAsset`: the market's base asset, for a `Volume <BASE>` column (csv.ts).
 */
export function scanCsvFile(file: string, sink: ColumnWriter, blockBytes = BLOCK_BYTES, baseAsset?: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new CandleFileError({ file }, `cannot read the file: ${(err as Error).message}`, { cause: err });
  }
  try {
    const total = fstatSync(fd).size;
    if (total === 0) throw new CandleFileError({ file }, 'the file is empty (no header line)');
    // One byte more than a small file: its first read then meets the end of the file.
    let blk = Buffer.allocUnsafe(Math.max(2, Math.min(blockBytes, total + 1)));
    let filled = 0;
    let eof = false;
    const fill = () => {
      while (filled < blk.length && !eof) {
        const r = readSync(fd, blk, filled, blk.length - filled, null);
        if (r === 0) eof = true;
        else filled += r;
      }
    };
    /** A buffer twice the size holding the bytes read so far: a line longer than the buffer. */
    const widen = () => {
      const wider = Buffer.allocUnsafe(blk.length * 2);
      blk.copy(wider, 0, 0, filled);
      blk = wider;
    };
    fill();
    // The header line whole.
    while (!eof && blk.subarray(0, filled).indexOf(10) < 0) {
      widen();
      fill();
    }
    const first = blk.subarray(0, filled);
    const head = readHeader(file, first, first, baseAsset);
    if (!head) return false;
    const scan = new ByteScan(head.layout, sink, total);
    scan.lineNo = 1;
    const warm = { chunk: 256 };
    let pos = head.pos;
    let base = 0;
    let sized = false;
    for (;;) {
      // The window: the whole lines read so far (all of it at the end of the file).
      const data = blk.subarray(0, filled);
      const stop = eof ? filled : data.lastIndexOf(10) + 1;
      if (stop <= pos && !eof) {
        widen();
        fill();
        continue;
      }
      scan.window(data.subarray(0, stop), base);
      if (!sized) {
        scan.size(pos);
        sized = true;
      }
      if (scanWindow(scan, pos, stop, warm) < 0) return false;
      if (eof) return true;
      // The cut line to the front; read after it.
      blk.copyWithin(0, stop, filled);
      filled -= stop;
      base += stop;
      pos = 0;
      fill();
    }
  } finally {
    closeSync(fd);
  }
}
