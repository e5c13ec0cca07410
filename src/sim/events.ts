/** Events the SimulatedExchange emits (eventemitter3), and the shapes they carry. */
import type { Decimal } from '../core/decimal.js';
import type { BookSide, LevelInput, SimFill, SimOrder, SimTrade } from './order-types.js';
import type { TradeStats } from './market-stats.js';

/** A side of the merged book after a change: top levels, best first. */
export interface DepthEvent {
  symbol: string;
  side: BookSide;
  levels: LevelInput[];
}

export interface PriceEvent {
  symbol: string;
  price: Decimal;
  /** Percent change over 24 hours. */
  change24h: number;
}

/** A market's statistics (`/v1/markets` stats, `@marketCap`). */
export interface MarketSnapshot extends TradeStats {
  symbol: string;
  bidPrice?: Decimal;
  askPrice?: Decimal;
  bidVolume: Decimal;
  askVolume: Decimal;
  bidCount: number;
  askCount: number;
}

export interface SimEvents {
  depth: (e: DepthEvent) => void;
  /** Every printed trade: public ones and the accounts' own fills. */
  trade: (t: SimTrade) => void;
  stats: (s: MarketSnapshot) => void;
  price: (p: PriceEvent) => void;
  /** An order after a change (a copy). */
  order: (o: SimOrder) => void;
  fill: (f: SimFill) => void;
}

export function copyOrder(o: SimOrder): SimOrder {
  return { ...o, fills: [...o.fills] };
}
