/**
 * grid: a ladder of limit buys below the price. When a buy fills, a limit sell for the same
 * quantity goes one grid step above its fill price; when that sell fills, a buy goes one step
 * below. Each rung earns the spacing minus fees. At start it looks at its open orders and its
 * position: a ladder that survived a restart is kept, not placed a second time, and coins bought
 * while the bot was down get their sell. A halt cancels the ladder: after the resume it rebuilds the
 * same way (a new ladder where none stands, sells for the coins held), and a ladder cancelled
 * whole while trading (by hand, from the dashboard) is placed again on the next book. A denied rung,
 * sell or rebuy is tried again (after the wait the denial names, else RETRY_MS): a grid never stops
 * for good because one order was refused.
 */
import { cancelAll, Decimal, defineStrategy, limit, qty, quote, type Draft } from '../src/index.js';

/** Wait before trying again after a denial that names no wait of its own (the order rate names one). */
const RETRY_MS = 30_000;

export default defineStrategy({
  name: 'grid',
  description: 'Ladder of limit buys below the price; each fill is answered by a sell one step above (and vice versa).',
  params: {
    levels: { type: 'int', default: 4, min: 1, max: 50, description: 'buy orders below the price' },
    spacingPct: { type: 'number', default: 0.5, min: 0.01, max: 20, description: 'distance between rungs, percent' },
    orderQuote: { type: 'number', default: 20, min: 0.0001, description: 'quote amount per rung' },
  },
  create(ctx) {
    const step = ctx.params.spacingPct / 100;
    /** Markets whose ladder stands: its orders are open (also those recovered after a restart). */
    const placed = new Set<string>();
    /** Rungs of a ladder just sent and not yet accepted or denied, per market. */
    const pending = new Map<string, { left: number; accepted: number; reason?: string; retryAfterMs?: number }>();
    /** When a ladder denied whole may be tried again, per market. */
    const ladderRetryAt = new Map<string, number>();
    /** When a market's denied sell or rebuy is tried again: its coins get their sell, a gone ladder is laid again. */
    const repairAt = new Map<string, number>();
    const retryAt = (d: { retryAfterMs?: number }) => ctx.now() + (d.retryAfterMs ?? RETRY_MS);
    const isGrid = (tag: string | undefined) => tag !== undefined && tag.startsWith('grid-');
    /** False while the bot is halted or reducing: nothing is placed (it would be denied). */
    let trading = true;
    /**
     * Take the ladder from the account: a market whose grid orders are open (or, at start, whose
     * coins are held: its buys may have filled while the bot was down) counts as placed; coins that no
     * open grid sell covers get their sell one step above their average price. At start (a restart)
     * and after a resume (the halt cancelled every order: the buys are laid again on the next book).
     */
    /** Of `held` coins of a market, those no open grid sell covers. */
    const uncovered = (symbol: string, held: Decimal): Decimal =>
      ctx
        .openOrders(symbol)
        .filter((o) => o.side === 'SELL' && isGrid(o.tag))
        .reduce((a, o) => a.minus(o.quantity.minus(o.filled)), held);
    /**
     * Whether `q` coins of a market are dust: a sell of them at `price` is one the exchange refuses
     * (below its minimum quantity once rounded down to its step, or below its minimum notional). A
     * fee taken in the coin leaves such a remainder; it is never offered and does not count as held.
     */
    const dust = (symbol: string, q: Decimal, price: Decimal): boolean => {
      const m = ctx.market(symbol);
      const r = q.toDecimalPlaces(m.quantityPrecision, Decimal.ROUND_DOWN);
      return !r.gt(0) || r.lt(m.minQty) || r.mul(price).lt(m.minNotional);
    };
    const rebuild = (atStart: boolean, symbols: readonly string[] = ctx.markets): Draft[] => {
      const out: Draft[] = [];
      for (const symbol of symbols) {
        const mine = ctx.openOrders(symbol).filter((o) => isGrid(o.tag));
        if (mine.length > 0) placed.add(symbol);
        const pos = ctx.position(symbol);
        if (!pos || !pos.quantity.gt(0)) continue;
        const price = pos.avgPrice.mul(1 + step);
        if (dust(symbol, pos.quantity, price)) continue;
        if (atStart) placed.add(symbol);
        const left = uncovered(symbol, pos.quantity);
        if (left.gt(0) && pos.avgPrice.gt(0) && !dust(symbol, left, price)) out.push(limit('SELL', symbol, qty(left), price, { tag: 'grid-sell' }));
      }
      return out;
    };
    /**
     * A sell or rebuy was denied and its wait is over: sell the coins no open sell covers; when no coins
     * are held and no grid order of the market stands (the rebuy was the ladder's last order), the
     * ladder is laid again.
     */
    const repair = (symbol: string): Draft[] => {
      repairAt.delete(symbol);
      const pos = ctx.position(symbol);
      const held = pos !== undefined && pos.quantity.gt(0) && !dust(symbol, pos.quantity, pos.avgPrice.mul(1 + step));
      if (!held && !pending.has(symbol) && !ctx.openOrders(symbol).some((o) => isGrid(o.tag))) placed.delete(symbol);
      return rebuild(false, [symbol]);
    };
    const settle = (symbol: string, accepted: boolean, denial?: { reason: string; retryAfterMs?: number }) => {
      const p = pending.get(symbol);
      if (!p) return;
      p.left--;
      if (accepted) p.accepted++;
      else if (denial) {
        p.reason = denial.reason;
        // The ladder is tried again when its last rung may pass.
        if (denial.retryAfterMs !== undefined) p.retryAfterMs = Math.max(p.retryAfterMs ?? 0, denial.retryAfterMs);
      }
      if (p.left > 0) return;
      pending.delete(symbol);
      if (p.accepted > 0) {
        ctx.log.info({ symbol, rungs: p.accepted, levels: ctx.params.levels }, 'grid placed');
      } else {
        placed.delete(symbol);
        const wait = p.retryAfterMs ?? RETRY_MS;
        ladderRetryAt.set(symbol, ctx.now() + wait);
        ctx.log.warn({ symbol, reason: p.reason }, `grid not placed: every rung was denied; trying again in ${Math.ceil(wait / 1000)} s`);
      }
    };
    return {
      onStart() {
        // After a restart the ladder may already stand: the recovered orders are the strategy's own.
        // Coins its buys bought that no open sell covers (a buy that filled while the bot was down)
        // get their sell now, one step above their average price.
        return rebuild(true);
      },
      onTradingState(change) {
        trading = change.state === 'active';
        if (!trading) return;
        // Resumed: the halt cancelled the ladder (or some of it). Forget it and take it from the account.
        placed.clear();
        pending.clear();
        ladderRetryAt.clear();
        repairAt.clear();
        return rebuild(false);
      },
      onBook(symbol, book) {
        if (!trading || !book.health().healthy) return;
        const out: Draft[] = ctx.now() >= (repairAt.get(symbol) ?? Infinity) ? repair(symbol) : [];
        if (placed.has(symbol) || ctx.now() < (ladderRetryAt.get(symbol) ?? -Infinity)) return out;
        const mid = book.mid();
        if (!mid) return out;
        placed.add(symbol);
        for (let k = 1; k <= ctx.params.levels; k++) {
          const price = mid.mul(1 - k * step);
          out.push(limit('BUY', symbol, quote(ctx.params.orderQuote), price, { tag: `grid-buy-${k}` }));
        }
        pending.set(symbol, { left: ctx.params.levels, accepted: 0 });
        ctx.log.debug({ symbol, mid: mid.toFixed(), levels: ctx.params.levels }, 'grid: placing the ladder');
        return out;
      },
      onDenied(d) {
        if (d.intent.kind !== 'order' || !isGrid(d.intent.tag)) return;
        const { symbol, tag } = d.intent;
        if (tag!.startsWith('grid-buy-'))
          return settle(symbol, false, { reason: `${d.rule}: ${d.reason}`, ...(d.retryAfterMs !== undefined ? { retryAfterMs: d.retryAfterMs } : {}) });
        // A sell (the coins' way out) or a rebuy (the ladder's next rung) refused: tried again later.
        const at = retryAt(d);
        repairAt.set(symbol, Math.min(repairAt.get(symbol) ?? Infinity, at));
        ctx.log.warn({ symbol, tag, rule: d.rule, reason: d.reason }, `grid: ${tag} denied; trying again in ${Math.ceil((at - ctx.now()) / 1000)} s`);
      },
      onOrder(update) {
        const o = update.order;
        // The last grid order of a market cancelled while trading (by hand, or a resume that came
        // before the halt's cancels): the ladder is gone, the next book places it again.
        if (o.state === 'cancelled' && isGrid(o.tag) && trading && !pending.has(o.symbol)) {
          if (!ctx.openOrders(o.symbol).some((x) => isGrid(x.tag) && x.clientOrderId !== o.clientOrderId)) placed.delete(o.symbol);
          return;
        }
        // A rung the exchange refused settles in onDenied (rule exchange), as a risk denial does.
        if (o.tag?.startsWith('grid-buy-') && update.previous === 'pending' && o.state !== 'rejected') settle(o.symbol, true);
        if (o.state !== 'filled' || !o.avgPrice) return;
        if (o.side === 'BUY') {
          // A fee taken in the base asset leaves less than the filled quantity: sell what this buy
          // left, the coins held that no open grid sell covers yet (never more than it bought).
          const q = Decimal.min(o.filled, uncovered(o.symbol, ctx.position(o.symbol)?.quantity ?? o.filled));
          const price = o.avgPrice.mul(1 + step);
          if (q.lte(0) || dust(o.symbol, q, price)) return;
          return limit('SELL', o.symbol, qty(q), price, { tag: 'grid-sell' });
        }
        return limit('BUY', o.symbol, quote(ctx.params.orderQuote), o.avgPrice.mul(1 - step), { tag: 'grid-rebuy' });
      },
      onBookHealth(symbol, health) {
        if (!health.healthy) ctx.log.warn({ symbol, reasons: health.reasons }, 'book unhealthy: the grid keeps its orders, places none');
      },
      onStop(stop) {
        // `mizan run --keep-orders` / the API's keepOrders: the ladder stays on the exchange.
        if (stop.keepOrders) return;
        return ctx.markets.map((s) => cancelAll(s, 'grid-stop'));
      },
    };
  },
});
