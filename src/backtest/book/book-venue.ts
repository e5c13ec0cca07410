/**
 * The venue of a book backtest: one account trading spot on recorded books. Matching is the queue
 * model of fill-engine.ts (one engine per market); money moves only through the simulator's ledger
 * and settlement (sim/ledger.ts, sim/settlement.ts), with the simulator's reservations, so fees,
 * locks and balances follow the spot engine's rules: a LIMIT BUY locks price × quantity of the
 * quote, a SELL its quantity of the base; a MARKET BUY locks its quantity at the 2 % bound of the
 * reference price (the most the exchange lets it pay), the unused part released when it ends.
 *
 * Latency is the exchange's answer time: an order sent at t is checked and its funds locked at once
 * (a refusal answers at once, as the exchange refuses before accepting), goes live at
 * t + entryLatencyMs and its answer arrives then; a cancel sent at t takes effect at
 * t + cancelLatencyMs and its answer arrives then: the order CANCELED, or, when a fill won the race,
 * the simulator's refusal of a cancel of a finished order. Fills are pushed (onFill, then
 * onOrderUpdate) as they happen, exactly as SimVenue pushes them. Instant and margin calls are not
 * offered (405).
 */
import type { Clock } from '../../core/clock.js';
import { Decimal, ZERO } from '../../core/decimal.js';
import type { Balances, InstantOrder, MarginDryRun, MarginPosition, NewSpotOrder, SpotOrder } from '../../core/types/index.js';
import type { BookLevel, Side } from '../../core/types/market.js';
import type { TradeDetail } from '../../execution/tracked-order.js';
import type { Venue } from '../../execution/venue.js';
import { SimError } from '../../sim/errors.js';
import { Ledger } from '../../sim/ledger.js';
import type { MarketSpec } from '../../sim/markets.js';
import type { PlaceOrderRequest, SimOrder } from '../../sim/order-types.js';
import { validateOrder } from '../../sim/validate-order.js';
import { closeOrder, settleFill, type FeeRates } from '../../sim/settlement.js';
import { mapSimError, toSpotOrder } from '../../venues/sim-venue.js';
import { BookFillEngine, type BookFillOptions } from './fill-engine.js';

export interface BookVenueOptions {
  /** The run's simulated clock. */
  clock: Clock;
  /** Resolves when the simulated clock reaches `ms` (the replay fires it). */
  at(ms: number): Promise<void>;
  markets: readonly MarketSpec[];
  balances: Record<string, Decimal>;
  /** Maker and taker rates of a market (default: the market's own). */
  fees?(symbol: string): FeeRates;
  fill: BookFillOptions;
}

/** A fill as the report reads it: the order's times and the liquidity it took or gave. */
export interface BookVenueFill {
  clientOrderId: string;
  symbol: string;
  side: Side;
  price: Decimal;
  quantity: Decimal;
  liquidity: 'maker' | 'taker';
  /** When the order was sent, when it went live, when this fill happened (ms). */
  sentAt: number;
  liveAt: number;
  t: number;
}

const ACCOUNT = 'backtest';

interface Market {
  spec: MarketSpec;
  engine: BookFillEngine;
  rates: FeeRates;
}

export class BookVenue implements Venue {
  readonly kind = 'backtest';
  private readonly ledger = new Ledger();
  private readonly markets = new Map<string, Market>();
  private readonly orders = new Map<string, SimOrder>();
  /** Orders not final yet, by client id, with their market. */
  private readonly open = new Map<string, Market>();
  private readonly fillLog: BookVenueFill[] = [];
  private readonly fillListeners = new Set<(clientOrderId: string, fill: TradeDetail) => void>();
  private readonly orderListeners = new Set<(order: SpotOrder) => void>();
  private readonly bookFillListeners = new Set<(fill: BookVenueFill) => void>();
  private seq = 0;

  constructor(private readonly o: BookVenueOptions) {
    for (const spec of o.markets) {
      const rates = o.fees?.(spec.symbol) ?? { makerFee: spec.makerFee, takerFee: spec.takerFee };
      this.markets.set(spec.symbol, { spec, engine: new BookFillEngine(spec, o.fill), rates });
    }
    for (const [asset, v] of Object.entries(o.balances)) if (v.gt(0)) this.ledger.credit(ACCOUNT, asset, v);
  }

  // ------------------------------------------------------------------ the recording, in time order

  snapshot(symbol: string, t: number, bids: readonly BookLevel[], asks: readonly BookLevel[]): void {
    const m = this.markets.get(symbol);
    if (!m) return;
    m.engine.snapshot(t, bids, asks);
    this.settle(m, t);
  }

  side(symbol: string, t: number, side: 'bid' | 'ask', levels: readonly BookLevel[]): void {
    const m = this.markets.get(symbol);
    if (!m) return;
    m.engine.replaceSide(t, side === 'bid' ? 'BUY' : 'SELL', levels);
    this.settle(m, t);
  }

  /** A public print; `isBuyOrder`: the taker bought (it lifted the asks). */
  trade(symbol: string, t: number, price: Decimal, quantity: Decimal, isBuyOrder: boolean): void {
    const m = this.markets.get(symbol);
    if (!m) return;
    m.engine.trade(t, price, quantity, isBuyOrder ? 'BUY' : 'SELL');
    this.settle(m, t);
  }

  /** Entries and cancels due by `t` take effect, on every market. */
  advance(t: number): void {
    for (const m of this.markets.values()) {
      m.engine.advance(t);
      this.settle(m, t);
    }
  }

  // ----------------------------------------------------------------------------- the account

  balance(asset: string): { value: Decimal; locked: Decimal } | undefined {
    const b = this.ledger.balances(ACCOUNT)[asset];
    return b ? { value: b.value, locked: b.locked } : undefined;
  }

  assets(): string[] {
    return Object.keys(this.ledger.balances(ACCOUNT)).sort();
  }

  /** Every fill so far, in the order they happened. */
  fills(): readonly BookVenueFill[] {
    return this.fillLog;
  }

  /** Each fill as it happens, with its liquidity and its order's times (the book metrics). */
  onBookFill(listener: (fill: BookVenueFill) => void): void {
    this.bookFillListeners.add(listener);
  }

  /** Per market: the orders placed and how many got a fill, the quantity ordered and filled. */
  orderTotals(): Record<string, { orders: number; filledOrders: number; quantity: Decimal; filled: Decimal }> {
    const out: Record<string, { orders: number; filledOrders: number; quantity: Decimal; filled: Decimal }> = {};
    for (const o of this.orders.values()) {
      const t = (out[o.symbol] ??= { orders: 0, filledOrders: 0, quantity: ZERO, filled: ZERO });
      t.orders++;
      if (o.executedQty.gt(0)) t.filledOrders++;
      t.quantity = t.quantity.plus(o.origQty);
      t.filled = t.filled.plus(o.executedQty);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------- Venue

  async createOrder(order: NewSpotOrder): Promise<SpotOrder> {
    const t = this.o.clock.now();
    const placed = this.call('createOrder', () => this.place(t, order));
    await this.o.at(t + this.o.fill.entryLatencyMs);
    this.advance(this.o.clock.now());
    return toSpotOrder(placed);
  }

  async cancelOrder(clientOrderId: string): Promise<SpotOrder> {
    const t = this.o.clock.now();
    const o = this.call('cancelOrder', () => this.order(clientOrderId));
    if (o.active) this.markets.get(o.symbol)!.engine.cancel(t, clientOrderId);
    await this.o.at(t + this.o.fill.cancelLatencyMs);
    this.advance(this.o.clock.now());
    if (o.status !== 'CANCELED') {
      throw mapSimError(
        new SimError(422, 'The given data was invalid.', {
          client_id: [`order ${clientOrderId} is already ${o.status === 'FILLED' ? 'fully executed' : 'cancelled'}`],
        }),
        'cancelOrder',
      );
    }
    return toSpotOrder(o);
  }

  getOrder(clientOrderId: string): Promise<SpotOrder> {
    return Promise.resolve(toSpotOrder(this.call('getOrder', () => this.order(clientOrderId))));
  }

  openOrders(symbol?: string): Promise<SpotOrder[]> {
    const out: SpotOrder[] = [];
    for (const id of this.open.keys()) {
      const o = this.orders.get(id)!;
      if (!symbol || o.symbol === symbol) out.push(toSpotOrder(o));
    }
    return Promise.resolve(out);
  }

  balances(): Promise<Balances> {
    const out: Balances = {};
    for (const [asset, b] of Object.entries(this.ledger.balances(ACCOUNT))) out[asset] = { asset, fiat: asset === 'TMN', value: b.value, locked: b.locked };
    return Promise.resolve(out);
  }

  instantOrder(): Promise<InstantOrder> {
    return this.notOffered('instantOrder', 'instant orders are not offered in book backtests');
  }
  previewPosition(): Promise<MarginDryRun> {
    return this.notOffered('previewPosition', 'margin trading is not offered in book backtests');
  }
  openPosition(): Promise<MarginPosition> {
    return this.notOffered('openPosition', 'margin trading is not offered in book backtests');
  }
  addCollateral(): Promise<MarginPosition> {
    return this.notOffered('addCollateral', 'margin trading is not offered in book backtests');
  }
  closePosition(): Promise<MarginPosition> {
    return this.notOffered('closePosition', 'margin trading is not offered in book backtests');
  }
  setBrackets(): Promise<MarginPosition> {
    return this.notOffered('setBrackets', 'margin trading is not offered in book backtests');
  }
  positions(): Promise<MarginPosition[]> {
    return Promise.resolve([]);
  }

  onFill(listener: (clientOrderId: string, fill: TradeDetail) => void): () => void {
    this.fillListeners.add(listener);
    return () => void this.fillListeners.delete(listener);
  }

  onOrderUpdate(listener: (order: SpotOrder) => void): () => void {
    this.orderListeners.add(listener);
    return () => void this.orderListeners.delete(listener);
  }

  // ------------------------------------------------------------------------------- internals

  private notOffered<T>(op: string, why: string): Promise<T> {
    // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the mapped typed error
    return Promise.reject(mapSimError(new SimError(405, why), op));
  }

  /** Run a call, its simulator refusal mapped to the typed error the REST client raises. */
  private call<T>(op: string, fn: () => T): T {
    try {
      return fn();
    } catch (err) {
      throw mapSimError(err, op);
    }
  }

  private order(clientOrderId: string): SimOrder {
    const o = this.orders.get(clientOrderId);
    if (!o) throw new SimError(404, `order ${clientOrderId} not found`);
    return o;
  }

  /** Check, lock, hand to the market's fill engine (it goes live after the entry latency). */
  private place(t: number, req: NewSpotOrder): SimOrder {
    const m = this.markets.get(req.symbol);
    if (!m) throw new SimError(422, 'The given data was invalid.', { symbol: [`market ${req.symbol} is not in this backtest`] });
    if (req.type !== 'MARKET' && req.type !== 'LIMIT') {
      throw new SimError(422, 'The given data was invalid.', { type: [`${req.type} orders are not offered in book backtests (MARKET and LIMIT are)`] });
    }
    const clientOrderId = req.clientId ?? `book-${++this.seq}`;
    if (this.orders.has(clientOrderId)) throw new SimError(409, `client_id ${clientOrderId} was already used`);
    const spec = m.spec;
    const ref = m.engine.referencePrice(req.side);
    const price = req.price ?? ref;
    if (!price) throw new SimError(422, 'The given data was invalid.', { price: [`market ${spec.symbol} has no price yet to place a market order against`] });
    const buy = req.side === 'BUY';
    const lockAsset = buy ? spec.quoteAsset : spec.baseAsset;
    const lock = !buy ? req.quantity : req.type === 'MARKET' ? m.engine.marketBound('BUY', price).mul(req.quantity) : price.mul(req.quantity);
    const o: SimOrder = {
      accountId: ACCOUNT,
      clientOrderId,
      symbol: spec.symbol,
      side: req.side,
      type: req.type,
      price,
      triggered: true,
      origQty: req.quantity,
      executedQty: ZERO,
      executedSum: ZERO,
      fee: ZERO,
      fills: [],
      status: 'NEW',
      active: true,
      seq: ++this.seq,
      createdAt: t,
      updatedAt: t,
      locked: ZERO,
      lockAsset,
    };
    // The exchange's rules first (the simulator's own checks), then the funds: a refusal leaves no trace.
    const placed: PlaceOrderRequest = {
      symbol: spec.symbol,
      side: req.side,
      type: req.type,
      quantity: req.quantity,
      clientId: clientOrderId,
      ...(req.price ? { price: req.price } : {}),
    };
    validateOrder(placed, spec, ref);
    if (lock.gt(0)) this.ledger.lock(ACCOUNT, lockAsset, lock);
    o.locked = lock;
    m.engine.place(t, placed);
    this.orders.set(clientOrderId, o);
    this.open.set(clientOrderId, m);
    this.emitOrder(o);
    return o;
  }

  /** Book the fills the market's engine made, then close the orders it ended. */
  private settle(m: Market, t: number): void {
    for (const f of m.engine.takeFills()) {
      const o = this.orders.get(f.orderId);
      if (!o) continue;
      const fill = settleFill(this.ledger, m.spec, o, f.price, f.quantity, f.liquidity === 'maker', m.rates, f.t);
      const bo = m.engine.order(f.orderId)!;
      const logged: BookVenueFill = {
        clientOrderId: o.clientOrderId,
        symbol: o.symbol,
        side: o.side,
        price: f.price,
        quantity: f.quantity,
        liquidity: f.liquidity,
        sentAt: bo.sentAt,
        liveAt: bo.liveAt,
        t: f.t,
      };
      this.fillLog.push(logged);
      for (const l of this.bookFillListeners) l(logged);
      const detail: TradeDetail = {
        quantity: fill.quantity,
        price: fill.price,
        sum: fill.sum,
        fee: fill.fee,
        feeAsset: fill.feeAsset,
        timestamp: fill.timestamp,
      };
      for (const l of this.fillListeners) l(o.clientOrderId, detail);
      this.emitOrder(o);
    }
    for (const [id, market] of this.open) {
      if (market !== m) continue;
      const o = this.orders.get(id)!;
      const bo = m.engine.order(id);
      if (o.active && bo && (bo.status === 'CANCELED' || bo.status === 'REJECTED')) {
        closeOrder(this.ledger, o, 'CANCELED', t);
        this.emitOrder(o);
      }
      if (!o.active) this.open.delete(id);
    }
  }

  private emitOrder(o: SimOrder): void {
    if (this.orderListeners.size === 0) return;
    const snap = toSpotOrder(o);
    for (const l of this.orderListeners) l(snap);
  }
}
