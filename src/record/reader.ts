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

/** Decompressed bytes per block read (zlib's default is 16 KiB: four times the awaits). */
const BLOCK = 64 * 1024;

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

/** A decompressed block's lines of one chunk, not parsed yet (`first`: the 1-based number of `lines[0]`). */
interface Block {
  file: string;
  first: number;
  lines: string[];
}

/**
 * The lines of one chunk, streamed, a decompressed block's worth at a time (one await per block, not
 * per line), unparsed: a line is parsed when it is read, so a bad line past what the reader wants
 * (`to`) is never met. A gzip member cut short (a recorder killed while appending) ends the chunk:
 * the complete lines before it are yielded, the partial tail is dropped.
 */
async function* readChunk(file: string): AsyncGenerator<Block> {
  const gunzip = createGunzip({ chunkSize: BLOCK });
  const input = createReadStream(file);
  input.on('error', (err) => gunzip.destroy(err));
  input.pipe(gunzip);
  let rest = '';
  let next = 1;
  try {
    for await (const buf of gunzip as AsyncIterable<Buffer>) {
      const lines = (rest + buf.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      if (lines.length === 0) continue;
      yield { file, first: next, lines };
      next += lines.length;
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'Z_BUF_ERROR' && code !== 'Z_DATA_ERROR') throw err;
    return; // truncated last member: drop the partial line
  } finally {
    input.destroy();
  }
  if (rest.length > 0) yield { file, first: next, lines: [rest] };
}

/** All blocks of one market, across its chunks in time order. */
async function* readMarket(dir: string, market: string): AsyncGenerator<Block> {
  for (const file of await marketChunks(dir, market)) yield* readChunk(file);
}

/** The last line of a market's newest chunk (undefined when the market has none yet). */
export async function lastLine(dir: string, market: string): Promise<RecordedLine | undefined> {
  const chunks = await marketChunks(dir, market).catch(() => [] as string[]);
  for (let i = chunks.length - 1; i >= 0; i--) {
    let last: { line: string; where: string } | undefined;
    for await (const b of readChunk(chunks[i]!)) {
      for (let k = b.lines.length - 1; k >= 0; k--) {
        if (b.lines[k]!.length === 0) continue;
        last = { line: b.lines[k]!, where: `${b.file}:${b.first + k}` };
        break;
      }
    }
    if (last) return parseLine(last.line, last.where);
  }
  return undefined;
}

/** A market's events in range, one at a time, read a block at a time and parsed as they are reached. */
class MarketCursor {
  private block: Block | undefined;
  private i = 0;
  private done = false;

  constructor(
    private readonly market: string,
    private readonly it: AsyncGenerator<Block>,
    private readonly from: number,
    private readonly to: number,
  ) {}

  /** The next event in range (undefined at the end); per market, `t` never decreases. */
  async next(): Promise<RecordedEvent | undefined> {
    for (;;) {
      const b = this.block;
      if (b) {
        while (this.i < b.lines.length) {
          const k = this.i++;
          const line = b.lines[k]!;
          if (line.length === 0) continue;
          const ev = parseLine(line, `${b.file}:${b.first + k}`) as RecordedEvent;
          if (ev.t < this.from) continue;
          if (ev.t >= this.to) return this.end();
          ev.market = this.market;
          return ev;
        }
      }
      if (this.done) return undefined;
      const r = await this.it.next();
      if (r.done) return this.end();
      this.block = r.value;
      this.i = 0;
    }
  }

  private end(): undefined {
    this.done = true;
    this.block = undefined;
    return undefined;
  }

  async close(): Promise<void> {
    await this.it.return(undefined);
  }
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
  const cursors = markets.map((m) => new MarketCursor(m, readMarket(dir, m), from, to));
  const heads: (RecordedEvent | undefined)[] = [];
  try {
    for (const c of cursors) heads.push(await c.next());
    for (;;) {
      let best = -1;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i];
        if (h && (best < 0 || h.t < heads[best]!.t)) best = i;
      }
      if (best < 0) return;
      yield heads[best]!;
      heads[best] = await cursors[best]!.next();
    }
  } finally {
    for (const c of cursors) await c.close();
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
