/**
 * Brackets: the stop loss and take profit an entry order carries (`brackets: { stopLoss, takeProfit }`),
 * carried out in every mode through the execution engine's public API (`submitOrder`, `cancel`).
 * The exchange has no OCO order and locks the coins of every resting order, so the pair is emulated
 * (docs/strategies.md, Brackets): the stop rests on the exchange (STOP_MARKET: it protects while the
 * bot is down) and the take profit is watched here on the last trade price; reaching it cancels the
 * stop, then exits at MARKET. One price only: the STOP_MARKET, or a LIMIT at the take profit. The
 * children (bracket-orders.ts) are sized to what the entry filled (bracket-sizing.ts), tagged with
 * the entry (`bracket-sl:<id>`, `bracket-tp:<id>`), the entry's strategy's, and not risk-checked.
 * A child cancelled by anyone else or refused ends its bracket, except the bot's own stop's cancel
 * (`stopping()` first): that suspends it, and the next start places its legs again at the market's
 * first price (`resume()`). Every decision is journaled on the entry's events and the state kept in
 * the store: records load at construction (before recovery, whose fills they must see) and
 * `resume()` after recovery places what is missing.
 */
import { Decimal } from '../core/decimal.js';
import type { Logger } from '../core/logger.js';
import type { FillEvent, OrderUpdate } from '../core/views.js';
import type { BracketRecord, BracketStore } from './bracket-state.js';
import type { ExecutionEngine } from './engine.js';
import { isFinal, type TrackedOrder } from './tracked-order.js';
import { netOf, placeable, remainingOf, type BracketMarket } from './bracket-sizing.js';
import { bracketDone, childIntent, legOf, newBracket, type Leg } from './bracket-orders.js';

export { memoryBracketStore } from './bracket-state.js';
import { bracketOf, restingLegs, STRATEGY_EXIT } from './bracket-state.js';
export type { BracketRecord, BracketStore } from './bracket-state.js';

export interface BracketDeps {
  engine: ExecutionEngine;
  store: BracketStore;
  market(symbol: string): BracketMarket | undefined;
  /** The market's last traded price, as the kernel keeps it for every mode (kernel/market-prices.ts). */
  last(symbol: string): Decimal | undefined;
  logger: Logger;
}

const ZERO = new Decimal(0);

export class BracketManager {
  private readonly records = new Map<string, BracketRecord>();
  /** Entries with a child being placed (one call at a time per bracket). */
  private readonly busy = new Set<string>();
  /** Entries that changed while busy: looked at again when the call ends. */
  private readonly again = new Set<string>();
  /** Children whose cancel this module asked for. */
  private readonly cancelling = new Set<string>();
  /** The bot is stopping and cancels the open orders: a child cancelled now suspends its bracket. */
  private isStopping = false;
  /** Markets with a trade price since the start: a suspended bracket waits for its market's first. */
  private readonly priced = new Set<string>();

  constructor(private readonly deps: BracketDeps) {
    for (const r of deps.store.load()) this.records.set(r.entry, r);
    // Fills come from the kernel once it has booked them (onFill), so an exit placed and filled in
    // the same call is booked after its entry. Order updates come from the engine.
    deps.engine.on('order', (u) => this.onOrder(u));
  }

  /** The brackets under way (copies). */
  list(): BracketRecord[] {
    return [...this.records.values()].map((r) => ({ ...r }));
  }

  /** Forget every bracket (a paper run starts a fresh exchange: the old children are gone). */
  reset(): void {
    for (const e of this.records.keys()) this.deps.store.remove(e);
    this.records.clear();
  }

  /**
   * After recovery: link the recovered children and place what is missing. A bracket suspended by
   * the last stop places its legs at its market's first trade price (the last price recovery may
   * have noted is an old fill's, and a stop's direction is set against the price).
   */
  resume(): void {
    for (const o of this.deps.engine.liveOrders()) this.link(o.tag, o.clientOrderId);
    for (const r of [...this.records.values()]) {
      if (r.suspended) {
        this.finishIfDone(r);
        if (this.records.has(r.entry))
          this.deps.logger.info(
            { entry: r.entry, strategy: r.strategy, symbol: r.symbol },
            `bracket of ${r.entry}: suspended by the last stop; its legs are placed again at the first ${r.symbol} price`,
          );
      }
      this.sync(r);
      this.finishIfDone(r);
    }
  }

  /**
   * The bot is about to stop and cancel its open orders (not with --keep-orders): a bracket whose
   * leg that cancel ends is suspended, not ended, and nothing new is placed for an open bracket
   * (an exit under way still goes on).
   */
  stopping(): void {
    this.isStopping = true;
    // Marked now: a cancel whose answer is lost is read back at the next start, and suspends too.
    for (const r of this.records.values()) {
      if (r.phase !== 'open' || (!r.stop && !r.target)) continue;
      r.suspended = true;
      this.save(r);
    }
  }

  /** The brackets the stop suspended (copies): the stop summary lists them. */
  suspended(): BracketRecord[] {
    return this.list().filter((r) => r.suspended);
  }

  /** Take-profit prices watched here in a market (a backtest plays them into the candle path). */
  triggers(symbol: string): number[] {
    const out: number[] = [];
    for (const r of this.records.values()) if (r.symbol === symbol && r.phase === 'open' && this.localTarget(r)) out.push(Number(r.takeProfit));
    return out;
  }

  /** A trade price of a market (the kernel's, after it noted it): a take profit watched here may be reached. */
  onPrice(symbol: string, price: Decimal): void {
    if (this.records.size === 0) return;
    const first = !this.priced.has(symbol);
    if (first) this.priced.add(symbol);
    if (this.isStopping) return;
    for (const r of [...this.records.values()]) {
      if (r.symbol !== symbol || r.phase !== 'open' || !this.localTarget(r)) continue;
      const tp = new Decimal(r.takeProfit!);
      const reached = r.exitSide === 'SELL' ? price.gte(tp) : price.lte(tp);
      if (!reached || remainingOf(r, this.deps.market(r.symbol)).lte(0)) continue;
      this.startExit(r, `take profit ${r.takeProfit} reached (last trade ${price.toFixed()})`);
    }
    // The market's first price since the start: the brackets the last stop suspended act again.
    if (first) for (const r of [...this.records.values()]) if (r.suspended && r.symbol === symbol) this.sync(r);
  }

  /**
   * A strategy exits its position (an `exit` intent): each bracket of `strategy` in `symbol` cancels
   * its resting legs (the stop that locks the coins), then exits at market; an entry still resting is
   * cancelled. Returns what those brackets will sell (or buy back), rounded to the market's step.
   */
  exit(strategy: string, symbol: string): Decimal {
    let total = ZERO;
    for (const r of [...this.records.values()]) {
      if (r.strategy !== strategy || r.symbol !== symbol) continue;
      const entry = this.deps.engine.orders.get(r.entry);
      if (entry && !isFinal(entry.state))
        this.deps.engine
          .cancel(entry.clientOrderId)
          .catch((err: unknown) => this.deps.logger.error({ entry: r.entry, err }, 'bracket: cancelling the entry for an exit failed'));
      total = total.plus(remainingOf(r, this.deps.market(r.symbol)));
      if (r.phase === 'open') this.startExit(r, `${STRATEGY_EXIT} ${strategy}`);
    }
    return total;
  }

  /** What the resting legs of the strategy's brackets in a market hold (base), and which legs they are. */
  resting(strategy: string, symbol: string): { quantity: Decimal; legs: string[] } {
    return restingLegs(this.records.values(), this.deps.engine.orders, strategy, symbol);
  }

  /** A fill of the engine's orders, after the kernel booked it (kernel.ts calls this). */
  onFill(f: FillEvent): void {
    const child = bracketOf(f.tag);
    if (child) {
      const r = this.records.get(child.entry);
      if (!r) return;
      this.link(f.tag, f.clientOrderId);
      r.exited = new Decimal(r.exited).plus(f.quantity).toFixed();
      this.save(r);
      if (child.leg === 'sl' || f.clientOrderId === r.target) {
        this.note(r, {
          bracket: child.leg === 'sl' ? 'stop loss filled' : 'take profit filled',
          child: f.clientOrderId,
          price: f.price.toFixed(),
          quantity: f.quantity.toFixed(),
        });
      }
      this.finishIfDone(r);
      return;
    }
    const o = this.deps.engine.orders.get(f.clientOrderId);
    if (!o?.brackets) return;
    let r = this.records.get(o.clientOrderId);
    if (!r && (r = newBracket(o, o.brackets))) this.records.set(r.entry, r);
    if (!r) return;
    r.held = new Decimal(r.held).plus(netOf(f, this.deps.market(r.symbol))).toFixed();
    this.save(r);
    this.sync(r);
  }

  private onOrder(u: OrderUpdate): void {
    const child = bracketOf(u.order.tag);
    const id = u.order.clientOrderId;
    if (!child) {
      // The entry: once final, a bracket whose entry filled nothing ends.
      if (!isFinal(u.order.state)) return;
      const r = this.records.get(id);
      if (r) this.finishIfDone(r);
      return;
    }
    const r = this.records.get(child.entry);
    if (!r) return;
    if (!isFinal(u.order.state)) {
      this.link(u.order.tag, id);
      return;
    }
    const leg = legOf(r, id) ?? (u.order.type === 'MARKET' ? 'exit' : child.leg === 'sl' ? 'stop' : 'target');
    if (r[leg] === id) delete r[leg];
    const requested = this.cancelling.delete(id);
    this.save(r);
    if (u.order.state !== 'filled' && !requested) {
      const reason = u.reason ?? u.order.state;
      if ((this.isStopping || r.suspended) && u.order.state === 'cancelled') {
        this.suspend(r, leg, id);
        return;
      }
      if (leg === 'exit' && !r.exitFailed && r.stopLoss && !r.why?.startsWith('stop')) {
        // A take-profit exit the exchange cancelled or refused: keep the stop (placed again), drop
        // the take profit so it does not churn orders at every trade beyond it.
        this.deps.logger.warn({ entry: r.entry, child: id, reason }, 'bracket: the market exit was not filled; the bracket keeps its stop loss only');
        this.note(r, { bracket: 'exit not filled', child: id, reason });
        delete r.takeProfit;
        r.phase = 'open';
        r.exitFailed = true;
        delete r.why;
        this.save(r);
      } else if (leg === 'exit') {
        this.deps.logger.error({ entry: r.entry, child: id, reason }, 'bracket ended: its market exit was not filled; what the entry bought is not protected');
        this.note(r, { bracket: 'ended', child: id, state: u.order.state, reason });
        this.end(r);
        return;
      } else if (u.order.filled.lt(u.order.quantity)) {
        this.deps.logger.warn(
          { entry: r.entry, child: id, leg, state: u.order.state, reason },
          `bracket ended: its ${leg === 'stop' ? 'stop loss' : 'take profit'} order was ${u.order.state} (not by the bracket)`,
        );
        this.note(r, { bracket: 'ended', child: id, state: u.order.state, reason });
        this.end(r);
        return;
      }
    }
    this.sync(r);
    this.finishIfDone(r);
  }

  // -------------------------------------------------------------------------------- actions

  /** Make the children match the bracket's state (one call at a time). */
  private sync(r: BracketRecord): void {
    if (!this.records.has(r.entry)) return;
    if (this.busy.has(r.entry)) {
      this.again.add(r.entry);
      return;
    }
    const e = this.deps.engine;
    const live = (id: string | undefined): TrackedOrder | undefined => {
      const o = id ? e.orders.get(id) : undefined;
      return o && !isFinal(o.state) ? o : undefined;
    };
    // A suspended bracket waits for its market's first price after the start.
    if (r.suspended && !this.priced.has(r.symbol)) return;
    const rem = remainingOf(r, this.deps.market(r.symbol));
    if (r.phase === 'exiting') {
      for (const leg of ['stop', 'target'] as const) {
        const o = live(r[leg]);
        if (o) return this.cancel(o.clientOrderId);
      }
      if (live(r.exit)) return;
      if (placeable(r, rem, this.deps.market(r.symbol))) this.place(r, 'exit', rem);
      return;
    }
    // The bot stops: an open bracket places nothing new (its resting leg is cancelled by the stop).
    if (this.isStopping) return;
    const leg: Leg | undefined = r.stopLoss ? 'stop' : r.takeProfit ? 'target' : undefined;
    if (!leg) return;
    const cur = live(r[leg]);
    if (cur) {
      this.unsuspend(r, 'its leg still rests on the exchange (the stop did not cancel it)');
      // Resize a resting child that has not started filling to what the entry has filled since.
      if (cur.filled.isZero() && !cur.quantity.eq(rem) && placeable(r, rem, this.deps.market(r.symbol))) this.cancel(cur.clientOrderId);
      return;
    }
    if (!placeable(r, rem, this.deps.market(r.symbol))) return;
    const last = leg === 'stop' ? this.deps.last(r.symbol) : undefined;
    if (last) {
      const sl = new Decimal(r.stopLoss!);
      if (r.exitSide === 'SELL' ? last.lte(sl) : last.gte(sl)) {
        this.startExit(r, `stop loss ${r.stopLoss} already crossed (last price ${last.toFixed()})`);
        return;
      }
    }
    this.place(r, leg, rem);
  }

  private startExit(r: BracketRecord, why: string): void {
    this.unsuspend(r, 'exiting at market');
    r.phase = 'exiting';
    r.why = why;
    this.save(r);
    this.deps.logger.info({ entry: r.entry, strategy: r.strategy, symbol: r.symbol }, `bracket: ${why}: cancelling the resting leg, then exiting at market`);
    this.note(r, { bracket: 'exiting', why });
    this.sync(r);
  }

  private cancel(id: string): void {
    if (this.cancelling.has(id)) return;
    this.cancelling.add(id);
    this.deps.engine.cancel(id).catch((err: unknown) => this.deps.logger.error({ child: id, err }, 'bracket: cancel failed'));
  }

  private place(r: BracketRecord, leg: Leg, quantity: Decimal): void {
    const intent = childIntent(r, leg, quantity, this.deps.market(r.symbol)?.priceTick);
    this.unsuspend(r, 'placed again at start');
    this.busy.add(r.entry);
    this.note(r, { bracket: `placing ${leg === 'exit' ? 'market exit' : leg === 'stop' ? 'stop loss' : 'take profit'}`, quantity: quantity.toFixed() });
    this.deps.engine
      .submitOrder(intent, { account: r.account })
      .then((o) => {
        if (!isFinal(o.state) && this.records.has(r.entry)) {
          r[leg] = o.clientOrderId;
          this.save(r);
        }
      })
      .catch((err: unknown) => this.deps.logger.error({ entry: r.entry, leg, err }, 'bracket: placing a child failed'))
      .finally(() => {
        this.busy.delete(r.entry);
        this.again.delete(r.entry);
        // What happened during the call (a fill, a refusal, a further entry fill) is settled now.
        this.sync(r);
        this.finishIfDone(r);
      });
  }

  /** A bracket is done when its entry is final and nothing is left to close, or left resting. */
  private finishIfDone(r: BracketRecord): void {
    if (!this.records.has(r.entry) || this.busy.has(r.entry)) return;
    const done = bracketDone(r, this.deps.engine.orders, this.deps.market(r.symbol));
    if (!done) return;
    if (done === 'dust') {
      this.deps.logger.warn(
        { entry: r.entry, quantity: remainingOf(r, this.deps.market(r.symbol)).toFixed() },
        "bracket ended: the filled quantity is under the market's minimum order, nothing could be placed",
      );
    }
    this.note(r, { bracket: 'done', held: r.held, exited: r.exited });
    this.end(r);
  }

  /** A leg the bot's stop cancelled: the bracket is kept, its legs placed again at the next start. */
  private suspend(r: BracketRecord, leg: Leg, id: string): void {
    const what = leg === 'stop' ? 'stop' : leg === 'target' ? 'take profit' : 'market exit';
    r.suspended = true;
    this.save(r);
    this.deps.logger.warn(
      { entry: r.entry, strategy: r.strategy, symbol: r.symbol, child: id },
      `bracket of ${r.entry}: its ${what} cancelled by the stop; placed again at start`,
    );
    this.note(r, { bracket: 'suspended by the stop', child: id });
    this.finishIfDone(r);
  }

  /** A suspended bracket acts again at the start: said once, with what it does. */
  private unsuspend(r: BracketRecord, doing: string): void {
    if (!r.suspended) return;
    delete r.suspended;
    this.save(r);
    this.deps.logger.info({ entry: r.entry, strategy: r.strategy, symbol: r.symbol }, `bracket of ${r.entry}: suspended by the last stop; ${doing}`);
    this.note(r, { bracket: 'resumed', doing });
  }

  private end(r: BracketRecord): void {
    this.records.delete(r.entry);
    this.deps.store.remove(r.entry);
  }

  /** Both prices set: the take profit is watched here (the stop rests on the exchange). */
  private localTarget(r: BracketRecord): boolean {
    return r.takeProfit !== undefined && r.stopLoss !== undefined;
  }

  /** Remember a live child's id on its bracket (from its tag). */
  private link(tag: string | undefined, id: string): void {
    const c = bracketOf(tag);
    const r = c ? this.records.get(c.entry) : undefined;
    if (!r || legOf(r, id)) return;
    const o = this.deps.engine.orders.get(id);
    if (!o || isFinal(o.state)) return;
    const leg: Leg = c!.leg === 'sl' ? 'stop' : o.type === 'MARKET' ? 'exit' : 'target';
    r[leg] = id;
    this.save(r);
  }

  private save(r: BracketRecord): void {
    if (this.records.has(r.entry)) this.deps.store.save(r);
  }

  private note(r: BracketRecord, detail: Record<string, unknown>): void {
    this.deps.store.note?.(r.entry, detail);
  }
}
