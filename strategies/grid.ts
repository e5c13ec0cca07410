/**
 * grid: a ladder of limit buys below the price. When a buy fills, a limit sell for the same
 * quantity goes one grid step above its fill price; when that sell fills, a buy goes one step
 * below. Each rung earns the spacing minus fees.
 */
import { cancelAll, Decimal, defineStrategy, limit, qty, quote, type Draft } from '../src/index.js';

export default defineStrategy({
  name: 'grid',
  description: 'Ladder of limit buys below the price; each fill is answered by a sell one step above (and vice versa).',
  params: {
    levels: { type: 'int', default: 4, min: 1, max: 50, description: 'buy orders below the price' },
    spacingPct: { type: 'number', default: 0.5, min: 0.05, max: 20, description: 'distance between rungs, percent' },
    orderQuote: { type: 'number', default: 20, min: 0.0001, description: 'quote amount per rung' },
  },
  create(ctx) {
    const step = ctx.params.spacingPct / 100;
    const placed = new Set<string>();
    return {
      onBook(symbol, book) {
        if (placed.has(symbol) || !book.health().healthy) return;
        const mid = book.mid();
        if (!mid) return;
        placed.add(symbol);
        const out: Draft[] = [];
        for (let k = 1; k <= ctx.params.levels; k++) {
          const price = mid.mul(1 - k * step);
          out.push(limit('BUY', symbol, quote(ctx.params.orderQuote), price, { tag: `grid-buy-${k}` }));
        }
        ctx.log.info({ symbol, mid: mid.toFixed(), levels: ctx.params.levels }, 'grid placed');
        return out;
      },
      onOrder(update) {
        const o = update.order;
        if (o.state !== 'filled' || !o.avgPrice) return;
        if (o.side === 'BUY') {
          // A fee taken in the base asset leaves less than the filled quantity: sell what is held.
          const held = ctx.position(o.symbol)?.quantity ?? o.filled;
          const q = Decimal.min(o.filled, held);
          if (q.lte(0)) return;
          return limit('SELL', o.symbol, qty(q), o.avgPrice.mul(1 + step), { tag: 'grid-sell' });
        }
        return limit('BUY', o.symbol, quote(ctx.params.orderQuote), o.avgPrice.mul(1 - step), { tag: 'grid-rebuy' });
      },
      onBookHealth(symbol, health) {
        if (!health.healthy) ctx.log.warn({ symbol, reasons: health.reasons }, 'book unhealthy: the grid keeps its orders, places none');
      },
      onStop() {
        return ctx.markets.map((s) => cancelAll(s, 'grid-stop'));
      },
    };
  },
});
