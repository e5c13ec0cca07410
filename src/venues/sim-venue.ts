/**
 * The in-process venue over a SimulatedExchange account: the venue of backtests and of paper
 * trading. Calls are synchronous underneath (wrapped in promises to satisfy `Venue`); the sim's
 * refusals (`SimError`, status + message + per-field messages) become the typed errors of
 * src/core/errors.ts exactly as the REST client maps the real exchange's HTTP statuses, so the
 * executor reacts to a simulated refusal as it would to a live one. Order changes are pushed from
 * the sim's `order` events (no polling). Instant and margin calls go to the sim's desks when given.
 */
import { isoTime } from '../core/clock.js';
import { perUnit, deq, type Decimal } from '../core/decimal.js';
import { errorForStatus } from '../core/errors.js';
import type {
  Balances,
  Fill,
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
import { parseInstantOrder, parseInstantQuote } from '../exchange/parse/order.js';
import { parseMarginDryRun, parseMarginPosition } from '../exchange/parse/margin.js';
import { parseMarginOrders } from '../exchange/parse/margin-extra.js';
import { marginOrders } from '../sim/margin/extras.js';
import { SimError } from '../sim/errors.js';
import type { SimulatedExchange } from '../sim/exchange.js';
import type { InstantDesk } from '../sim/instant.js';
import type { MarginDesk } from '../sim/margin/desk.js';
import type { PlaceOrderRequest, SimFill, SimOrder } from '../sim/order-types.js';
import type { Venue } from '../execution/venue.js';
import type { TradeDetail } from '../execution/tracked-order.js';
import { ChurnMap } from '../core/churn-map.js';

export interface SimVenueOptions {
  sim: SimulatedExchange;
  /** The sim account the venue trades on. */
  account: string;
  /** `paper` or `backtest` (for logs and the journal). */
  kind?: string;
  /** Desks for instant and margin calls; without them those calls answer 405 (not offered). */
  instant?: InstantDesk;
  margin?: MarginDesk;
}

/** Map a simulator refusal to the typed error the REST client would raise for the same status. */
export function mapSimError(err: unknown, op: string): unknown {
  if (!(err instanceof SimError)) return err;
  const ctx = { status: err.status, path: op, exchangeMessage: err.message };
  const msg = `${op}: ${err.message}${fieldText(err.fields)} (HTTP ${err.status})`;
  return errorForStatus(err.status, msg, ctx, { ...err.fields });
}

function fieldText(fields: Record<string, string[]>): string {
  const parts = Object.entries(fields).map(([k, v]) => `${k}: ${v.join('; ')}`);
  return parts.length ? ` [${parts.join(', ')}]` : '';
}

function toFill(f: SimFill): Fill {
  return {
    symbol: f.symbol,
    price: f.price,
    quantity: f.quantity,
    sum: f.sum,
    fee: f.fee,
    feeAsset: f.feeAsset,
    feeCoefficient: f.feeCoefficient,
    makerFeeCoefficient: f.makerFeeCoefficient,
    takerFeeCoefficient: f.takerFeeCoefficient,
    isBuyer: f.isBuyer,
    timestamp: f.timestamp,
  };
}

/**
 * The derived fields of one sim order, kept while the fields they come from are the same objects
 * (Decimals are immutable: the sim replaces executedQty/executedSum on a fill), so an order
 * converted for the call's answer and again for its event does the Decimal divisions and the date
 * printing once. Values are exactly those computed from scratch.
 */
interface Derived {
  qty: Decimal;
  sum: Decimal;
  executedPrice: Decimal | undefined;
  executedPercent: number;
  price: Decimal;
  origQty: Decimal;
  origSum: Decimal;
  createdMs: number;
  createdAt: string;
  updatedMs: number;
  updatedAt: string;
}

/**
 * Derived fields per account and client id. The sim hands out copies of an order (one per event
 * and one per call answer) that share its Decimal and number fields, so the cache is keyed by the
 * order's identity, not by the copy, and checked field by field (identity) before use. Bounded:
 * cleared when it grows past MAX_DERIVED orders (a miss only recomputes the same values). The two
 * conversions of an order come within one call, so a few recent orders are enough; entries kept
 * longer would be promoted by the young-generation collector and die old (see BACKTEST_RETAINED_ORDERS).
 */
const derivedCache = new ChurnMap<string, Map<string, Derived>>();
const MAX_DERIVED = 64;
let derivedCount = 0;

function cached(o: SimOrder): Derived | undefined {
  return derivedCache.get(o.accountId)?.get(o.clientOrderId);
}

function remember(o: SimOrder, d: Derived): void {
  if (++derivedCount > MAX_DERIVED) {
    derivedCache.clear();
    derivedCount = 1;
  }
  let m = derivedCache.get(o.accountId);
  if (!m) derivedCache.set(o.accountId, (m = new Map()));
  m.set(o.clientOrderId, d);
}

/** executedSum / executedQty; with one fill that is the whole execution, its price (perUnit). */
function executedPriceOf(o: SimOrder): Decimal {
  return perUnit(o.executedSum, o.executedQty, o.fills.length === 1 ? o.fills[0] : undefined);
}

function percentOf(executed: Decimal, orig: Decimal): number {
  if (!orig.gt(0)) return 0;
  if (executed.isZero()) return 0;
  if (deq(executed, orig)) return 100;
  return executed.div(orig).mul(100).toNumber();
}

function derive(o: SimOrder): Derived {
  let d = cached(o);
  if (!d) {
    const createdAt = isoTime(o.createdAt);
    d = {
      qty: o.executedQty,
      sum: o.executedSum,
      executedPrice: o.executedQty.gt(0) ? executedPriceOf(o) : undefined,
      executedPercent: percentOf(o.executedQty, o.origQty),
      price: o.price,
      origQty: o.origQty,
      origSum: o.price.mul(o.origQty),
      createdMs: o.createdAt,
      createdAt,
      updatedMs: o.updatedAt,
      updatedAt: o.updatedAt === o.createdAt ? createdAt : isoTime(o.updatedAt),
    };
    remember(o, d);
    return d;
  }
  if (d.qty !== o.executedQty || d.sum !== o.executedSum) {
    d.qty = o.executedQty;
    d.sum = o.executedSum;
    d.executedPrice = o.executedQty.gt(0) ? executedPriceOf(o) : undefined;
    d.executedPercent = percentOf(o.executedQty, d.origQty);
  }
  if (d.origQty !== o.origQty || d.price !== o.price) {
    d.origQty = o.origQty;
    d.price = o.price;
    d.origSum = o.price.mul(o.origQty);
    d.executedPercent = percentOf(o.executedQty, o.origQty);
  }
  if (d.createdMs !== o.createdAt) {
    d.createdMs = o.createdAt;
    d.createdAt = isoTime(o.createdAt);
  }
  if (d.updatedMs !== o.updatedAt) {
    d.updatedMs = o.updatedAt;
    d.updatedAt = isoTime(o.updatedAt);
  }
  return d;
}

/** A sim order in the core `SpotOrder` shape (the same fields the REST parser fills). */
export function toSpotOrder(o: SimOrder): SpotOrder {
  const d = derive(o);
  const out: SpotOrder = {
    symbol: o.symbol,
    type: o.type,
    side: o.side,
    clientOrderId: o.clientOrderId,
    price: o.price,
    origQty: o.origQty,
    origSum: d.origSum,
    executedQty: o.executedQty,
    executedSum: o.executedSum,
    executedPercent: d.executedPercent,
    fee: o.fee,
    sum: o.executedSum,
    status: o.status,
    active: o.active,
    fills: o.fills.map(toFill),
    transactTime: Math.floor(o.createdAt / 1000),
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
  if (d.executedPrice) out.executedPrice = d.executedPrice;
  if (o.stopPrice) out.stopPrice = o.stopPrice;
  if (o.stopCondition) out.stopPriceCondition = o.stopCondition;
  return out;
}

/** A new spot order as the simulator takes it. */
export function placeRequest(order: NewSpotOrder): PlaceOrderRequest & { clientId: string } {
  return {
    symbol: order.symbol,
    side: order.side,
    type: order.type,
    quantity: order.quantity,
    clientId: order.clientId,
    ...(order.price ? { price: order.price } : {}),
    ...(order.stopPrice ? { stopPrice: order.stopPrice } : {}),
  };
}

/** A sim fill as the engine books it (`Venue.onFill`). */
export function toTradeDetail(f: SimFill): TradeDetail {
  return { quantity: f.quantity, price: f.price, sum: f.sum, fee: f.fee, feeAsset: f.feeAsset, timestamp: f.timestamp };
}

export class SimVenue implements Venue {
  readonly kind: string;
  private readonly sim: SimulatedExchange;
  private readonly account: string;
  /**
   * The sim's last order event (a copy made for that event) and its conversion: every listener of
   * this venue gets the one SpotOrder of an event instead of converting the same copy again (a
   * backtest has two: the execution engine and the harness's live-order set). Listeners read
   * snapshots, never change them.
   */
  private eventIn: SimOrder | undefined;
  private eventOut: SpotOrder | undefined;

  constructor(private readonly opts: SimVenueOptions) {
    this.sim = opts.sim;
    this.account = opts.account;
    this.kind = opts.kind ?? 'paper';
  }

  /** Run a sim call, mapping its refusal. */
  private call<T>(op: string, fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- passes a non-SimError through as thrown
      return Promise.reject(mapSimError(err, op));
    }
  }

  createOrder(order: NewSpotOrder): Promise<SpotOrder> {
    return this.call('createOrder', () => toSpotOrder(this.sim.placeOrder(this.account, placeRequest(order))));
  }

  getOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.call('getOrder', () => toSpotOrder(this.sim.getOrder(this.account, clientOrderId)));
  }

  cancelOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.call('cancelOrder', () => toSpotOrder(this.sim.cancelOrder(this.account, clientOrderId)));
  }

  openOrders(symbol?: string): Promise<SpotOrder[]> {
    return this.call('openOrders', () => this.sim.openOrders(this.account, symbol).map(toSpotOrder));
  }

  balances(): Promise<Balances> {
    return this.call('balances', () => {
      const out: Balances = {};
      for (const [asset, b] of Object.entries(this.sim.balances(this.account))) {
        out[asset] = { asset, fiat: asset === 'TMN', value: b.value, locked: b.locked };
      }
      return out;
    });
  }

  instantOrder(order: NewInstantOrder): Promise<InstantOrder> {
    const desk = this.opts.instant;
    return this.call('instantOrder', () => {
      if (!desk) throw new SimError(405, 'instant orders are not offered by this venue');
      // The desk answers in the exchange's wire shape, its fill time in whole seconds: read here,
      // that would date the fill up to a second before the order was sent. The desk fills in this
      // call, on the simulator's clock: that time, to the millisecond, is the fill's.
      const now = this.sim.clock.now();
      const o = parseInstantOrder(desk.place(this.account, { symbol: order.symbol, side: order.side, quantity: order.quantity }));
      return { ...o, fills: o.fills.map((f) => ({ ...f, timestamp: now })) };
    });
  }

  instantQuote(symbol: string, side: Side): Promise<Decimal> {
    const desk = this.opts.instant;
    return this.call('instantQuote', () => {
      if (!desk) throw new SimError(405, 'instant orders are not offered by this venue');
      return parseInstantQuote(desk.quote(this.account, symbol, side), { symbol, side }, this.sim.clock.now()).price;
    });
  }

  private desk(): MarginDesk {
    if (!this.opts.margin) throw new SimError(405, 'margin trading is not offered by this venue');
    return this.opts.margin;
  }

  previewPosition(req: MarginRequest): Promise<MarginDryRun> {
    return this.call('previewPosition', () => parseMarginDryRun(this.desk().dryRun({ ...req })));
  }

  openPosition(req: MarginRequest): Promise<MarginPosition> {
    return this.call('openPosition', () => parseMarginPosition(this.desk().open(this.account, { ...req })));
  }

  addCollateral(positionId: number, amount: Decimal): Promise<MarginPosition> {
    return this.call('addCollateral', () => parseMarginPosition(this.desk().addCollateral(this.account, positionId, amount)));
  }

  closePosition(positionId: number, price: Decimal): Promise<MarginPosition> {
    return this.call('closePosition', () => parseMarginPosition(this.desk().close(this.account, positionId, price)));
  }

  setBrackets(positionId: number, b: { stopLoss?: Decimal; takeProfit?: Decimal }): Promise<MarginPosition> {
    return this.call('setBrackets', () => parseMarginPosition(this.desk().setBrackets(this.account, positionId, b.stopLoss, b.takeProfit)));
  }

  positions(filter: MarginPositionFilter = {}): Promise<MarginPosition[]> {
    return this.call('positions', () =>
      this.desk()
        .list(this.account, {
          ...(filter.active !== undefined ? { active: filter.active } : {}),
          ...(filter.positionSide ? { positionSide: filter.positionSide } : {}),
          ...(filter.market ? { market: filter.market } : {}),
        })
        .map((p) => parseMarginPosition(p)),
    );
  }

  position(positionId: number): Promise<MarginPosition> {
    return this.call('position', () => parseMarginPosition(this.desk().get(this.account, positionId)));
  }

  marginOrders(positionId: number): Promise<MarginOrder[]> {
    return this.call('marginOrders', () => parseMarginOrders(marginOrders(this.desk(), this.account, { positionId })));
  }

  private converted(o: SimOrder): SpotOrder {
    if (this.eventIn !== o || !this.eventOut) {
      this.eventOut = toSpotOrder(o);
      this.eventIn = o;
    }
    return this.eventOut;
  }

  /**
   * Hands every fill of this account's orders as the simulator computed it (emitted before the
   * order's update that shows it): the engine books it as it is, not diffed out of a snapshot.
   */
  onFill(listener: (clientOrderId: string, fill: TradeDetail) => void): () => void {
    const fn = (f: SimFill) => {
      if (f.accountId !== this.account) return;
      listener(f.clientOrderId, toTradeDetail(f));
    };
    this.sim.on('fill', fn);
    return () => void this.sim.off('fill', fn);
  }

  /** Pushes every change of this account's orders (the sim emits after its state is written). */
  onOrderUpdate(listener: (order: SpotOrder) => void): () => void {
    // The simulator may announce the same state of an order twice (when a fill settles and when the
    // call ends): only a change (status, activity, fills) is converted and passed on.
    const last = new ChurnMap<string, string>();
    const fn = (o: SimOrder) => {
      if (o.accountId !== this.account) return;
      const key = `${o.status}|${o.active ? 1 : 0}|${o.fills.length}`;
      if (last.get(o.clientOrderId) === key) return;
      if (o.active) last.set(o.clientOrderId, key);
      else last.delete(o.clientOrderId);
      listener(this.converted(o));
    };
    this.sim.on('order', fn);
    return () => void this.sim.off('order', fn);
  }
}
