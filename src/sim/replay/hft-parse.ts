/**
 * Lines of the hftbacktest collector: `<local_receive_ts_ns> <raw Binance websocket JSON>`.
 * Combined-stream messages `{stream, data}` (depth diffs, trades, bookTicker) and one REST depth
 * snapshot line `{lastUpdateId, bids, asks}` (futures adds E, T).
 */

export interface DepthDiff {
  type: 'depth';
  localNs: string;
  /** Event time, ms. */
  time: number;
  firstId: number;
  lastId: number;
  /** Futures only: the previous event's last id. */
  prevId?: number;
  bids: [string, string][];
  asks: [string, string][];
}

interface DepthSnapshotLine {
  type: 'snapshot';
  localNs: string;
  /** ms: `T`/`E` when present (futures), else the local receive time. */
  time: number;
  lastUpdateId: number;
  bids: [string, string][];
  asks: [string, string][];
}

interface TradeLine {
  type: 'trade';
  localNs: string;
  time: number;
  price: string;
  quantity: string;
  /** `m`: the buyer was the maker, so the taker sold. */
  buyerIsMaker: boolean;
}

export type HftLine = DepthDiff | DepthSnapshotLine | TradeLine | { type: 'other'; localNs: string };

type Json = Record<string, unknown>;

function levels(v: unknown): [string, string][] {
  return Array.isArray(v) ? (v as [string, string][]) : [];
}

class HftLineError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    problem: string,
  ) {
    super(`${file}, line ${line}: ${problem}`);
    this.name = 'HftLineError';
  }
}

/**
 * A `bookTicker` message exactly as Binance sends it (`{"stream":"btcusdt@bookTicker","data":{"u":…,
 * "s":…,"b":…,"B":…,"a":…,"A":…}}`, strings without escapes or control characters). Such a line is
 * valid JSON whose stream is neither a depth nor a trade stream, so it parses to `other`: it is
 * recognised without JSON.parse. Two in three lines of a spot capture are book tickers, and parsing
 * them was the largest part of reading one; a line of any other shape is parsed as JSON.
 */
const S = String.raw`"[^"\\\u0000-\u001f]*"`;
const BOOK_TICKER = new RegExp(String.raw`^\{"stream":"[a-z0-9]+@bookTicker","data":\{"u":(?:0|[1-9][0-9]*),"s":${S},"b":${S},"B":${S},"a":${S},"A":${S}\}\}$`);

export function parseHftLine(file: string, lineNo: number, line: string): HftLine {
  const sp = line.indexOf(' ');
  if (sp <= 0) throw new HftLineError(file, lineNo, 'expected "<timestamp_ns> <json>"');
  const localNs = line.slice(0, sp);
  if (line.charCodeAt(sp + 1) === 0x7b && BOOK_TICKER.test(line.slice(sp + 1))) return { type: 'other', localNs };
  let msg: Json;
  try {
    msg = JSON.parse(line.slice(sp + 1)) as Json;
  } catch (err) {
    throw new HftLineError(file, lineNo, `invalid JSON: ${(err as Error).message}`);
  }
  if (msg.lastUpdateId !== undefined) {
    const t = typeof msg.T === 'number' ? msg.T : typeof msg.E === 'number' ? msg.E : Math.floor(Number(localNs) / 1e6);
    return { type: 'snapshot', localNs, time: t, lastUpdateId: Number(msg.lastUpdateId), bids: levels(msg.bids), asks: levels(msg.asks) };
  }
  const stream = typeof msg.stream === 'string' ? msg.stream : '';
  const data = (msg.data ?? {}) as Json;
  if (stream.includes('@depth')) {
    const diff: DepthDiff = {
      type: 'depth',
      localNs,
      time: Number(data.E),
      firstId: Number(data.U),
      lastId: Number(data.u),
      bids: levels(data.b),
      asks: levels(data.a),
    };
    if (data.pu !== undefined) diff.prevId = Number(data.pu);
    if (!Number.isFinite(diff.firstId) || !Number.isFinite(diff.lastId)) throw new HftLineError(file, lineNo, 'depth diff without U/u');
    return diff;
  }
  if (stream.endsWith('@trade')) {
    // futures: only X = "MARKET" prints are trades (others are liquidations, insurance fund, ...)
    if (data.X !== undefined && data.X !== 'MARKET') return { type: 'other', localNs };
    if (typeof data.p !== 'string' || typeof data.q !== 'string') throw new HftLineError(file, lineNo, 'trade without p/q');
    return {
      type: 'trade',
      localNs,
      time: Number(data.T ?? data.E),
      price: data.p,
      quantity: data.q,
      buyerIsMaker: data.m === true,
    };
  }
  return { type: 'other', localNs };
}
