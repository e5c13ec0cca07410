/**
 * The backtest venue: a SimVenue whose calls first bring the simulated market to the moment the
 * call reaches the exchange (the next candle's open for orders and margin; the last close for
 * instant orders). See fill-model.ts.
 */
import type { Decimal } from '../core/decimal.js';
import type {
  Balances,
  InstantOrder,
  MarginDryRun,
  MarginPosition,
  MarginPositionFilter,
  MarginRequest,
  NewInstantOrder,
  NewSpotOrder,
  Side,
  SpotOrder,
} from '../core/types/index.js';
import type { SimVenue } from '../venues/sim-venue.js';
import type { Venue } from '../execution/venue.js';
import type { TradeDetail } from '../execution/tracked-order.js';
import type { CandleFill, PlacementClock } from './fill-model.js';

export interface BacktestVenueDeps {
  inner: SimVenue;
  fill: CandleFill;
  /** Index of the last closed candle of a market (−1 before the first). */
  index(symbol: string): number;
  /** Called before any call that may move balances (instant, margin); `margin` for margin calls. */
  touched(margin: boolean): void;
  /** Market of a margin position (for closing and top-ups). */
  positionMarket(positionId: number): string | undefined;
  /** Told of every instant order the exchange executed (for the result's order list). */
  onInstant?(order: InstantOrder): void;
  /** Told why a market order was cancelled unfilled at placement (the exchange gives no reason). */
  onMarketCancelled?(clientOrderId: string, reason: string): void;
  /** The simulated exchange's clock: set to the next open while an order is handed over (fill times after a gap). */
  clock?: PlacementClock;
}

export class BacktestVenue implements Venue {
  readonly kind = 'backtest';
  constructor(private readonly deps: BacktestVenueDeps) {}

  private prepare(symbol: string | undefined): void {
    if (symbol) this.deps.fill.preparePlacement(symbol, this.deps.index(symbol));
  }

  /** Hand a call to the exchange at the moment it arrives there: the next candle's open of `symbol`. */
  private arrive<T>(symbol: string | undefined, call: () => T): T {
    const clock = this.deps.clock;
    if (!clock || !symbol) return call();
    return clock.during(this.deps.fill.arrivalMs(symbol, this.deps.index(symbol)), call);
  }

  async createOrder(order: NewSpotOrder): Promise<SpotOrder> {
    this.prepare(order.symbol);
    const snap = await this.arrive(order.symbol, () => this.deps.inner.createOrder(order));
    if (snap.type === 'MARKET' && snap.status === 'CANCELED' && snap.executedQty.isZero() && this.deps.onMarketCancelled) {
      this.deps.onMarketCancelled(snap.clientOrderId, this.marketCancelReason(order));
    }
    return snap;
  }
  /** The fill model's reason (the volume cap, the 2 % bound) for the market order it cancelled unfilled. */
  marketCancelReason(order: { symbol: string; quantity: Decimal }): string {
    return this.deps.fill.marketCancelReason(order.symbol, this.deps.index(order.symbol), order.quantity);
  }
  getOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.deps.inner.getOrder(clientOrderId);
  }
  cancelOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.deps.inner.cancelOrder(clientOrderId);
  }
  openOrders(symbol?: string): Promise<SpotOrder[]> {
    return this.deps.inner.openOrders(symbol);
  }
  balances(): Promise<Balances> {
    return this.deps.inner.balances();
  }
  async instantOrder(order: NewInstantOrder): Promise<InstantOrder> {
    this.deps.fill.prepareInstant(order.symbol, this.deps.index(order.symbol));
    this.deps.touched(false);
    const o = await this.deps.inner.instantOrder(order);
    this.deps.onInstant?.(o);
    return o;
  }
  /** Quoted as the order would fill: at the book instantOrder prepares. */
  instantQuote(symbol: string, side: Side): Promise<Decimal> {
    this.deps.fill.prepareInstant(symbol, this.deps.index(symbol));
    return this.deps.inner.instantQuote(symbol, side);
  }
  /** Previewed as the open would arrive (the next candle's open); moves no balances. */
  previewPosition(req: MarginRequest): Promise<MarginDryRun> {
    this.prepare(req.market);
    return this.arrive(req.market, () => this.deps.inner.previewPosition(req));
  }
  openPosition(req: MarginRequest): Promise<MarginPosition> {
    this.prepare(req.market);
    this.deps.touched(true);
    return this.arrive(req.market, () => this.deps.inner.openPosition(req));
  }
  addCollateral(positionId: number, amount: Decimal): Promise<MarginPosition> {
    this.deps.touched(true);
    return this.deps.inner.addCollateral(positionId, amount);
  }
  closePosition(positionId: number, price: Decimal): Promise<MarginPosition> {
    const market = this.deps.positionMarket(positionId);
    this.prepare(market);
    this.deps.touched(true);
    return this.arrive(market, () => this.deps.inner.closePosition(positionId, price));
  }
  /** Arrives at the next candle's open, as a close does; moves no balance. */
  setBrackets(positionId: number, b: { stopLoss?: Decimal; takeProfit?: Decimal }): Promise<MarginPosition> {
    const market = this.deps.positionMarket(positionId);
    this.prepare(market);
    return this.arrive(market, () => this.deps.inner.setBrackets(positionId, b));
  }
  positions(filter?: MarginPositionFilter): Promise<MarginPosition[]> {
    return this.deps.inner.positions(filter);
  }
  onOrderUpdate(listener: (order: SpotOrder) => void): () => void {
    return this.deps.inner.onOrderUpdate(listener);
  }
  onFill(listener: (clientOrderId: string, fill: TradeDetail) => void): () => void {
    return this.deps.inner.onFill(listener);
  }
}
