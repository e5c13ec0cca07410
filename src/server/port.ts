/**
 * The bot control port: everything the API server reads from and does to a running bot. The server
 * knows nothing else of the bot; bot-adapter.ts implements this over what `startBot` returns. Every
 * value is plain JSON (money as decimal strings, times as epoch ms), so a route returns it as is.
 * The dashboard's scripts (src/server/dashboard/*.js) read these types in their JSDoc: an export
 * only they use is still used (npm run typecheck:dashboard).
 */

export type TradingStateName = 'active' | 'reducing' | 'halted';

export interface TradingStateDto {
  state: TradingStateName;
  reason: string | null;
  since: number;
}

interface BookHealthDto {
  symbol: string;
  healthy: boolean;
  reasons: string[];
  lastUpdateAt: number | null;
}

export interface StatusDto {
  mode: string;
  startedAt: number;
  uptimeMs: number;
  tradingState: TradingStateDto;
  reference: string;
  equity: string;
  startEquity: string;
  pnl: string;
  realized: string;
  unrealized: string;
  openOrders: number;
  fills: number;
  denials: number;
  errors: number;
  books: BookHealthDto[];
  /** The last denial (null: none yet) and every denial by rule and reason, with their numbers (a range where they differed). */
  lastDenial: { strategy: string; rule: string; reason: string } | null;
  denied: { total: number; byRule: { rule: string; count: number; reasons: { reason: string; count: number; example: string }[]; otherReasons: number }[] };
  /** Decimals of the reference asset (the money amounts above are rounded to them). */
  referencePrecision: number;
  /** Each market's precision, for showing its prices and amounts. */
  markets: MarketDto[];
}

export interface MarketDto {
  symbol: string;
  base: string;
  quote: string;
  /** Decimals of a price (and of an amount in the quote asset). */
  pricePrecision: number;
  /** Decimals of a quantity (in the base asset). */
  quantityPrecision: number;
  /** Decimals of an amount of the base asset and of the quote asset (balances, values, PnL). */
  basePrecision: number;
  quotePrecision: number;
}

export interface LevelDto {
  price: string;
  quantity: string;
}

export interface BookDto {
  symbol: string;
  healthy: boolean;
  bestBid: LevelDto | null;
  bestAsk: LevelDto | null;
  mid: string | null;
  spread: string | null;
  spreadBps: string | null;
  /** Quantity (base) and notional (quote) resting within ±`percent`% of the mid, per side. */
  depth: { percent: number; bid: { quantity: string; notional: string; levels: number }; ask: { quantity: string; notional: string; levels: number } } | null;
  /** The best levels of each side (at most 10), best first. */
  bids: LevelDto[];
  asks: LevelDto[];
  lastUpdateAt: number | null;
}

export interface PlotDto {
  name: string;
  symbol: string;
  /** `price`: over the market's candles; any other name: a pane of its own. */
  pane: string;
  color: string | null;
  levels: number[];
  /** At the time of the `ctx.plot` call (ms, a candle's close); value null: a gap. Oldest first. */
  points: { time: number; value: number | null }[];
}

export interface OrderDto {
  clientOrderId: string;
  strategy: string;
  symbol: string;
  side: string;
  type: string;
  price: string | null;
  quantity: string;
  filled: string;
  status: string;
  final: boolean;
  reason: string | null;
  tag: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface FillDto {
  id: number;
  clientOrderId: string;
  strategy: string;
  symbol: string;
  side: string;
  price: string;
  quantity: string;
  fee: string;
  feeAsset: string;
  ts: number;
  tag: string | null;
}

export interface DenialDto {
  time: number;
  strategy: string;
  /** `exchange` for an order the exchange rejected; else the risk rule. */
  rule: string;
  reason: string;
  intent: string;
  symbol: string | null;
}

export interface PnlDto {
  symbol: string;
  position: string;
  avgPrice: string;
  realized: string;
  unrealized: string;
  fees: string;
  trades: number;
  /** The market's price now (its mid), null without a book. */
  price: string | null;
  /** position × price, in the quote asset; null without a price. */
  value: string | null;
}

export interface StrategyDto {
  name: string;
  strategy: string;
  state: 'running' | 'stopped';
  markets: string[];
  /** The strategy's candle resolution in seconds (what GET /candles takes). */
  resolution: number;
  account: string;
  params: Record<string, unknown>;
  handlerErrors: number;
  pnl: PnlDto[];
  openOrders: OrderDto[];
  recentDenials: DenialDto[];
}

export interface BalanceDto {
  asset: string;
  value: string;
  locked: string;
}

export interface MarginPositionDto {
  id: string;
  market: string;
  side: string;
  state: string;
  strategy: string | null;
  detail: Record<string, unknown>;
}

export interface EquityPointDto {
  ts: number;
  asset: string;
  equity: string;
}

export interface CandleDto {
  /** Period start, Unix seconds. */
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  /** A period without trades (volume 0, prices = the previous close). */
  empty: boolean;
}

export interface CandlesDto {
  symbol: string;
  /** Seconds. */
  resolution: number;
  /** Closed candles, oldest first. */
  candles: CandleDto[];
  /** The period still open (null before its first trade). */
  current: CandleDto | null;
}

export interface LogLineDto {
  /** pino's numeric level (30 info, 40 warn, 50 error). */
  level: number;
  time: number;
  msg: string;
  /** The whole JSON line (secrets removed). */
  line: Record<string, unknown>;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
}

interface OrderQuery {
  strategy?: string;
  symbol?: string;
  status?: string;
  since?: number;
  limit: number;
  offset: number;
}

type FillQuery = Omit<OrderQuery, 'status'>;

/** What the stream pushes (`type` names the topic). */
export type BotEvent =
  | { type: 'fill'; fill: FillDto }
  | { type: 'order'; order: OrderDto; previous: string }
  | { type: 'tradingState'; state: TradingStateDto; previous: TradingStateName }
  | { type: 'denial'; denial: DenialDto }
  | { type: 'strategy'; name: string; state: 'running' | 'stopped' }
  | { type: 'candle'; symbol: string; resolution: number; candle: CandleDto }
  | { type: 'log'; log: LogLineDto };

/** The named strategy or order does not exist (404). */
export class NotFoundError extends Error {}

export interface BotControl {
  status(): StatusDto;
  strategies(): StrategyDto[];
  /** Throws NotFoundError for an unknown name. */
  strategy(name: string): StrategyDto;
  balances(): Record<string, BalanceDto[]>;
  orders(q: OrderQuery): Page<OrderDto>;
  fills(q: FillQuery): Page<FillDto>;
  marginPositions(): MarginPositionDto[];
  equity(q: { since?: number; limit: number }): EquityPointDto[];
  logs(q: { limit: number; minLevel: number }): LogLineDto[];
  /** The live candles the bot builds (its strategies' resolutions); NotFoundError for a market or resolution it does not build. */
  candles(q: { symbol: string; resolution: number; limit: number }): CandlesDto;
  /** Each market's book: best bid / ask, spread and depth. */
  books(): BookDto[];
  /** The strategy's declared plots with the points it drew since the bot started. */
  plots(name: string): PlotDto[];

  halt(reason: string): TradingStateDto;
  resume(reason: string): TradingStateDto;
  /** Stop one strategy (its onStop runs, it gets no more events); its open orders are cancelled unless keepOrders. */
  stopStrategy(name: string, opts: { keepOrders: boolean }): Promise<StrategyDto>;
  /** Start a stopped strategy: a fresh instance (as after a restart), its onStart, then events. */
  startStrategy(name: string): Promise<StrategyDto>;
  /** Cancel one live order; NotFoundError when no live order has that id. */
  cancelOrder(clientOrderId: string): Promise<OrderDto>;
  /** Cancel every live order of a strategy; how many were asked to cancel. */
  cancelStrategyOrders(name: string): Promise<{ cancelled: number }>;

  /** Listen to every event; returns the function that stops listening. */
  subscribe(listener: (e: BotEvent) => void): () => void;
}
