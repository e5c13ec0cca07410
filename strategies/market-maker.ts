/**
 * market-maker: quotes a bid and an ask around the local book's mid. The half-spread widens with
 * volatility (rolling standard deviation of mid returns) and never goes under a minimum; inventory
 * skews both quotes (holding base lowers them, so the ask fills first). Quotes are replaced only
 * when the mid moves more than a tolerance or the inventory skew changes, and pulled when the book turns unhealthy.
 * The ask sells at most the free base balance (never coins locked in a resting order).
 * While the bot is halted it quotes nothing (a halt cancels every order); after the resume it quotes
 * again on the next book, whatever the mid did meanwhile.
 */
import { cancelAll, defineStrategy, Decimal, limit, qty, quote, RollingStdDev, type Draft } from '../src/index.js';

const ONE = new Decimal(1);
const dec = (x: number) => new Decimal(x.toPrecision(12));

export default defineStrategy({
  name: 'market-maker',
  description: 'Two-sided quotes around the mid with a volatility spread and inventory skew.',
  params: {
    minSpreadBps: { type: 'number', default: 20, min: 1, max: 5000, description: 'minimum full spread, basis points' },
    volMult: { type: 'number', default: 2, min: 0, max: 50, description: 'half-spread = volMult × std of mid returns' },
    volWindow: { type: 'int', default: 50, min: 5, max: 5000, description: 'mid samples in the volatility window' },
    orderQuote: { type: 'number', default: 50, min: 0.0001, description: 'quote amount per quote' },
    maxInventoryQuote: { type: 'number', default: 500, min: 0.0001, description: 'inventory (quote value) at which the skew is full' },
    requoteBps: { type: 'number', default: 5, min: 0, max: 1000, description: 'mid move that triggers new quotes' },
    refreshMs: { type: 'int', default: 1000, min: 0, description: 'minimum time between samples' },
  },
  create(ctx) {
    const p = ctx.params;
    const vol = new Map(ctx.markets.map((s) => [s, new RollingStdDev(p.volWindow)] as const));
    const lastMid = new Map<string, number>();
    const lastSample = new Map<string, number>();
    const quotedMid = new Map<string, number>();
    const quotedSkew = new Map<string, number>();
    let halted = false;
    return {
      onTradingState(change) {
        halted = change.state === 'halted';
        // The halt cancelled the quotes: what was quoted is no reason not to quote again.
        quotedMid.clear();
        quotedSkew.clear();
      },
      onBook(symbol, book) {
        if (halted) return;
        const now = ctx.now();
        if (now - (lastSample.get(symbol) ?? -Infinity) < p.refreshMs) return;
        lastSample.set(symbol, now);
        if (!book.health().healthy) return;
        const midD = book.mid();
        if (!midD) return;
        const mid = midD.toNumber();
        const prev = lastMid.get(symbol);
        lastMid.set(symbol, mid);
        const sd = prev ? vol.get(symbol)!.update(Math.log(mid / prev)) : Number.NaN;
        const held = ctx.position(symbol)?.quantity ?? new Decimal(0);
        const inventory = held.toNumber() * mid;
        const skew = Math.max(-1, Math.min(1, inventory / p.maxInventoryQuote));
        const q = quotedMid.get(symbol);
        const skewMoved = Math.abs(skew - (quotedSkew.get(symbol) ?? 0)) >= 0.05;
        if (q !== undefined && Math.abs(mid / q - 1) * 1e4 < p.requoteBps && !skewMoved) return;
        const half = Math.max(p.minSpreadBps / 2 / 1e4, Number.isNaN(sd) ? 0 : p.volMult * sd);
        // Factors built in Decimal from 12-digit prints of the floats, so 1 - 0.005 - 0.0025 is
        // exactly 0.9925 and rounding to the tick later never loses a tick to a float artifact.
        const h = dec(half);
        const shift = dec(skew * half);
        const bid = midD.mul(ONE.minus(h).minus(shift));
        const ask = midD.mul(ONE.plus(h).minus(shift));
        quotedMid.set(symbol, mid);
        quotedSkew.set(symbol, skew);
        const out: Draft[] = [cancelAll(symbol, 'requote'), limit('BUY', symbol, quote(p.orderQuote), bid, { tag: 'mm-bid' })];
        // Sell only what is free: base locked in a resting order (its own previous ask until the
        // exchange's balance shows the cancel, a bracket's stop) cannot be sold again, and asking for
        // it is denied. Too little for the market's minimum: no ask this time.
        const m = ctx.market(symbol);
        const free = ctx.balance(m.base).free;
        const sellQty = Decimal.min(held, free, new Decimal(p.orderQuote).div(ask)).toDecimalPlaces(m.quantityPrecision, Decimal.ROUND_DOWN);
        if (sellQty.gte(m.minQty) && sellQty.gt(0) && sellQty.mul(ask).gte(m.minNotional))
          out.push(limit('SELL', symbol, qty(sellQty), ask, { tag: 'mm-ask' }));
        return out;
      },
      onBookHealth(symbol, health) {
        if (health.healthy) return;
        quotedMid.delete(symbol);
        return cancelAll(symbol, 'book-unhealthy');
      },
      onStop(stop) {
        // `mizan run --keep-orders` / the API's keepOrders: the quotes stay on the exchange.
        if (stop.keepOrders) return;
        return ctx.markets.map((s) => cancelAll(s, 'stop'));
      },
    };
  },
});
