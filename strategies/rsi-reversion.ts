/**
 * rsi-reversion: mean reversion on Wilder's RSI. Buy when RSI falls below the oversold level, sell
 * the position when it rises above the overbought level. It decides from the RSI and the position on
 * every candle, so after a halt and resume it needs nothing rebuilt: a signal denied while halted is
 * taken on the first candle after the resume where it still holds.
 */
import { defineStrategy, fraction, market, qty, Rsi } from '../src/index.js';

export default defineStrategy({
  name: 'rsi-reversion',
  description: 'Mean reversion: buy when RSI is oversold, sell the position when it is overbought.',
  params: {
    period: { type: 'int', default: 14, min: 2, max: 100, description: 'RSI period (candles)' },
    oversold: { type: 'number', default: 30, min: 1, max: 50 },
    overbought: { type: 'number', default: 70, min: 50, max: 99 },
    fraction: { type: 'number', default: 0.25, min: 0.01, max: 1, description: 'share of the free quote balance spent per entry' },
  },
  warmup: (p) => 5 * p.period,
  // The RSI in its own pane of the backtest report, with its oversold and overbought levels (the
  // parameters) as lines and the 50 midline as a level.
  plots: {
    rsi: { pane: 'rsi', color: '#8e24aa', levels: [50] },
    oversold: { pane: 'rsi', color: '#2e7d32' },
    overbought: { pane: 'rsi', color: '#c62828' },
  },
  create(ctx) {
    const rsi = new Map(ctx.markets.map((s) => [s, new Rsi(ctx.params.period)] as const));
    return {
      onCandle(symbol, bar) {
        const r = rsi.get(symbol)?.update(bar.c);
        if (r === undefined) return;
        ctx.plot('rsi', r, symbol);
        ctx.plot('oversold', ctx.params.oversold, symbol);
        ctx.plot('overbought', ctx.params.overbought, symbol);
        if (Number.isNaN(r)) return;
        const held = ctx.position(symbol)?.quantity;
        const flat = !held || held.isZero();
        if (r < ctx.params.oversold && flat) return market('BUY', symbol, fraction(ctx.params.fraction), { tag: `rsi-${r.toFixed(1)}` });
        if (r > ctx.params.overbought && !flat) return market('SELL', symbol, qty(held), { tag: `rsi-${r.toFixed(1)}` });
      },
    };
  },
});
