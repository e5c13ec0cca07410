/**
 * Write a document given in pieces (result.json, report.html) to a file, each piece scrubbed of the
 * secrets, in writes of about 1 MiB: a 1M-candle backtest's files (29 MB and 18 MB) are never held
 * as one string and one buffer, which took ~80 MB of peak memory at the end of the run.
 * A piece is a whole value or a whole table row, so a secret inside one is never split across two.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { scrub } from '../core/scrub.js';

const CHUNK = 1 << 20;

export function writePieces(file: string, pieces: Iterable<string>, secrets: readonly string[]): void {
  const fd = openSync(file, 'w');
  try {
    let buf: string[] = [];
    let size = 0;
    const flush = (): void => {
      if (buf.length > 0) writeSync(fd, buf.join(''));
      buf = [];
      size = 0;
    };
    for (const piece of pieces) {
      const text = scrub(piece, secrets);
      buf.push(text);
      size += text.length;
      if (size >= CHUNK) flush();
    }
    flush();
  } finally {
    closeSync(fd);
  }
}
