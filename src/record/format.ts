/**
 * The recording format of `mizan record` (read back by `./reader.ts`).
 *
 * A recording is a directory:
 *
 *   <dir>/gaps.jsonl                      the gap index: one JSON `GapRecord` a line
 *   <dir>/<SYMBOL>/<YYYY-MM-DDTHH>.jsonl.gz   one chunk per market and UTC hour (of the receive time)
 *
 * A chunk is gzip (node:zlib) written as concatenated gzip members: the recorder compresses what it
 * buffered (at most about a second) into one member and appends it, so a restart appends to the
 * hour's chunk and never rewrites it; `gunzip` reads a file of several members whole. A member cut
 * by a killed recorder is the only damage possible, and the reader drops that partial tail.
 *
 * Each decompressed line is one JSON `RecordedLine`:
 *
 *   {"t":<receive ms>,"k":"depth"|"snapshot"|"trade"|"stats"|"gap"|"open"|"close","src":"ws"|"socketio"|"rest","d":<payload>}
 *
 * `d` is the payload exactly as received (the frame's parsed JSON for `ws`/`socketio`, the REST
 * response body for `snapshot`), kept under one key so no payload field can collide with `t`/`k`/`src`.
 * `depth` lines carry a `side` ("buy" | "sell") as well. `open` and `close` bracket a recorder
 * session; `gap` lines (no `d`, but `start`, `end`, `cause`) mark a stretch where events may be
 * missing, and are also listed in `gaps.jsonl`. A chunk whose last event is not `close` was left by a
 * killed recorder: the next session detects it on reopen and writes a `killed` gap from that last
 * event to its own start; after a `close` it writes a `stopped` gap from the close. Within a market, lines are in receive order (non-decreasing `t`).
 */

const RECORD_KINDS = ['depth', 'snapshot', 'trade', 'stats', 'gap', 'open', 'close'] as const;
type RecordKind = (typeof RECORD_KINDS)[number];

const RECORD_SOURCES = ['ws', 'socketio', 'rest'] as const;
export type RecordSource = (typeof RECORD_SOURCES)[number];

/**
 * Why events may be missing between `start` and `end`. A rotation is no cause: the stream client
 * replaces a connection make-before-break, so it loses no frame and leaves no gap.
 */
export type GapCause = 'reconnect' | 'killed' | 'stopped';

/** One line of a chunk file. */
export interface RecordedLine {
  /** Receive time, epoch milliseconds. */
  t: number;
  k: RecordKind;
  src: RecordSource;
  /** The payload as received (absent on `open`, `close`, `gap`). */
  d?: unknown;
  /** Book side of a `depth` frame. */
  side?: 'buy' | 'sell';
  /** `gap` lines only. */
  start?: number;
  end?: number;
  cause?: GapCause;
}

/** A line as the reader yields it: with the market it belongs to. */
export interface RecordedEvent extends RecordedLine {
  market: string;
}

/** One line of `gaps.jsonl`. */
export interface GapRecord {
  market: string;
  start: number;
  end: number;
  cause: GapCause;
}

export const GAPS_FILE = 'gaps.jsonl';
const CHUNK_SUFFIX = '.jsonl.gz';

/** The chunk name (without directory) for a receive time: `YYYY-MM-DDTHH.jsonl.gz` in UTC. */
export function chunkName(t: number): string {
  return `${new Date(t).toISOString().slice(0, 13)}${CHUNK_SUFFIX}`;
}

const CHUNK_RE = /^\d{4}-\d{2}-\d{2}T\d{2}\.jsonl\.gz$/;

export function isChunkName(name: string): boolean {
  return CHUNK_RE.test(name);
}

/** A market directory name must be a plain symbol (no path separators, no dots at the start). */
export function checkMarketName(market: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(market)) {
    throw new Error(`record: market "${market}" is not a plain symbol (letters, digits, _ and -)`);
  }
  return market;
}

/** Parses one decompressed line; throws naming the file and line number when it is not a RecordedLine. */
export function parseLine(text: string, where: string): RecordedLine {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new Error(`${where}: not JSON: ${text.slice(0, 80)}`);
  }
  const o = v as Partial<RecordedLine> | null;
  if (!o || typeof o !== 'object' || typeof o.t !== 'number' || !Number.isFinite(o.t)) {
    throw new Error(`${where}: field "t" must be a number, got ${JSON.stringify(o?.t)}`);
  }
  if (!(RECORD_KINDS as readonly string[]).includes(o.k as string)) {
    throw new Error(`${where}: field "k" has unknown value ${JSON.stringify(o.k)}`);
  }
  if (!(RECORD_SOURCES as readonly string[]).includes(o.src as string)) {
    throw new Error(`${where}: field "src" has unknown value ${JSON.stringify(o.src)}`);
  }
  return o as RecordedLine;
}
