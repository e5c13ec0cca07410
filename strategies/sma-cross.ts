/**
 * sma-cross: buy when the fast simple moving average of closes crosses above the slow one, sell the
 * position when it crosses back below. Decides on closed candles only. Both averages are plotted
 * over the candles of the backtest report. A cross whose order was denied because the bot was halted
 * is acted on at the resume, if the averages still stand that way.
 */
import { defineStrategy, fraction, market, qty, Sma, type Draft } from '../src/index.js';

export default defineStrategy({
  name: 'sma-cross',
  description: 'Trend following: market buy on a fast/slow SMA golden cross, sell the position on the death cross.',
  params: {
    fast: { type: 'int', default: 10, min: 2, max: 200, description: 'fast SMA period (candles)' },
    slow: { type: 'int', default: 30, min: 3, max: 500, description: 'slow SMA period (candles)' },
    fraction: { type: 'number', default: 0.5, min: 0.01, max: 1, description: 'share of the free quote balance spent per entry' },
  },
  warmup: (p) => p.slow,
  // Drawn over the candles in the backtest report.
  plots: { fastSma: { pane: 'price', color: '#1e88e5' }, slowSma: { pane: 'price', color: '#fb8c00' } },
  create(ctx) {
    const { fast: fastN, slow: slowN } = ctx.params;
    if (fastN >= slowN) throw new Error(`fast (${fastN}) must be smaller than slow (${slowN})`);
    const state = new Map<string, { fast: Sma; slow: Sma; prevDiff: number }>();
    for (const s of ctx.markets) state.set(s, { fast: new Sma(fastN), slow: new Sma(slowN), prevDiff: Number.NaN });
    /** Per market: the side of the last cross denied by the trading state (halted or reducing). */
    const missed = new Map<string, 'BUY' | 'SELL'>();
    return {
      onDenied(d) {
        if (d.rule === 'tradingState' && d.intent.kind === 'order' && (d.intent.tag === 'golden-cross' || d.intent.tag === 'death-cross')) {
          missed.set(d.intent.symbol, d.intent.side);
        }
      },
      onTradingState(change) {
        if (change.state !== 'active') return;
        const out: Draft[] = [];
        for (const [symbol, side] of missed) {
          const diff = state.get(symbol)?.prevDiff ?? Number.NaN;
          const held = ctx.position(symbol)?.quantity;
          if (side === 'BUY' && diff > 0 && (!held || held.isZero())) out.push(market('BUY', symbol, fraction(ctx.params.fraction), { tag: 'golden-cross' }));
          if (side === 'SELL' && diff < 0 && held && held.gt(0)) out.push(market('SELL', symbol, qty(held), { tag: 'death-cross' }));
        }
        missed.clear();
        return out;
      },
      onCandle(symbol, bar) {
        const st = state.get(symbol);
        if (!st) return;
        const close = bar.c;
        const fast = st.fast.update(close);
        const slow = st.slow.update(close);
        ctx.plot('fastSma', fast, symbol);
        ctx.plot('slowSma', slow, symbol);
        const diff = fast - slow;
        const prev = st.prevDiff;
        st.prevDiff = diff;
        if (Number.isNaN(diff) || Number.isNaN(prev)) return;
        if ((prev <= 0 && diff > 0) || (prev >= 0 && diff < 0)) missed.delete(symbol);
        const held = ctx.position(symbol)?.quantity;
        if (prev <= 0 && diff > 0 && (!held || held.isZero())) {
          return market('BUY', symbol, fraction(ctx.params.fraction), { tag: 'golden-cross' });
        }
        if (prev >= 0 && diff < 0 && held && held.gt(0)) {
          return market('SELL', symbol, qty(held), { tag: 'death-cross' });
        }
      },
    };
  },
});
