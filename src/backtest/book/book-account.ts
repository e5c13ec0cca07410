/**
 * The account of a book backtest: its orders (the simulator's own `SimOrder` records) and its
 * money, moved only by the simulator's Ledger and settlement (`settleFill`, `closeOrder`), so
 * locks, fees and balances follow the same rules as the simulator's spot engine. It books what the
 * fill engine decides (fills, cancellations) and pushes each change to the venue's listeners in the
 * shapes SimVenue pushes: a fill to `onFill` first, then the order to `onOrderUpdate`.
 */
import { Decimal, ZERO } from '../../core/decimal.js';
import type { SpotOrder } from '../../core/types/index.js';
import type { TradeDetail } from '../../execution/tracked-order.js';
import { Ledger } from '../../sim/ledger.js';
import type { MarketSpec } from '../../sim/markets.js';
import type { PlaceOrderRequest, SimOrder } from '../../sim/order-types.js';
import { closeOrder, settleFill, type FeeRates } from '../../sim/settlement.js';
import { SimError } from '../../sim/errors.js';
import { toSpotOrder, toTradeDetail } from '../../venues/sim-venue.js';
import type { BookFill, BookOrder } from './fill-engine.js';

/** The ledger's account id of the one account a book venue trades for. */
const ACCOUNT = 'book';

/** One fill of the run, for the report. */
export interface BookVenueFill {
  clientOrderId: string;
  symbol: string;
  side: SpotOrder['side'];
  t: number;
  price: Decimal;
  quantity: Decimal;
  sum: Decimal;
  fee: Decimal;
  feeAsset: string;
  liquidity: 'maker' | 'taker';
  /** When the order was sent and when it went live at the exchange. */
  sentAt: number;
  liveAt: number;
}

interface Entry {
  order: SimOrder;
  sentAt: number;
  liveAt: number;
  /** True once a cancel request (not the exchange) closed it. */
  canceledByRequest: boolean;
}

/** The simulator's refusal of a cancel (or a lookup) of a finished order. */
export function finishedError(o: SimOrder): SimError {
  return new SimError(422, 'The given data was invalid.', {
    client_id: [`order ${o.clientOrderId} is already ${o.status === 'FILLED' ? 'fully executed' : 'cancelled'}`],
  });
}

export class BookAccount {
  readonly ledger = new Ledger();
  private readonly entries = new Map<string, Entry>();
  /** Open orders in placement order. */
  private readonly open = new Map<string, Entry>();
  private readonly log: BookVenueFill[] = [];
  readonly fillListeners = new Set<(clientOrderId: string, fill: TradeDetail) => void>();
  readonly orderListeners = new Set<(order: SpotOrder) => void>();
  /** Each fill as it is booked, with its liquidity and its order's times (the book metrics). */
  readonly bookFillListeners = new Set<(fill: BookVenueFill) => void>();

  constructor(
    balances: Record<string, Decimal>,
    private readonly rates: (symbol: string) => FeeRates,
  ) {
    for (const [asset, v] of Object.entries(balances)) {
      if (!(v instanceof Decimal) || v.isNeg()) throw new Error(`balances.${asset} must be a Decimal ≥ 0, got ${String(v)}`);
      this.ledger.credit(ACCOUNT, asset, v);
    }
  }

  /** Per market: the orders placed and how many got a fill, the quantity ordered and filled. */
  orderTotals(): Record<string, { orders: number; filledOrders: number; quantity: Decimal; filled: Decimal }> {
    const out: Record<string, { orders: number; filledOrders: number; quantity: Decimal; filled: Decimal }> = {};
    for (const { order: o } of this.entries.values()) {
      const t = (out[o.symbol] ??= { orders: 0, filledOrders: 0, quantity: ZERO, filled: ZERO });
      t.orders++;
      if (o.executedQty.gt(0)) t.filledOrders++;
      t.quantity = t.quantity.plus(o.origQty);
      t.filled = t.filled.plus(o.executedQty);
    }
    return out;
  }

  has(clientOrderId: string): boolean {
    return this.entries.has(clientOrderId);
  }

  /** The order, or the simulator's 404. */
  order(clientOrderId: string): SimOrder {
    const e = this.entries.get(clientOrderId);
    if (!e) throw new SimError(404, `order ${clientOrderId} not found`);
    return e.order;
  }

  canceledByRequest(clientOrderId: string): boolean {
    return this.entries.get(clientOrderId)?.canceledByRequest ?? false;
  }

  openOrders(symbol?: string): SimOrder[] {
    const out: SimOrder[] = [];
    for (const e of this.open.values()) if (symbol === undefined || e.order.symbol === symbol) out.push(e.order);
    return out;
  }

  /**
   * Record a new order sent at t and lock its funds (402 when the free balance does not cover them;
   * then nothing is recorded). `reference` is the MARKET order's price, `marketCost` what its
   * planned walk of the asks would cost (a MARKET BUY locks that).
   */
  create(m: MarketSpec, req: PlaceOrderRequest & { clientId: string }, t: number, liveAt: number, reference: Decimal, marketCost: Decimal): SimOrder {
    if (this.entries.has(req.clientId)) throw new SimError(409, `client_id ${req.clientId} was already used`);
    const o: SimOrder = {
      accountId: ACCOUNT,
      clientOrderId: req.clientId,
      symbol: m.symbol,
      side: req.side,
      type: req.type,
      price: req.price ?? reference,
      triggered: true,
      origQty: req.quantity,
      executedQty: ZERO,
      executedSum: ZERO,
      fee: ZERO,
      fills: [],
      status: 'NEW',
      active: true,
      seq: this.entries.size + 1,
      createdAt: t,
      updatedAt: t,
      locked: ZERO,
      lockAsset: req.side === 'BUY' ? m.quoteAsset : m.baseAsset,
    };
    const lock = req.side === 'SELL' ? req.quantity : req.type === 'MARKET' ? marketCost : o.price.mul(req.quantity);
    if (lock.gt(0)) this.ledger.lock(ACCOUNT, o.lockAsset, lock);
    o.locked = lock;
    const e: Entry = { order: o, sentAt: t, liveAt, canceledByRequest: false };
    this.entries.set(o.clientOrderId, e);
    this.open.set(o.clientOrderId, e);
    this.emitOrder(o);
    return o;
  }

  /** Settle one fill of the fill engine into the ledger and push it. */
  settle(m: MarketSpec, f: BookFill): void {
    const e = this.entries.get(f.orderId);
    if (!e || !e.order.active) return;
    const o = e.order;
    if (o.type === 'MARKET' && o.side === 'BUY') {
      // The book it walked at going live may cost more than the walk planned when it was sent: the
      // rest is locked now, and when the free balance cannot cover it the order is cancelled (as
      // the simulator cancels a triggered market order it cannot fund).
      const extra = f.price.mul(f.quantity).minus(o.locked);
      if (extra.gt(0)) {
        if (this.ledger.free(ACCOUNT, o.lockAsset).lt(extra)) return this.close(o.clientOrderId, 'CANCELED', f.t, false);
        this.ledger.lock(ACCOUNT, o.lockAsset, extra);
        o.locked = o.locked.plus(extra);
      }
    }
    const fill = settleFill(this.ledger, m, o, f.price, f.quantity, f.liquidity === 'maker', this.rates(m.symbol), f.t);
    const logged: BookVenueFill = {
      clientOrderId: o.clientOrderId,
      symbol: o.symbol,
      side: o.side,
      t: f.t,
      price: fill.price,
      quantity: fill.quantity,
      sum: fill.sum,
      fee: fill.fee,
      feeAsset: fill.feeAsset,
      liquidity: f.liquidity,
      sentAt: e.sentAt,
      liveAt: e.liveAt,
    };
    this.log.push(logged);
    for (const l of this.bookFillListeners) l(logged);
    if (!o.active) this.open.delete(o.clientOrderId);
    const detail = toTradeDetail(fill);
    for (const l of this.fillListeners) l(o.clientOrderId, detail);
    this.emitOrder(o);
  }

  /** Close the open orders of `symbol` the fill engine has cancelled (funds released). */
  closeCanceled(symbol: string, engineOrder: (id: string) => BookOrder | undefined): void {
    for (const e of [...this.open.values()]) {
      if (e.order.symbol !== symbol) continue;
      const b = engineOrder(e.order.clientOrderId);
      if (b?.status !== 'CANCELED') continue;
      // A MARKET order is cancelled by the exchange when it goes live, unless the cancel came first.
      const byRequest = b.cancelAt !== undefined && (e.order.type !== 'MARKET' || b.cancelAt < b.liveAt);
      this.close(e.order.clientOrderId, 'CANCELED', byRequest ? b.cancelAt! : b.liveAt, byRequest);
    }
  }

  private close(id: string, status: 'FILLED' | 'CANCELED', t: number, byRequest: boolean): void {
    const e = this.entries.get(id)!;
    closeOrder(this.ledger, e.order, status, t);
    e.canceledByRequest = byRequest;
    this.open.delete(id);
    this.emitOrder(e.order);
  }

  private emitOrder(o: SimOrder): void {
    if (this.orderListeners.size === 0) return;
    const out = toSpotOrder(o);
    for (const l of this.orderListeners) l(out);
  }

  fills(): readonly BookVenueFill[] {
    return this.log;
  }

  balance(asset: string): { value: Decimal; locked: Decimal } | undefined {
    return this.ledger.balances(ACCOUNT)[asset];
  }

  assets(): string[] {
    return Object.keys(this.ledger.balances(ACCOUNT));
  }
}
