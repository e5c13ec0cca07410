/**
 * Where orders go. Live trading uses the REST client; paper trading and backtests use the
 * SimulatedExchange in-process. Both satisfy this one interface, chosen in the composition root: no
 * paper flag anywhere in the exchange adapter. Every method throws the typed errors of
 * src/core/errors.ts, so the executor reacts the same way to a rejection from either.
 */
import type { Decimal } from '../core/decimal.js';
import type { TrackedOrder, TradeDetail } from './tracked-order.js';
import type { OrderState } from '../core/views.js';
import type {
  Balances,
  InstantOrder,
  MarginDryRun,
  MarginOrder,
  MarginPosition,
  MarginPositionFilter,
  MarginRequest,
  NewInstantOrder,
  NewSpotOrder,
  Side,
  SpotOrder,
} from '../core/types/index.js';

export interface Venue {
  /** `live`, `paper` or `backtest`, for logs and the journal. */
  readonly kind: string;
  createOrder(order: NewSpotOrder): Promise<SpotOrder>;
  getOrder(clientOrderId: string): Promise<SpotOrder>;
  cancelOrder(clientOrderId: string): Promise<SpotOrder>;
  openOrders(symbol?: string): Promise<SpotOrder[]>;
  balances(): Promise<Balances>;
  instantOrder(order: NewInstantOrder): Promise<InstantOrder>;
  /**
   * The exchange's instant (OTC) price for `side` now (`GET /v1/account/otc/price`): an instant order
   * placed while it holds fills at it, so the kernel sizes and checks the order at it.
   */
  instantQuote?(symbol: string, side: Side): Promise<Decimal>;
  /** The exchange's dry run of a margin open: its call and liquidation prices, nothing opened. */
  previewPosition(req: MarginRequest): Promise<MarginDryRun>;
  openPosition(req: MarginRequest): Promise<MarginPosition>;
  addCollateral(positionId: number, amount: Decimal): Promise<MarginPosition>;
  closePosition(positionId: number, price: Decimal): Promise<MarginPosition>;
  /** Replaces a position's stop loss and take profit (`sltp`); one left out is removed. */
  setBrackets(positionId: number, brackets: { stopLoss?: Decimal; takeProfit?: Decimal }): Promise<MarginPosition>;
  positions(filter?: MarginPositionFilter): Promise<MarginPosition[]>;
  /** One margin position, in whatever state (`GET …/positions/{id}`): a closed one's final fields. */
  position?(positionId: number): Promise<MarginPosition>;
  /** The orders that opened and closed a margin position (`GET /margin-trade/v1/orders?position_id=`), with their fees when the exchange gives them. */
  marginOrders?(positionId: number): Promise<MarginOrder[]>;
  /**
   * Venues that know at once when an order changes (the in-process simulator) push updates here,
   * so the tracker need not poll. Live venues leave it out and are polled.
   */
  onOrderUpdate?(listener: (order: SpotOrder) => void): () => void;
  /**
   * Venues that compute each fill themselves (the in-process simulator) hand it here as it happens,
   * before the order's update: the engine books that fill as it is, instead of diffing it back out of
   * the next snapshot. Live venues leave it out (the private stream's trade details do the same).
   */
  onFill?(listener: (clientOrderId: string, fill: TradeDetail) => void): () => void;
  /**
   * Why the exchange cancelled a market order unfilled, when its answer says nothing (a backtest's
   * exchange knows: the volume cap, the 2 % bound). Without it the engine states the exchange's rule
   * (EXCHANGE_MARKET_CANCEL).
   */
  marketCancelReason?(order: { symbol: string; quantity: Decimal }): string | undefined;
}

/**
 * The exchange cancels a market order that would move the price more than 2 % from the last trade,
 * or that is larger than the book, and says no more (../shared/EXCHANGE-NOTES.md): the reason an
 * unfilled market order the strategy did not cancel reaches it with.
 */
export const EXCHANGE_MARKET_CANCEL =
  'cancelled by the exchange unfilled (it cancels a market order that would move the price more than 2 % from the last trade, or that is larger than the book)';

/**
 * Why the exchange cancelled `o`, a market order that has just (from `previous`) ended cancelled and
 * unfilled without its strategy asking (`asked`), whose answer gave no reason: the venue's, else the exchange's rule; kept
 * on the order (journal, API). Undefined for any other order.
 */
export function exchangeCancelReason(o: TrackedOrder, previous: OrderState, asked: boolean, venues: { venueFor(account: string): Venue }): string | undefined {
  if (o.state !== 'cancelled' || previous === 'cancelled' || o.type !== 'MARKET' || !o.filled.isZero() || asked) return undefined;
  return (o.reason ??= venues.venueFor(o.account).marketCancelReason?.(o) ?? EXCHANGE_MARKET_CANCEL);
}
