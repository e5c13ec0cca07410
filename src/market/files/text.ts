/** Read a file as bytes or UTF-8 text, gunzipping it when it starts with the gzip magic bytes (any extension). */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { CandleFileError } from './errors.js';

export function isGzip(buf: Uint8Array): boolean {
  return buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;
}

/** The file's first `max` bytes (fewer when it is shorter), as they are (not gunzipped). */
export function readHead(file: string, max = 1 << 16): Buffer {
  try {
    const fd = openSync(file, 'r');
    try {
      const b = Buffer.allocUnsafe(max);
      let n = 0;
      for (let r = 1; n < max && r > 0; n += r) r = readSync(fd, b, n, max - n, null);
      return b.subarray(0, n);
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    throw new CandleFileError({ file }, `cannot read the file: ${(err as Error).message}`, { cause: err });
  }
}

/** The file's bytes, gunzipped when they start with the gzip magic bytes. */
export function readBytesMaybeGzip(file: string): Buffer {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (err) {
    throw new CandleFileError({ file }, `cannot read the file: ${(err as Error).message}`, { cause: err });
  }
  if (!isGzip(buf)) return buf;
  try {
    return gunzipSync(buf);
  } catch (err) {
    throw new CandleFileError({ file }, `corrupt gzip data: ${(err as Error).message}`, { cause: err });
  }
}

export function readTextMaybeGzip(file: string): string {
  return readBytesMaybeGzip(file).toString('utf8');
}
