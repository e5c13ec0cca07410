/**
 * The venue of an order-book backtest: one account trading spot on recorded books. The replay
 * driver feeds the recording in time order (`snapshot`, `side`, `trade`, `advance`); one
 * `BookFillEngine` per market decides the fills (queue position, latencies), and `BookAccount`
 * books them with the simulator's ledger and settlement. It answers like a SimVenue (same
 * SpotOrder shapes, same refusals mapped by `mapSimError`), with the exchange's answer time:
 *
 *  - `createOrder` sent at t validates and locks at once (a refusal rejects at once) and resolves
 *    at `at(t + entryLatencyMs)` with the order as it is then (it may hold the fills of going live).
 *  - `cancelOrder` sent at t resolves at `at(t + cancelLatencyMs)` with the order CANCELED, or
 *    rejects with the simulator's 422 when a fill won the race and the order is FILLED.
 *  - `getOrder`, `openOrders` and `balances` answer at once. Instant orders and margin are not
 *    offered (405, as SimVenue without desks): book backtests are spot only, MARKET and LIMIT.
 */
import type { Clock } from '../../core/clock.js';
import type { Decimal } from '../../core/decimal.js';
import { ZERO } from '../../core/decimal.js';
import type {
  Balances,
  BookLevel,
  InstantOrder,
  MarginDryRun,
  MarginPosition,
  MarginRequest,
  NewInstantOrder,
  NewSpotOrder,
  SpotOrder,
} from '../../core/types/index.js';
import type { Venue } from '../../execution/venue.js';
import type { TradeDetail } from '../../execution/tracked-order.js';
import { SimError } from '../../sim/errors.js';
import type { MarketSpec } from '../../sim/markets.js';
import type { SimOrder } from '../../sim/order-types.js';
import type { FeeRates } from '../../sim/settlement.js';
import { validateOrder } from '../../sim/validate-order.js';
import { walkBase } from '../../risk/book-walk.js';
import { mapSimError, placeRequest, toSpotOrder } from '../../venues/sim-venue.js';
import { BookAccount, finishedError, type BookVenueFill } from './book-account.js';
import { BookFillEngine, type BookFillOptions } from './fill-engine.js';
import type { RawLevel } from '../../market/ports.js';

export type { BookVenueFill } from './book-account.js';

export interface BookVenueOptions {
  /** The run's virtual clock, read for "now" when an order or a cancel is sent. */
  clock: Clock;
  /** A promise resolved when the virtual clock reaches `ms` (the driver resolves it). */
  at(ms: number): Promise<void>;
  /** Markets traded: tick, step, min quantity / notional, fees. */
  markets: readonly MarketSpec[];
  /** The account's starting balances. */
  balances: Record<string, Decimal>;
  /** Maker/taker rates of a market (default: the spec's makerFee/takerFee). */
  fees?(symbol: string): FeeRates;
  /** Queue model and latencies. */
  fill: BookFillOptions;
}

interface BookMarket {
  spec: MarketSpec;
  engine: BookFillEngine;
}

export class BookVenue implements Venue {
  readonly kind = 'backtest';
  private readonly markets = new Map<string, BookMarket>();
  private readonly account: BookAccount;

  constructor(private readonly opts: BookVenueOptions) {
    for (const spec of opts.markets) {
      if (this.markets.has(spec.symbol)) throw new Error(`markets: ${spec.symbol} is given twice`);
      this.markets.set(spec.symbol, { spec, engine: new BookFillEngine(spec, opts.fill) });
    }
    const fees = opts.fees;
    this.account = new BookAccount(opts.balances, (symbol) => {
      if (fees) return fees(symbol);
      const m = this.markets.get(symbol)!.spec;
      return { makerFee: m.makerFee, takerFee: m.takerFee };
    });
  }

  private market(symbol: string): BookMarket {
    const m = this.markets.get(symbol);
    if (!m) throw new Error(`symbol ${JSON.stringify(symbol)} is not a market of this book backtest`);
    return m;
  }

  /** Book what the market's engine decided since the last call. */
  private drain(m: BookMarket): void {
    for (const f of m.engine.takeFills()) this.account.settle(m.spec, f);
    this.account.closeCanceled(m.spec.symbol, (id) => m.engine.order(id));
  }

  // --- market data, in time order -------------------------------------------------------------

  /** A full book of `symbol` at t. */
  snapshot(symbol: string, t: number, bids: readonly BookLevel[], asks: readonly BookLevel[]): void {
    const m = this.market(symbol);
    m.engine.snapshot(t, bids, asks);
    this.drain(m);
  }

  /** A full frame of one side of `symbol`'s book at t, as received; when a value is not a number the side is unchanged and the answer says which. */
  side(symbol: string, t: number, side: 'bid' | 'ask', levels: ArrayLike<RawLevel>): string | undefined {
    const m = this.market(symbol);
    const refused = m.engine.replaceSide(t, side === 'bid' ? 'BUY' : 'SELL', levels);
    this.drain(m);
    return refused;
  }

  /** A public trade at t; `isBuyOrder`: the taker bought. */
  trade(symbol: string, t: number, price: Decimal, quantity: Decimal, isBuyOrder: boolean): void {
    const m = this.market(symbol);
    m.engine.trade(t, price, quantity, isBuyOrder ? 'BUY' : 'SELL');
    this.drain(m);
  }

  /** Apply the entries and cancels due at or before t, on every market. */
  advance(t: number): void {
    for (const m of this.markets.values()) {
      m.engine.advance(t);
      this.drain(m);
    }
  }

  // --- the account, for the kernel's ledger port and the report -------------------------------

  balance(asset: string): { value: Decimal; locked: Decimal } | undefined {
    return this.account.balance(asset);
  }

  assets(): string[] {
    return this.account.assets();
  }

  /** The open orders of a market now (the report's quotes). */
  restingOrders(symbol: string): readonly SimOrder[] {
    return this.account.openOrders(symbol);
  }

  fills(): readonly BookVenueFill[] {
    return this.account.fills();
  }

  /** Each fill as it happens, with its liquidity and its order's times (the book metrics). */
  onBookFill(listener: (fill: BookVenueFill) => void): void {
    this.account.bookFillListeners.add(listener);
  }

  /** Per market: the orders placed and how many got a fill, the quantity ordered and filled. */
  orderTotals(): ReturnType<BookAccount['orderTotals']> {
    return this.account.orderTotals();
  }

  // --- Venue ----------------------------------------------------------------------------------

  createOrder(order: NewSpotOrder): Promise<SpotOrder> {
    const t = this.opts.clock.now();
    let o;
    try {
      o = this.send(order, t);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes a non-SimError through as thrown
      return Promise.reject(mapSimError(err, 'createOrder'));
    }
    const live = t + this.opts.fill.entryLatencyMs;
    return this.opts.at(live).then(() => {
      this.advance(live);
      return toSpotOrder(o);
    });
  }

  /** Validate, lock and hand the order to its market's engine at t. Throws the simulator's SimErrors. */
  private send(order: NewSpotOrder, t: number) {
    const req = placeRequest(order);
    const m = this.markets.get(order.symbol);
    if (!m) return validateOrder(req, undefined, undefined) as never;
    m.engine.advance(t);
    this.drain(m);
    const reference = m.engine.reference(req.side);
    validateOrder(req, m.spec, reference);
    if (req.type !== 'MARKET' && req.type !== 'LIMIT') {
      throw new SimError(422, 'The given data was invalid.', { type: [`a book backtest trades MARKET and LIMIT orders only, got ${req.type}`] });
    }
    const cost = req.type === 'MARKET' && req.side === 'BUY' ? walkBase(m.engine.sorted('SELL'), req.quantity).cost : ZERO;
    const o = this.account.create(m.spec, req, t, t + this.opts.fill.entryLatencyMs, reference!, cost);
    m.engine.place(t, req);
    m.engine.advance(t);
    this.drain(m);
    return o;
  }

  getOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.call('getOrder', () => toSpotOrder(this.account.order(clientOrderId)));
  }

  cancelOrder(clientOrderId: string): Promise<SpotOrder> {
    const t = this.opts.clock.now();
    let o;
    try {
      o = this.account.order(clientOrderId);
      if (!o.active) throw finishedError(o);
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes a non-SimError through as thrown
      return Promise.reject(mapSimError(err, 'cancelOrder'));
    }
    const m = this.market(o.symbol);
    m.engine.cancel(t, clientOrderId);
    m.engine.advance(t);
    this.drain(m);
    const effective = t + this.opts.fill.cancelLatencyMs;
    return this.opts.at(effective).then(() => {
      this.advance(effective);
      if (o.active) throw new Error(`cancel of ${clientOrderId} due at ${effective} was not applied`);
      if (o.status === 'CANCELED' && this.account.canceledByRequest(clientOrderId)) return toSpotOrder(o);
      throw mapSimError(finishedError(o), 'cancelOrder');
    });
  }

  openOrders(symbol?: string): Promise<SpotOrder[]> {
    return this.call('openOrders', () => this.account.openOrders(symbol).map(toSpotOrder));
  }

  balances(): Promise<Balances> {
    return this.call('balances', () => {
      const out: Balances = {};
      for (const asset of this.account.assets()) {
        const b = this.account.balance(asset)!;
        out[asset] = { asset, fiat: asset === 'TMN', value: b.value, locked: b.locked };
      }
      return out;
    });
  }

  instantOrder(_order: NewInstantOrder): Promise<InstantOrder> {
    return this.call('instantOrder', () => {
      throw new SimError(405, 'instant orders are not offered by this venue');
    });
  }

  private noMargin<T>(op: string): Promise<T> {
    return this.call(op, () => {
      throw new SimError(405, 'margin trading is not offered by this venue');
    });
  }

  previewPosition(_req: MarginRequest): Promise<MarginDryRun> {
    return this.noMargin('previewPosition');
  }

  openPosition(_req: MarginRequest): Promise<MarginPosition> {
    return this.noMargin('openPosition');
  }

  addCollateral(_positionId: number, _amount: Decimal): Promise<MarginPosition> {
    return this.noMargin('addCollateral');
  }

  closePosition(_positionId: number, _price: Decimal): Promise<MarginPosition> {
    return this.noMargin('closePosition');
  }

  setBrackets(_positionId: number, _b: { stopLoss?: Decimal; takeProfit?: Decimal }): Promise<MarginPosition> {
    return this.noMargin('setBrackets');
  }

  positions(): Promise<MarginPosition[]> {
    return this.noMargin('positions');
  }

  /** Every fill of the account as it is settled, before the order's update that shows it. */
  onFill(listener: (clientOrderId: string, fill: TradeDetail) => void): () => void {
    this.account.fillListeners.add(listener);
    return () => void this.account.fillListeners.delete(listener);
  }

  /** Every change of the account's orders (creation, each fill, close). */
  onOrderUpdate(listener: (order: SpotOrder) => void): () => void {
    this.account.orderListeners.add(listener);
    return () => void this.account.orderListeners.delete(listener);
  }

  /** Run a call that answers at once, mapping its refusal. */
  private call<T>(op: string, fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes a non-SimError through as thrown
      return Promise.reject(mapSimError(err, op));
    }
  }
}
