/**
 * Where a book backtest's events come from (a `backtest.data` entry of kind `book`):
 *  - `format: mizan` (the default): a recording of `mizan record` (src/record/), its gap index;
 *  - `format: hftbacktest`: hftbacktest's L2 captures (the bundled `backtest/data/hftbacktest/spot`),
 *    every `.gz` file of the folder in name order as one stream. The book is rebuilt with Binance's
 *    sequencing by the simulator's own replay source (sim/replay/hft-source.ts); its first book is
 *    the REST snapshot, and after each applied diff the top 50 levels of both sides go out as the
 *    exchange's depth frames, the trades as trade frames, at the capture's exchange times. A capture
 *    has no gaps index (its sequence breaks are counted by the source).
 * Both are the same events (RecordedEvent, as the stream client would have received them) to the
 * replay, so the rest of the run is the same.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { GapRecord, RecordedEvent } from '../../record/format.js';
import { readGaps, readRecording } from '../../record/reader.js';
import { hftSource } from '../../sim/replay/hft-source.js';
import type { RawLevel, ReplayEvent } from '../../sim/replay/types.js';

export interface BookSource {
  /** What the data report says it replayed. */
  readonly description: string;
  /** The events of the run's markets before `to`, in receive-time order. */
  events(to: number): AsyncIterable<RecordedEvent>;
  gaps(): Promise<GapRecord[]>;
}

export type BookFormat = 'mizan' | 'hftbacktest';

export function bookSource(format: BookFormat, dir: string, markets: readonly string[]): BookSource {
  if (format === 'hftbacktest') return hftbacktestCapture(dir, markets);
  return {
    description: `recording ${dir}`,
    events: (to) => readRecording(dir, { markets, to }),
    gaps: () => readGaps(dir, markets),
  };
}

/** A depth side as the exchange's stream frame carries it. */
function frame(levels: readonly RawLevel[]): { price: string; quantity: string }[] {
  return levels.map(([price, quantity]) => ({ price, quantity }));
}

function hftbacktestCapture(dir: string, markets: readonly string[]): BookSource {
  if (markets.length !== 1) throw new Error(`backtest.data: an hftbacktest capture holds one market, got markets ${markets.join(', ')}`);
  const market = markets[0]!;
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.gz'))
      .sort()
      .map((f) => join(dir, f));
  } catch (err) {
    throw new Error(`backtest.data: hftbacktest capture folder ${dir}: ${(err as Error).message}`);
  }
  if (files.length === 0) throw new Error(`backtest.data: no hftbacktest capture (.gz) in ${dir}`);
  // One source for every pass (the run reads the first event's time, then replays): it keeps each
  // file's decompressed bytes, so the capture is gunzipped once.
  const src = hftSource(files, { symbol: market });
  return {
    description: `hftbacktest capture ${dir} (${files.length} file(s))`,
    gaps: () => Promise.resolve([]),
    events: (to) => ({ [Symbol.asyncIterator]: () => asAsync(captureEvents(src.events(), market, to)) }),
  };
}

/** The capture's events before `to` as the frames the exchange's stream and REST would have given. */
function* captureEvents(it: Iterator<ReplayEvent>, market: string, to: number): Generator<RecordedEvent> {
  let first = true;
  for (let r = it.next(); !r.done; r = it.next()) {
    const ev = r.value;
    if (ev.time >= to) return;
    if (ev.kind === 'trade') {
      yield {
        market,
        t: ev.time,
        k: 'trade',
        src: 'ws',
        d: { isBuyOrder: ev.isBuyOrder, quantity: ev.quantity, price: ev.price, timestamp: new Date(ev.time).toISOString() },
      };
    } else if (first) {
      first = false;
      yield { market, t: ev.time, k: 'snapshot', src: 'rest', d: { success: true, result: { bid: frame(ev.bids), ask: frame(ev.asks) } } };
    } else {
      yield { market, t: ev.time, k: 'depth', src: 'ws', side: 'buy', d: frame(ev.bids) };
      yield { market, t: ev.time, k: 'depth', src: 'ws', side: 'sell', d: frame(ev.asks) };
    }
  }
}

/**
 * A synchronous iterator as an asynchronous one: each `next` answers its step as a settled promise
 * (a failure as a rejected one). An async generator over the capture queued and awaited every one
 * of its ~33,000 events on top of that.
 */
function asAsync<T>(it: Iterator<T>): AsyncIterator<T> {
  const step = (f: () => IteratorResult<T>): Promise<IteratorResult<T>> => {
    try {
      return Promise.resolve(f());
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes the capture's error through as thrown
      return Promise.reject(err);
    }
  };
  return {
    next: () => step(() => it.next()),
    return: (value?: unknown) => step(() => it.return?.(value as T) ?? { done: true, value: value as T }),
  };
}
