/**
 * Reading a recording (format in `./format.ts`): a streaming, async-iterable reader that yields the
 * events of one or several markets in receive-time order across their hour chunks, and the gap index.
 * Memory stays at one decompressed block per market whatever the recording's size.
 */
import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { GAPS_FILE, checkMarketName, isChunkName, parseLine, type GapRecord, type RecordedEvent, type RecordedLine } from './format.js';

export interface ReadOptions {
  /** Markets to read (default: every market directory of the recording). */
  markets?: readonly string[];
  /** Only events with `t >= from`. */
  from?: number;
  /** Only events with `t < to`. */
  to?: number;
}

/** The market directories of a recording, sorted. */
async function recordingMarkets(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const out: string[] = [];
  for (const e of entries) {
    if (!e.isDirectory()) continue;
    const files = await readdir(join(dir, e.name));
    if (files.some(isChunkName)) out.push(e.name);
  }
  return out.sort();
}

/** The chunk files of one market, oldest first (names sort by time). */
async function marketChunks(dir: string, market: string): Promise<string[]> {
  const mdir = join(dir, checkMarketName(market));
  let files: string[];
  try {
    files = await readdir(mdir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new Error(`recording ${dir}: no market "${market}" (no directory ${mdir})`);
    }
    throw err;
  }
  return files
    .filter(isChunkName)
    .sort()
    .map((f) => join(mdir, f));
}

/**
 * The lines of one chunk, streamed. A gzip member cut short (a recorder killed while appending) ends
 * the chunk: the complete lines before it are yielded, the partial tail is dropped.
 */
async function* readChunk(file: string): AsyncGenerator<RecordedLine> {
  const gunzip = createGunzip();
  const input = createReadStream(file);
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  let rest = '';
  let lineNo = 0;
  try {
    for await (const buf of gunzip as AsyncIterable<Buffer>) {
      const text = rest + buf.toString('utf8');
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        lineNo++;
        if (line.length > 0) yield parseLine(line, `${file}:${lineNo}`);
      }
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'Z_BUF_ERROR' && code !== 'Z_DATA_ERROR') throw err;
    return; // truncated last member: drop the partial line
  } finally {
    input.destroy();
  }
  if (rest.length > 0) yield parseLine(rest, `${file}:${lineNo + 1}`);
}

/** All lines of one market, across its chunks in time order. */
async function* readMarket(dir: string, market: string): AsyncGenerator<RecordedEvent> {
  for (const file of await marketChunks(dir, market)) {
    for await (const line of readChunk(file)) yield { ...line, market };
  }
}

/** The last line of a market's newest chunk (undefined when the market has none yet). */
export async function lastLine(dir: string, market: string): Promise<RecordedLine | undefined> {
  const chunks = await marketChunks(dir, market).catch(() => [] as string[]);
  for (let i = chunks.length - 1; i >= 0; i--) {
    let last: RecordedLine | undefined;
    for await (const line of readChunk(chunks[i]!)) last = line;
    if (last) return last;
  }
  return undefined;
}

/**
 * Events of the chosen markets merged in receive-time order (ties: markets in the order given,
 * then file order), as an async iterable: `for await (const ev of readRecording(dir)) ...`.
 */
export async function* readRecording(dir: string, opts: ReadOptions = {}): AsyncGenerator<RecordedEvent> {
  await stat(dir).catch(() => {
    throw new Error(`recording: directory "${dir}" does not exist`);
  });
  const markets = opts.markets ? [...opts.markets] : await recordingMarkets(dir);
  const from = opts.from ?? -Infinity;
  const to = opts.to ?? Infinity;
  const iters = markets.map((m) => readMarket(dir, m));
  const heads: (RecordedEvent | undefined)[] = [];
  try {
    for (const it of iters) heads.push(await nextInRange(it, from, to));
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h && (best < 0 || h.t < heads[best]!.t)) best = i;
      }
      if (best < 0) return;
      yield heads[best]!;
      heads[best] = await nextInRange(iters[best]!, from, to);
    }
  } finally {
    for (const it of iters) await it.return(undefined);
  }
}

async function nextInRange(it: AsyncGenerator<RecordedEvent>, from: number, to: number): Promise<RecordedEvent | undefined> {
  for (;;) {
    const r = await it.next();
    if (r.done) return undefined;
    if (r.value.t < from) continue;
    if (r.value.t >= to) return undefined; // per market, t never decreases
    return r.value;
  }
}

/** The gap index (`gaps.jsonl`), optionally of some markets only; empty when the file is absent. */
export async function readGaps(dir: string, markets?: readonly string[]): Promise<GapRecord[]> {
  let text: string;
  try {
    text = await readFile(join(dir, GAPS_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const out: GapRecord[] = [];
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    let g: GapRecord;
    try {
      g = JSON.parse(line) as GapRecord;
    } catch {
      if (i === text.split('\n').length - 1) return; // a partial last line from a killed recorder
      throw new Error(`${join(dir, GAPS_FILE)}:${i + 1}: not JSON: ${line.slice(0, 80)}`);
    }
    if (!markets || markets.includes(g.market)) out.push(g);
  });
  return out.sort((a, b) => a.start - b.start || a.market.localeCompare(b.market));
}
