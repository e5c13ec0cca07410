/**
 * Spot order handling of the simulator: placing, matching (price-time priority against the
 * replayed book and the accounts' resting orders), stops, cancels, and the effect of incoming
 * market data (side snapshots that cross resting orders, public trades that print through them).
 * Everything it changes it reports to a sink; the SimulatedExchange turns that into events.
 */
import { Decimal, deq, dlt, dmin } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import { SimError } from './errors.js';
import type { Ledger } from './ledger.js';
import type { MarketSpec } from './markets.js';
import type { Prng } from './prng.js';
import { SymbolBook, type Execution } from './book.js';
import { closeOrder, settleFill, type FeeRates } from './settlement.js';
import { validateOrder } from './validate-order.js';
import { remaining, type BookSide, type LevelInput, type PlaceOrderRequest, type SimFill, type SimOrder, type SimTrade } from './order-types.js';
import { StopBook } from './stops.js';
import { ChurnMap } from '../core/churn-map.js';
import { MarketMoveGuard } from './market-move.js';

interface EngineSink {
  trade(t: SimTrade): void;
  order(o: SimOrder): void;
  fill(f: SimFill): void;
  depth(symbol: string, side: BookSide): void;
}

export interface EngineDeps {
  clock: Clock;
  ledger: Ledger;
  prng: Prng;
  market(symbol: string): MarketSpec | undefined;
  fees(accountId: string, symbol: string): FeeRates;
  sink: EngineSink;
  /** A market order is cancelled when a fill would be further than this from the last price (0.02). */
  maxMarketMove: Decimal;
  /** Closed orders kept per account for lookups, the newest ones (default: every one, as the exchange keeps them). */
  retainClosedOrders?: number;
}

const ZERO = new Decimal(0);

export class SpotEngine {
  private readonly books = new Map<string, SymbolBook>();
  private readonly last = new Map<string, Decimal>();
  private readonly byAccount = new Map<string, Map<string, SimOrder>>();
  /**
   * Per account, the orders placed that may still be open, in placement order: an order leaves when
   * a read finds it closed, or when the index has doubled since it was last swept. Open orders are
   * read per played candle in a backtest; going through every order ever placed made that read grow
   * with the run.
   */
  private readonly maybeOpen = new Map<string, Map<string, SimOrder>>();
  /** Size of an account's index at which its closed orders are swept out (twice what was left the last time, at least 64). */
  private readonly sweepAt = new Map<string, number>();
  private readonly stops = new StopBook();
  private seq = 0;
  private readonly guard: MarketMoveGuard;

  constructor(private readonly deps: EngineDeps) {
    this.guard = new MarketMoveGuard(deps.maxMarketMove);
  }

  book(symbol: string): SymbolBook {
    let b = this.books.get(symbol);
    if (!b) {
      b = new SymbolBook();
      this.books.set(symbol, b);
    }
    return b;
  }

  lastPrice(symbol: string): Decimal | undefined {
    return this.last.get(symbol);
  }

  setLastPrice(symbol: string, price: Decimal): void {
    this.last.set(symbol, price);
  }

  accountOrders(accountId: string): SimOrder[] {
    return [...(this.byAccount.get(accountId)?.values() ?? [])];
  }

  /**
   * Beyond `retainClosedOrders` closed orders, forget the oldest closed ones (in batches, so a
   * placement costs O(1) on average). `open` bounds the number of open orders from above.
   */
  private forgetClosed(orders: Map<string, SimOrder>, open: number): void {
    const keep = this.deps.retainClosedOrders;
    if (keep === undefined || orders.size <= keep + open + Math.max(64, keep >> 2)) return;
    for (const o of orders.values()) {
      if (orders.size <= keep + open) return;
      if (!o.active) orders.delete(o.clientOrderId);
    }
  }

  /** The account's open orders (of `symbol` when given), oldest first: the engine's own objects, not copies. */
  openOrders(accountId: string, symbol?: string): SimOrder[] {
    const out: SimOrder[] = [];
    const m = this.maybeOpen.get(accountId);
    if (!m) return out;
    for (const o of m.values()) {
      if (!o.active) m.delete(o.clientOrderId);
      else if (symbol === undefined || o.symbol === symbol) out.push(o);
    }
    return out;
  }

  order(accountId: string, clientOrderId: string): SimOrder {
    const o = this.byAccount.get(accountId)?.get(clientOrderId);
    if (!o) throw new SimError(404, `order ${clientOrderId} not found`);
    return o;
  }

  private reference(symbol: string, side: 'BUY' | 'SELL'): Decimal | undefined {
    const book = this.book(symbol);
    return this.last.get(symbol) ?? (side === 'BUY' ? book.ask.best() : book.bid.best());
  }

  place(accountId: string, req: PlaceOrderRequest): SimOrder {
    const market = this.deps.market(req.symbol);
    validateOrder(req, market, market ? this.reference(req.symbol, req.side) : undefined);
    const m = market!;
    const isStop = req.type === 'STOP_LIMIT' || req.type === 'STOP_MARKET';
    const lastPrice = this.last.get(m.symbol);
    if (isStop && !lastPrice) {
      throw new SimError(422, 'The given data was invalid.', { stop_Price: [`market ${m.symbol} has no last trade price to set the stop direction against`] });
    }
    const clientOrderId = req.clientId ?? `${req.type}-${this.deps.prng.uuid()}`;
    let orders = this.byAccount.get(accountId);
    if (orders?.has(clientOrderId)) throw new SimError(409, `client_id ${clientOrderId} was already used`);
    const now = this.deps.clock.now();
    const o: SimOrder = {
      accountId,
      clientOrderId,
      symbol: m.symbol,
      side: req.side,
      type: req.type,
      price: req.price ?? (isStop ? req.stopPrice! : this.reference(m.symbol, req.side)!),
      triggered: !isStop,
      origQty: req.quantity,
      executedQty: ZERO,
      executedSum: ZERO,
      fee: ZERO,
      fills: [],
      status: 'NEW',
      active: true,
      seq: ++this.seq,
      createdAt: now,
      updatedAt: now,
      locked: ZERO,
      lockAsset: req.side === 'BUY' ? m.quoteAsset : m.baseAsset,
    };
    if (isStop) {
      o.stopPrice = req.stopPrice!;
      o.stopCondition = dlt(o.stopPrice, lastPrice!) || (deq(o.stopPrice, lastPrice!) && o.side === 'SELL') ? 'LESS_THAN_OR_EQUAL' : 'GREATER_THAN_OR_EQUAL';
    }
    // Reserve before the order exists: a 402 leaves no trace.
    let plan: Execution[] | undefined;
    if (req.type === 'MARKET') {
      plan = this.marketPlan(o);
      const cost = plan ? plan.reduce((a, e) => a.plus(e.price.mul(e.quantity)), ZERO) : ZERO;
      this.reserve(o, o.side === 'BUY' ? cost : o.origQty);
    } else if (o.side === 'SELL') this.reserve(o, o.origQty);
    else if (req.type === 'STOP_MARKET') this.reserve(o, this.guard.bound('BUY', o.stopPrice!.mul(o.origQty)));
    else this.reserve(o, o.price.mul(o.origQty));
    if (!orders) this.byAccount.set(accountId, (orders = new ChurnMap()));
    orders.set(clientOrderId, o);
    let open = this.maybeOpen.get(accountId);
    if (!open) this.maybeOpen.set(accountId, (open = new ChurnMap()));
    open.set(clientOrderId, o);
    if (open.size >= (this.sweepAt.get(accountId) ?? 64)) {
      for (const x of open.values()) if (!x.active) open.delete(x.clientOrderId);
      this.sweepAt.set(accountId, Math.max(64, 2 * open.size));
    }
    this.forgetClosed(orders, open.size);
    if (req.type === 'MARKET') {
      if (plan) this.execute(o, plan);
      else closeOrder(this.deps.ledger, o, 'CANCELED', now);
    } else if (req.type === 'LIMIT') this.takeThenRest(o);
    else this.stops.add(o);
    this.deps.sink.order(o);
    this.settle(m.symbol);
    return o;
  }

  private reserve(o: SimOrder, amount: Decimal): void {
    if (amount.gt(0)) this.deps.ledger.lock(o.accountId, o.lockAsset, amount);
    o.locked = amount;
  }

  /** The fills a market order would get, or undefined when the exchange would cancel it. */
  private marketPlan(o: SimOrder): Execution[] | undefined {
    const book = this.book(o.symbol);
    const opposite = o.side === 'BUY' ? book.ask : book.bid;
    const need = remaining(o);
    const plan = opposite.plan(need, undefined);
    const filled = plan.reduce((a, e) => a.plus(e.quantity), ZERO);
    if (dlt(filled, need)) return undefined; // larger than the book
    const ref = this.reference(o.symbol, o.side);
    if (!ref) return undefined;
    const worst = plan[plan.length - 1]?.price;
    if (worst && this.guard.exceeds(o.side, ref, worst)) return undefined; // moves the price too far
    return plan;
  }

  /** A limit order (or a triggered stop-limit): take what crosses, rest the remainder. */
  private takeThenRest(o: SimOrder): void {
    const book = this.book(o.symbol);
    const opposite = o.side === 'BUY' ? book.ask : book.bid;
    this.execute(o, opposite.plan(remaining(o), o.price));
    if (o.active) {
      (o.side === 'BUY' ? book.bid : book.ask).addOrder(o);
      this.deps.sink.depth(o.symbol, o.side === 'BUY' ? 'bid' : 'ask');
    }
  }

  /** Apply planned matches with `taker` as the aggressor. */
  private execute(taker: SimOrder, plan: Execution[]): void {
    if (plan.length === 0) return;
    const m = this.deps.market(taker.symbol)!;
    const opposite = taker.side === 'BUY' ? 'ask' : 'bid';
    const side = this.book(taker.symbol).side(opposite);
    for (const ex of plan) {
      const now = this.deps.clock.now();
      if (ex.maker) {
        this.fillOrder(m, ex.maker, ex.price, ex.quantity, true, now);
        if (!ex.maker.active) side.removeOrder(ex.maker);
      } else if (ex.level) ex.level.quantity = ex.level.quantity.minus(ex.quantity);
      this.fillOrder(m, taker, ex.price, ex.quantity, false, now);
      this.print(m.symbol, ex.price, ex.quantity, taker.side === 'BUY', now, true);
    }
    side.compact();
    this.deps.sink.depth(m.symbol, opposite);
  }

  private fillOrder(m: MarketSpec, o: SimOrder, price: Decimal, qty: Decimal, isMaker: boolean, now: number): void {
    const fill = settleFill(this.deps.ledger, m, o, price, qty, isMaker, this.deps.fees(o.accountId, m.symbol), now);
    this.deps.sink.fill(fill);
    this.deps.sink.order(o);
  }

  /** A trade on this exchange: `fromOrder` when it is the fill of an order placed here, not a market trade fed in. */
  private print(symbol: string, price: Decimal, quantity: Decimal, isBuyOrder: boolean, timestamp: number, fromOrder: boolean): void {
    this.last.set(symbol, price);
    this.deps.sink.trade({ symbol, price, quantity, isBuyOrder, timestamp, fromOrder });
  }

  cancel(accountId: string, clientOrderId: string): SimOrder {
    const o = this.order(accountId, clientOrderId);
    if (!o.active) {
      throw new SimError(422, 'The given data was invalid.', {
        client_id: [`order ${clientOrderId} is already ${o.status === 'FILLED' ? 'fully executed' : 'cancelled'}`],
      });
    }
    const book = this.book(o.symbol);
    const side: BookSide = o.side === 'BUY' ? 'bid' : 'ask';
    if (book.side(side).removeOrder(o)) this.deps.sink.depth(o.symbol, side);
    this.stops.remove(o);
    closeOrder(this.deps.ledger, o, 'CANCELED', this.deps.clock.now());
    this.deps.sink.order(o);
    return o;
  }

  /** A new full snapshot of one side of the replayed book; resting account orders it crosses fill as makers at their own price. */
  replaceSide(symbol: string, side: BookSide, levels: LevelInput[]): void {
    const book = this.book(symbol);
    const target = book.side(side);
    target.replace(levels);
    const restingSide = side === 'ask' ? book.bid : book.ask;
    const m = this.deps.market(symbol);
    let crossed = false;
    if (m) {
      for (const o of [...restingSide.orders]) {
        // Orders rest best first: once the new side's best level does not reach one, it reaches none
        // (the plan below would be empty; checked here without computing what is left of the order).
        const best = target.bestReplayed();
        if (!best || target.better(o.price, best.price)) break;
        const plan = target.plan(remaining(o), o.price, true);
        if (plan.length === 0) break;
        for (const ex of plan) {
          const now = this.deps.clock.now();
          ex.level!.quantity = ex.level!.quantity.minus(ex.quantity);
          this.fillOrder(m, o, o.price, ex.quantity, true, now);
          this.print(symbol, o.price, ex.quantity, side === 'ask', now, true);
          crossed = true;
        }
        if (!o.active) restingSide.removeOrder(o);
      }
      target.compact();
    }
    this.deps.sink.depth(symbol, side);
    if (crossed) this.deps.sink.depth(symbol, restingSide.side);
    this.settle(symbol);
  }

  /**
   * A public trade: resting account orders it printed through fill (up to its quantity) at their
   * price; then it sets the last price. The fills are stamped by this exchange's clock, as every
   * other fill here, not with the print's own time: a print fed in from another exchange (paper)
   * carries that exchange's stamp, in whole seconds there, so a print of the second an order was
   * placed in, received after it, would have filled it before it existed. On the clock, the fill
   * is when the print reached this exchange (in a candle backtest the two are the same time).
   */
  publicTrade(t: SimTrade): void {
    const book = this.book(t.symbol);
    const m = this.deps.market(t.symbol);
    if (m) {
      for (const side of [book.bid, book.ask]) {
        let budget = t.quantity;
        for (const o of [...side.orders]) {
          if (budget.lte(0) || !side.better(o.price, t.price)) break;
          const q = dmin(budget, remaining(o));
          this.fillOrder(m, o, o.price, q, true, this.deps.clock.now());
          this.print(t.symbol, o.price, q, side.side === 'ask', t.timestamp, true);
          budget = budget.minus(q);
          if (!o.active) side.removeOrder(o);
        }
        if (dlt(budget, t.quantity)) this.deps.sink.depth(t.symbol, side.side);
      }
    }
    this.print(t.symbol, t.price, t.quantity, t.isBuyOrder, t.timestamp, false);
    this.settle(t.symbol);
  }

  /** Trigger every stop whose condition the last price meets, until none does. */
  private settle(symbol: string): void {
    for (let guard = 0; guard < 10_000; guard++) {
      const last = this.last.get(symbol);
      const o = last ? this.stops.nextTriggered(symbol, last) : undefined;
      if (!o) return;
      this.stops.remove(o);
      o.triggered = true;
      o.updatedAt = this.deps.clock.now();
      if (o.type === 'STOP_LIMIT') this.takeThenRest(o);
      else this.triggerMarket(o);
      this.deps.sink.order(o);
    }
  }

  private triggerMarket(o: SimOrder): void {
    const ledger = this.deps.ledger;
    o.price = this.reference(o.symbol, o.side) ?? o.stopPrice!;
    const plan = this.marketPlan(o);
    if (!plan) return closeOrder(ledger, o, 'CANCELED', this.deps.clock.now());
    if (o.side === 'BUY') {
      const cost = plan.reduce((a, e) => a.plus(e.price.mul(e.quantity)), ZERO);
      ledger.unlock(o.accountId, o.lockAsset, o.locked);
      o.locked = ZERO;
      if (dlt(ledger.free(o.accountId, o.lockAsset), cost)) return closeOrder(ledger, o, 'CANCELED', this.deps.clock.now());
      this.reserve(o, cost);
    }
    this.execute(o, plan);
  }
}
