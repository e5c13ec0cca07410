/** Read a file as bytes or UTF-8 text, gunzipping it when it starts with the gzip magic bytes (any extension). */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { CandleFileError } from './errors.js';

export function isGzip(buf: Uint8Array): boolean {
  return buf.length >= 2 && buf[0] === 0x1f && buf[1] === 0x8b;
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
