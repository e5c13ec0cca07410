/** The public trade tape of each market: a bounded ring buffer per symbol (oldest dropped first). */
import type { PublicTrade } from '../core/types/market.js';

export class TradeRing {
  private readonly buf: (PublicTrade | undefined)[];
  private start = 0;
  private len = 0;
  /** Trades ever pushed (including the ones dropped from the window). */
  total = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.buf = new Array(capacity);
  }

  get size(): number {
    return this.len;
  }

  push(trade: PublicTrade): void {
    this.total++;
    if (this.len < this.capacity) {
      this.buf[(this.start + this.len) % this.capacity] = trade;
      this.len++;
    } else {
      this.buf[this.start] = trade;
      this.start = (this.start + 1) % this.capacity;
    }
  }

  /** Trade `i` in arrival order (0 = oldest kept). */
  at(i: number): PublicTrade | undefined {
    if (i < 0 || i >= this.len) return undefined;
    return this.buf[(this.start + i) % this.capacity];
  }

  last(): PublicTrade | undefined {
    return this.at(this.len - 1);
  }

  /** The newest `n` trades (all kept trades by default), oldest first. */
  recent(n = this.len): PublicTrade[] {
    const k = Math.max(0, Math.min(n, this.len));
    const out: PublicTrade[] = new Array(k);
    for (let i = 0; i < k; i++) out[i] = this.at(this.len - k + i) as PublicTrade;
    return out;
  }

  /** Kept trades with timestamp ≥ `timeMs`, oldest first. */
  since(timeMs: number): PublicTrade[] {
    const out: PublicTrade[] = [];
    for (let i = this.len - 1; i >= 0; i--) {
      const t = this.at(i) as PublicTrade;
      if (t.timestamp < timeMs) break;
      out.push(t);
    }
    return out.reverse();
  }
}

export class TradeTape {
  private readonly rings = new Map<string, TradeRing>();

  /** `capacity`: trades kept per market. */
  constructor(readonly capacity = 1_000) {}

  push(trade: PublicTrade): void {
    let ring = this.rings.get(trade.symbol);
    if (!ring) {
      ring = new TradeRing(this.capacity);
      this.rings.set(trade.symbol, ring);
    }
    ring.push(trade);
  }

  /** The ring of a market (undefined until its first trade). */
  of(symbol: string): TradeRing | undefined {
    return this.rings.get(symbol);
  }

  recent(symbol: string, n?: number): PublicTrade[] {
    return this.rings.get(symbol)?.recent(n) ?? [];
  }

  since(symbol: string, timeMs: number): PublicTrade[] {
    return this.rings.get(symbol)?.since(timeMs) ?? [];
  }

  last(symbol: string): PublicTrade | undefined {
    return this.rings.get(symbol)?.last();
  }
}
