/**
 * The narrow ports the risk module reads through. They are subsets of the views the rest of the
 * framework already offers (src/strategy/views.ts, the Portfolio, the ExecutionEngine, the journal),
 * so the composition root can pass those objects, or small lambdas over them, without adapters.
 */
import type { Decimal } from '../core/decimal.js';
import type { MarginOpenIntent } from '../core/intents.js';
import type { BookLevel, Side } from '../core/types/market.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { BookView, MarketView } from '../core/views.js';
import type { RiskVerdict } from './types.js';

/** What the rules need of a market (a subset of MarketView). */
export type RiskMarket = Pick<
  MarketView,
  'symbol' | 'base' | 'quote' | 'qtyStep' | 'priceTick' | 'minQty' | 'maxQty' | 'minNotional' | 'makerFee' | 'takerFee' | 'riskCoef' | 'instant'
>;

/** What the rules need of a local order book (a subset of BookView). */
export interface RiskBook {
  mid(): Decimal | undefined;
  bestBid(): Decimal | undefined;
  bestAsk(): Decimal | undefined;
  /** Bids high to low. */
  bids(depth?: number): readonly BookLevel[];
  /** Asks low to high. */
  asks(depth?: number): readonly BookLevel[];
  health(): { healthy: boolean; reasons: readonly string[] };
}

// A BookView must fit RiskBook (compile-time check, no runtime cost).
type Fits<T extends RiskBook> = T;
type _BookViewFitsRiskBook = Fits<BookView>;

/** value and locked of an asset on an account (`main` or `prop:<clientId>`), as the exchange reports them. */
export interface BalanceEntryView {
  value: Decimal;
  locked: Decimal;
}

/** An open or in-flight order as the executor knows it (TrackedOrder fits). */
export interface OpenOrderRef {
  symbol: string;
  strategy: string;
  /** The reservation the order holds, when it passed this risk engine. */
  reservationId?: string;
  /** The account it rests on (default: the strategy's). */
  account?: string;
  side?: Side;
  /** Base quantity ordered and filled so far: an open sell's unfilled part is already out of the free balance (ownership.ts). */
  quantity?: Decimal;
  filled?: Decimal;
}

/** A spot position of one strategy in one market (the portfolio's PositionRecord fits). */
export interface PositionRef {
  strategy: string;
  symbol: string;
  quantity: Decimal;
  /** Cost basis in the quote asset (buy fees included); counts as capital used by the strategy. */
  cost?: Decimal;
  /** Coins its sells left below the market's minimum: still the strategy's (another may not sell them). */
  dust?: Decimal;
}

export interface RiskPorts {
  /** Market limits and fees; undefined for an unknown market. */
  market(symbol: string): RiskMarket | undefined;
  /** The local order book; undefined when none is kept. */
  book(symbol: string): RiskBook | undefined;
  /** Balance of an asset on an account; undefined counts as zero. */
  balance(account: string, asset: string): BalanceEntryView | undefined;
  /**
   * Whether the account's balances have been read from the exchange (the kernel's ledger:
   * Portfolio.balancesRead). Until then an intent that spends is denied (rules/account-read.ts).
   * Defaults to read.
   */
  balancesRead?(account: string): boolean;
  /** Live orders (open and in flight) the executor tracks. Defaults to none. */
  openOrders?(): readonly OpenOrderRef[];
  /** Spot positions per strategy and market. Defaults to none. */
  positions?(): readonly PositionRef[];
  /** Open margin positions. Defaults to none. */
  marginPositions?(): readonly MarginPosition[];
  /** Price used to value positions when the book has no mid. */
  markPrice?(symbol: string): Decimal | undefined;
  /** The account a strategy trades on. Defaults to `main`. */
  accountOf?(strategy: string): string;
  /**
   * Whether a strategy is one of the bot's (configured now). Positions of others (a strategy renamed
   * or removed, whose fills a restart read back from the journal) are nobody's to defend. Defaults to every one.
   */
  isStrategy?(strategy: string): boolean;
  /**
   * Fallback call price of a margin open when no dry-run preview was passed with the intent: the
   * simulator's formula (src/sim/margin/math.ts) or the README's, injected by the composition root.
   */
  marginCallPrice?(intent: MarginOpenIntent, openPrice: Decimal, market: RiskMarket): Decimal | undefined;
}

/** The trading state as the journal stores it (same shape as src/store TradingStateRecord). */
import type { TradingStateName } from '../core/views.js';
export type { TradingStateName };

export interface TradingStateRecord {
  state: TradingStateName;
  reason?: string;
  /** Epoch ms since when the state holds. */
  since: number;
}

/** Counters of the protections, persisted so a restart neither forgets a peak nor a losing streak. */
export interface ProtectionsMemo {
  /** Highest equity seen, as a decimal string. */
  peak?: string;
  /** UTC day (yyyy-mm-dd) and the equity it started with. */
  day?: string;
  dayStart?: string;
  /** Losing trades in a row, per strategy. */
  losingStreak: Record<string, number>;
  /** Cooldown end (epoch ms), per strategy. */
  cooldownUntil: Record<string, number>;
  /** Times of recent stop-loss exits. */
  stoplossExits: number[];
}

/** Where verdicts and the risk state go (the journal, or MemorySink in tests and backtests). */
export interface RiskSink {
  recordVerdict(verdict: RiskVerdict): void;
  saveTradingState(record: TradingStateRecord): void;
  loadTradingState(): TradingStateRecord | undefined;
  saveProtections(memo: ProtectionsMemo): void;
  loadProtections(): ProtectionsMemo | undefined;
  /** The bot's order-rate window (send times, ms), kept across restarts; optional. */
  saveOrderRate?(times: readonly number[]): void;
  loadOrderRate?(): readonly number[] | undefined;
}
