/**
 * One price per market, kept by the kernel for every mode and read by brackets, equity, protections
 * and the status line alike (ARCHITECTURE.md, "The kernel owns every fact that the modes could
 * disagree on"). Two readings of the same store:
 * - `last(symbol)`: the market's last traded price, the price a stop triggers on. It is the newest
 *   of what the mode has seen: public trades (live and paper), the account's own fills (a fill is a
 *   trade of the market), and in backtests the candle path (each candle's close, set by the walk on
 *   its slot, and the prints the simulated exchange makes while the path is played).
 * - `mark(symbol)`: what positions and balances are valued at: the book's mid when the book has both
 *   sides (a backtest's book is the last close), else the last price.
 * A price is stamped with the time it was seen; the newer wins, a tie goes to the trade (a fill at a
 * candle's open happens at the previous candle's close time, after that close).
 */
import { type Decimal, toDecimal } from '../core/decimal.js';
import type { BookView } from '../core/views.js';

/** A market's price from a candle path: plain numbers written by the backtest's walk (no Decimal per candle). */
export interface CandleSlot {
  /** The last close (NaN before the first). */
  px: number;
  /** When it closed (ms). */
  at: number;
}

interface Seen {
  price: Decimal;
  at: number;
}

export class MarketPrices {
  private readonly trades = new Map<string, Seen>();
  private readonly slots = new Map<string, CandleSlot>();
  /** The Decimal made of a slot's number, kept while the slot holds that number. */
  private readonly slotDec = new Map<string, { px: number; dec: Decimal }>();

  constructor(private readonly book: (symbol: string) => BookView | undefined) {}

  /** A trade of the market at `at` (ms): a public print, or one of the account's own fills. */
  onTrade(symbol: string, price: Decimal, at: number): void {
    const cur = this.trades.get(symbol);
    if (cur && cur.at > at) return;
    if (cur) {
      cur.price = price;
      cur.at = at;
    } else this.trades.set(symbol, { price, at });
  }

  /** The slot a candle path writes a market's closes into (made once per market; the walk keeps it). */
  candleSlot(symbol: string): CandleSlot {
    let s = this.slots.get(symbol);
    if (!s) this.slots.set(symbol, (s = { px: Number.NaN, at: Number.NEGATIVE_INFINITY }));
    return s;
  }

  /** The market's last traded price (trades, fills, candle closes: the newest), or undefined before any. */
  last(symbol: string): Decimal | undefined {
    const t = this.trades.get(symbol);
    const s = this.slots.get(symbol);
    if (!s || Number.isNaN(s.px) || (t && t.at >= s.at)) return t?.price;
    return this.slotPrice(symbol, s);
  }

  /** When `last` was seen (ms), or undefined. */
  lastAt(symbol: string): number | undefined {
    const t = this.trades.get(symbol);
    const s = this.slots.get(symbol);
    if (!s || Number.isNaN(s.px)) return t?.at;
    return t && t.at >= s.at ? t.at : s.at;
  }

  /** The price positions and balances are valued at: the book's mid, else the last price. */
  mark(symbol: string): Decimal | undefined {
    return this.book(symbol)?.mid() ?? this.last(symbol);
  }

  private slotPrice(symbol: string, s: CandleSlot): Decimal {
    let d = this.slotDec.get(symbol);
    if (!d) this.slotDec.set(symbol, (d = { px: s.px, dec: toDecimal(s.px, `${symbol} close`) }));
    else if (d.px !== s.px) {
      d.px = s.px;
      d.dec = toDecimal(s.px, `${symbol} close`);
    }
    return d.dec;
  }
}
