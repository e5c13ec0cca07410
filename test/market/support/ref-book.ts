import type { BookSide, RawLevel } from '../../../src/market/ports.js';

/** A reference book moved by random changes; each change yields the full side, as the exchange sends. */
export class RefBook {
  bids = new Map<number, string>();
  asks = new Map<number, string>();
  constructor(private seed: number) {
    for (let i = 0; i < 30; i++) {
      this.bids.set(100_000 - i * 7, '1.5');
      this.asks.set(100_010 + i * 7, '2.25');
    }
  }
  rnd(): number {
    return (this.seed = (this.seed * 16807) % 2147483647) / 2147483647;
  }
  change(): BookSide {
    const side: BookSide = this.rnd() < 0.5 ? 'bid' : 'ask';
    const m = side === 'bid' ? this.bids : this.asks;
    const bestBid = Math.max(...this.bids.keys());
    const bestAsk = Math.min(...this.asks.keys());
    const price = side === 'bid' ? bestBid - Math.floor(this.rnd() * 60) + 3 : bestAsk + Math.floor(this.rnd() * 60) - 3;
    const ok = side === 'bid' ? price < bestAsk : price > bestBid;
    if (this.rnd() < 0.3 && m.size > 5) m.delete([...m.keys()][Math.floor(this.rnd() * m.size)] as number);
    else if (ok) m.set(price, (this.rnd() * 5).toFixed(6));
    return side;
  }
  levels(side: BookSide): RawLevel[] {
    const m = side === 'bid' ? this.bids : this.asks;
    const prices = [...m.keys()].sort((a, b) => (side === 'bid' ? b - a : a - b)).slice(0, 50);
    // socket.io shape: price string with trailing zeros, quantity number
    return prices.map((p) => ({ price: (p / 100).toFixed(16), quantity: Number(m.get(p)) }));
  }
  snapshot() {
    return { bids: this.levels('bid'), asks: this.levels('ask') };
  }
}
