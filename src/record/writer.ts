/**
 * Writing a recording (format in `./format.ts`). Lines are buffered per market and appended as one
 * gzip member per flush (`flush()`, called by the recorder about once a second, on an hour change and
 * on close), so nothing already on disk is ever rewritten. On open, a market whose newest chunk does
 * not end with `close` was left by a killed recorder: a `killed` gap is written from its last event
 * to now, inline and in `gaps.jsonl`; one that ends with `close` gets a `stopped` gap from its close.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { GAPS_FILE, checkMarketName, chunkName, type GapCause, type GapRecord, type RecordedLine } from './format.js';
import { lastLine } from './reader.js';

interface MarketBuffer {
  chunk: string;
  lines: string[];
}

export interface WriterStats {
  events: number;
  /** Compressed bytes appended to chunk files. */
  bytes: number;
}

export class RecordingWriter {
  private readonly buffers = new Map<string, MarketBuffer>();
  private readonly lastT = new Map<string, number>();
  readonly stats: WriterStats = { events: 0, bytes: 0 };
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly now: () => number,
  ) {}

  /** Opens (or reopens, appending) a recording; writes `open` per market, and `killed` gaps found. */
  static async open(dir: string, markets: readonly string[], now: () => number = Date.now): Promise<RecordingWriter> {
    mkdirSync(dir, { recursive: true });
    const w = new RecordingWriter(dir, now);
    for (const m of markets) {
      checkMarketName(m);
      mkdirSync(join(dir, m), { recursive: true });
      const last = await lastLine(dir, m);
      const t = now();
      if (last) w.lastT.set(m, last.t);
      // Nothing was recorded between the last session's end and now: a killed recorder's (no
      // `close`) or a stopped one's. A replay must not take the book as healthy across it.
      if (last) w.gap(m, last.t, t, last.k === 'close' ? 'stopped' : 'killed');
      w.write(m, { t, k: 'open', src: 'rest' });
    }
    w.flush();
    return w;
  }

  /** Buffers one line; its `t` is clamped so a market's lines never go back in time. */
  write(market: string, line: RecordedLine): void {
    if (this.closed) throw new Error('record: write after close');
    const prev = this.lastT.get(market) ?? -Infinity;
    const t = Math.max(line.t, prev);
    this.lastT.set(market, t);
    const chunk = chunkName(t);
    let buf = this.buffers.get(market);
    if (buf && buf.chunk !== chunk) {
      this.flushMarket(market, buf);
      buf = undefined;
    }
    if (!buf) {
      buf = { chunk, lines: [] };
      this.buffers.set(market, buf);
    }
    buf.lines.push(JSON.stringify(t === line.t ? line : { ...line, t }));
    this.stats.events++;
  }

  /** Records a gap inline (as a `gap` line at `end`) and in `gaps.jsonl`. */
  gap(market: string, start: number, end: number, cause: GapCause): void {
    const rec: GapRecord = { market, start, end, cause };
    appendFileSync(join(this.dir, GAPS_FILE), JSON.stringify(rec) + '\n');
    this.write(market, { t: end, k: 'gap', src: 'ws', start, end, cause });
  }

  /** Appends every market's buffered lines as one gzip member per chunk. */
  flush(): void {
    for (const [m, buf] of this.buffers) this.flushMarket(m, buf);
    this.buffers.clear();
  }

  /** Writes `close` for every market and flushes. */
  close(): void {
    if (this.closed) return;
    const t = this.now();
    for (const m of this.lastT.keys()) this.write(m, { t, k: 'close', src: 'rest' });
    this.flush();
    this.closed = true;
  }

  private flushMarket(market: string, buf: MarketBuffer): void {
    if (buf.lines.length === 0) return;
    const member = gzipSync(buf.lines.join('\n') + '\n');
    appendFileSync(join(this.dir, market, buf.chunk), member);
    this.stats.bytes += member.length;
    buf.lines = [];
  }
}
