/**
 * The order-book fill model of a book backtest: a pure, synchronous matcher of one account's orders
 * against a recorded book and its trades for one market. Feed it the recording in time order
 * (`snapshot`, `replaceSide`, `level`, `trade`); `place` and `cancel` take effect after the
 * configured latency. A snapshot or a one-side frame replaces that side whole: a level missing from
 * it is gone, and every level that changed moves our queue position there per the queue model.
 *
 *  - An order placed at t becomes live at t + entryLatencyMs; a cancel sent at t takes effect at
 *    t + cancelLatencyMs. Pending actions due at or before a market event's time are applied before
 *    it, so a trade strictly before the cancel's moment still fills the order (the race is lost).
 *  - The exchange's rules are checked when the order is sent, with the simulator's own
 *    `validateOrder` (tick, step, min / max quantity, min notional).
 *  - A live MARKET order walks the opposite levels; like the simulator it is cancelled unfilled
 *    when its worst level lies more than `maxMarketMove` (0.02) from the reference price (the last
 *    trade, else the best opposite price). Whatever the book cannot fill is cancelled.
 *  - A live LIMIT order first takes the opposite levels it crosses (taker), then rests at the back
 *    of its level's queue: the quantity ahead is the level's quantity when it becomes live. Trades
 *    at its price by takers on the other side eat the queue ahead, then the order (maker, at its
 *    price); a trade through its price fills it whole, and so does the opposite side's best price
 *    reaching it (the book crossed it). Level decreases move it per the queue model.
 *  - The model has no market impact: our fills do not change the recorded book.
 */
import { Decimal, ZERO, deq, dgt, dlt, incrementFromDecimals } from '../../core/decimal.js';
import type { Side } from '../../core/types/index.js';
import type { MarketSpec } from '../../sim/markets.js';
import type { PlaceOrderRequest } from '../../sim/order-types.js';
import { validateOrder } from '../../sim/validate-order.js';
import { walkBase } from '../../risk/book-walk.js';
import type { BookLevel } from '../../core/types/market.js';
import type { RawLevel } from '../../market/ports.js';
import { priceKey, VenueBookSide } from './venue-side.js';
import { queueModel, type QueueModel, type QueueModelName } from './queue-model.js';
import { DEFAULT_MAX_MARKET_MOVE, MarketMoveGuard } from '../../sim/market-move.js';

export interface BookFillOptions {
  queueModel: QueueModelName;
  /** Exponent of the `prob` model (1: in proportion). */
  queuePower?: number;
  entryLatencyMs: number;
  cancelLatencyMs: number;
  /** A market order is cancelled when it would fill further than this fraction from the reference (0.02). */
  maxMarketMove?: number;
}

type BookOrderStatus = 'PENDING' | 'OPEN' | 'FILLED' | 'CANCELED' | 'REJECTED';

export interface BookOrder {
  id: string;
  req: PlaceOrderRequest;
  sentAt: number;
  liveAt: number;
  status: BookOrderStatus;
  filled: Decimal;
  /** Quantity ahead in the queue while it rests. */
  ahead: Decimal;
  /** Traded at its price (by takers on the other side) since its level last changed: that change includes it. */
  traded: Decimal;
  cancelAt?: number;
  reason?: string;
}

export interface BookFill {
  orderId: string;
  t: number;
  side: Side;
  price: Decimal;
  quantity: Decimal;
  liquidity: 'maker' | 'taker';
}

type Pending = { at: number; seq: number; kind: 'live' | 'cancel'; id: string };

export class BookFillEngine {
  private readonly bidSide: VenueBookSide;
  private readonly askSide: VenueBookSide;
  private readonly orders = new Map<string, BookOrder>();
  /** The orders resting now (OPEN), in the order they went live (their placement order). */
  private readonly open = new Map<string, BookOrder>();
  private pending: Pending[] = [];
  private fills: BookFill[] = [];
  private last: Decimal | undefined;
  private seq = 0;
  private readonly model: QueueModel;
  private readonly guard: MarketMoveGuard;
  /** The market's quantity step. */
  private readonly step: Decimal;

  constructor(
    readonly market: MarketSpec,
    readonly options: BookFillOptions,
  ) {
    for (const f of ['entryLatencyMs', 'cancelLatencyMs'] as const) {
      const v = options[f];
      if (!Number.isFinite(v) || v < 0) throw new Error(`${f} must be a number of milliseconds ≥ 0, got ${String(v)}`);
    }
    this.model = queueModel(options.queueModel, options.queuePower);
    this.step = incrementFromDecimals(market.stepSize);
    this.bidSide = new VenueBookSide(true, market.tickSize);
    this.askSide = new VenueBookSide(false, market.tickSize);
    this.guard = new MarketMoveGuard(new Decimal(options.maxMarketMove ?? DEFAULT_MAX_MARKET_MOVE));
  }

  order(id: string): BookOrder | undefined {
    return this.orders.get(id);
  }

  /** The bids by price (`toFixed`). */
  get bids(): ReadonlyMap<string, BookLevel> {
    return this.bidSide.levels();
  }

  /** The asks by price (`toFixed`). */
  get asks(): ReadonlyMap<string, BookLevel> {
    return this.askSide.levels();
  }

  private sideOf(side: Side): VenueBookSide {
    return side === 'BUY' ? this.bidSide : this.askSide;
  }

  /** Fills since the last call, in the order they happened. */
  takeFills(): BookFill[] {
    const out = this.fills;
    this.fills = [];
    return out;
  }

  /** Send an order at t. Throws the simulator's 422 SimError when it breaks the exchange's rules. */
  place(t: number, req: PlaceOrderRequest): BookOrder {
    this.advance(t);
    validateOrder(req, req.symbol === this.market.symbol ? this.market : undefined, this.reference(req.side));
    if (req.type !== 'MARKET' && req.type !== 'LIMIT') throw new Error(`the book fill model handles MARKET and LIMIT orders, got ${req.type}`);
    const id = req.clientId ?? `book-${++this.seq}`;
    if (this.orders.has(id)) throw new Error(`client id ${JSON.stringify(id)} is already used`);
    const o: BookOrder = { id, req, sentAt: t, liveAt: t + this.options.entryLatencyMs, status: 'PENDING', filled: ZERO, ahead: ZERO, traded: ZERO };
    this.orders.set(id, o);
    this.schedule(o.liveAt, 'live', id);
    return o;
  }

  /** Send a cancel at t; it takes effect at t + cancelLatencyMs unless the order is done by then. */
  cancel(t: number, id: string): void {
    this.advance(t);
    const o = this.orders.get(id);
    if (!o) throw new Error(`no order ${JSON.stringify(id)} to cancel`);
    if (o.cancelAt !== undefined) return;
    o.cancelAt = t + this.options.cancelLatencyMs;
    this.schedule(o.cancelAt, 'cancel', id);
  }

  /** Apply the pending entries and cancels due at or before t. */
  advance(t: number): void {
    while (this.pending.length > 0 && this.pending[0]!.at <= t) {
      const p = this.pending.shift()!;
      const o = this.orders.get(p.id)!;
      if (p.kind === 'cancel') {
        if (o.status === 'OPEN' || o.status === 'PENDING') this.close(o, 'CANCELED');
      } else if (o.status === 'PENDING') this.goLive(o, p.at);
    }
  }

  /** A full snapshot of the book: both sides replaced (see `replaceSide`). */
  snapshot(t: number, bids: ArrayLike<RawLevel>, asks: ArrayLike<RawLevel>): void {
    this.replaceSide(t, 'BUY', bids);
    this.replaceSide(t, 'SELL', asks);
  }

  /**
   * A full frame of one side, the bids (BUY) or the asks (SELL), best first: every level it no longer
   * holds is gone, and each level that changed moves the queue of our orders resting there per the
   * queue model. When a value of the frame is not a number the side stays as it was, and the answer
   * says what was wrong (undefined: replaced).
   */
  replaceSide(t: number, side: Side, levels: ArrayLike<RawLevel>): string | undefined {
    this.advance(t);
    const book = this.sideOf(side);
    // Only our orders resting on this side have a queue to move: each one's level before and after.
    let prices: Map<string, [price: Decimal, before: Decimal]> | undefined;
    for (const o of this.open.values()) {
      if (o.req.side !== side) continue;
      const key = priceKey(o.req.price!);
      if (!(prices ??= new Map()).has(key)) prices.set(key, [o.req.price!, book.quantityAt(o.req.price!) ?? ZERO]);
    }
    const refused = book.replace(levels, t);
    if (refused !== undefined) return refused;
    if (prices !== undefined) for (const [key, [price, before]] of prices) this.onLevel(side, key, before, book.quantityAt(price) ?? ZERO);
    this.crossedBy(t, side);
    return undefined;
  }

  /** A level of the bids (BUY) or asks (SELL) now holds `quantity` (0: gone). */
  level(t: number, side: Side, price: Decimal, quantity: Decimal): void {
    this.advance(t);
    const book = this.sideOf(side);
    this.onLevel(side, priceKey(price), book.quantityAt(price) ?? ZERO, quantity);
    book.set(price, quantity);
    if (quantity.gt(0)) this.crossedBy(t, side);
  }

  /**
   * After a change of `side`'s levels: our resting orders on the other side that its best price now
   * reaches (a bid at or above the best ask, an ask at or below the best bid) fill whole at their own
   * price, as makers: the book crossed them, so the market traded through them (hftbacktest fills
   * there too, and so does the simulator's paper exchange).
   */
  private crossedBy(t: number, side: Side): void {
    let other = false;
    for (const o of this.open.values()) if (o.req.side !== side) other = true;
    if (!other) return;
    const book = this.sideOf(side);
    for (const o of this.open.values()) {
      if (o.req.side === side) continue;
      const p = o.req.price!;
      // The best ask at or below a bid, the best bid at or above an ask.
      const vs = book.bestVs(p);
      if (vs !== undefined && (o.req.side === 'BUY' ? vs <= 0 : vs >= 0)) this.fill(o, t, p, o.req.quantity.minus(o.filled), 'maker');
    }
  }

  /** A public trade; `takerSide` BUY lifted the asks, SELL hit the bids. */
  trade(t: number, price: Decimal, quantity: Decimal, takerSide: Side): void {
    this.advance(t);
    this.last = price;
    for (const o of this.open.values()) {
      const p = o.req.price!;
      const buy = o.req.side === 'BUY';
      if (buy ? dlt(price, p) : dgt(price, p)) {
        this.fill(o, t, p, o.req.quantity.minus(o.filled), 'maker');
      } else if (deq(price, p) && takerSide !== o.req.side) {
        const eaten = Decimal.min(quantity, o.ahead);
        o.ahead = o.ahead.minus(eaten);
        o.traded = o.traded.plus(quantity);
        const rest = quantity.minus(eaten);
        if (rest.gt(0)) this.fill(o, t, p, Decimal.min(rest, o.req.quantity.minus(o.filled)), 'maker');
      }
    }
  }

  /** An order leaves the book: filled or cancelled. */
  private close(o: BookOrder, status: 'FILLED' | 'CANCELED'): void {
    o.status = status;
    this.open.delete(o.id);
  }

  /**
   * Our orders resting at `key` after their level went from `before` to `after` (a frame or a level
   * update, which shows the trades at the price before it: those are forgotten here, even when the
   * level did not change because as much joined as traded).
   */
  private onLevel(side: Side, key: string, before: Decimal, after: Decimal): void {
    const same = deq(before, after);
    for (const o of this.open.values()) {
      if (o.req.side !== side || priceKey(o.req.price!) !== key) continue;
      if (same && o.traded.isZero()) continue;
      o.ahead = this.model.onLevelChange(o.ahead, before, after, o.traded, this.step);
      o.traded = ZERO;
    }
  }

  private schedule(at: number, kind: Pending['kind'], id: string): void {
    const p: Pending = { at, seq: ++this.seq, kind, id };
    let i = this.pending.length;
    while (i > 0 && (this.pending[i - 1]!.at > at || (this.pending[i - 1]!.at === at && this.pending[i - 1]!.seq > p.seq))) i--;
    this.pending.splice(i, 0, p);
  }

  /** The price a MARKET order of `side` is valued and bounded against: the last trade, else the best opposite price. */
  reference(side: Side): Decimal | undefined {
    if (this.last) return this.last;
    const opposite = this.sideOf(side === 'BUY' ? 'SELL' : 'BUY');
    return opposite.size > 0 ? opposite.level(0).price : undefined;
  }

  /** Levels of a side (BUY: the bids, SELL: the asks), best first. */
  sorted(side: Side): BookLevel[] {
    return this.sideOf(side).sorted();
  }

  private goLive(o: BookOrder, t: number): void {
    o.status = 'OPEN';
    this.open.set(o.id, o);
    const opposite = this.sideOf(o.req.side === 'BUY' ? 'SELL' : 'BUY');
    if (o.req.type === 'MARKET') {
      const ref = this.reference(o.req.side);
      const walk = walkBase(opposite.sorted(), o.req.quantity);
      if (!walk.worst || !ref || this.guard.exceeds(o.req.side, ref, walk.worst)) {
        this.close(o, 'CANCELED');
        o.reason = walk.worst ? this.guard.describe() : 'no opposite book';
        return;
      }
      this.take(o, t, opposite, undefined);
      if (o.status === 'OPEN') this.close(o, 'CANCELED');
      return;
    }
    // A limit the opposite best price does not reach takes nothing: no level of it is read.
    const vs = opposite.bestVs(o.req.price!);
    if (vs !== undefined && (o.req.side === 'BUY' ? vs <= 0 : vs >= 0)) this.take(o, t, opposite, o.req.price!);
    if (o.status !== 'OPEN') return;
    o.ahead = this.sideOf(o.req.side).quantityAt(o.req.price!) ?? ZERO;
  }

  /** Take the opposite levels, best first, up to `limit` (a market order: all of them) or until filled. */
  private take(o: BookOrder, t: number, opposite: VenueBookSide, limit: Decimal | undefined): void {
    const buy = o.req.side === 'BUY';
    for (let i = 0; i < opposite.size; i++) {
      const l = opposite.level(i);
      if (limit && (buy ? dgt(l.price, limit) : dlt(l.price, limit))) break;
      const left = o.req.quantity.minus(o.filled);
      if (left.lte(0)) break;
      this.fill(o, t, l.price, Decimal.min(left, l.quantity), 'taker');
    }
  }

  private fill(o: BookOrder, t: number, price: Decimal, quantity: Decimal, liquidity: BookFill['liquidity']): void {
    if (quantity.lte(0)) return;
    o.filled = o.filled.plus(quantity);
    this.fills.push({ orderId: o.id, t, side: o.req.side, price, quantity, liquidity });
    if (o.filled.gte(o.req.quantity)) this.close(o, 'FILLED');
  }
}
