/**
 * margin-trend: follows the trend of a fast/slow EMA pair with margin positions: long while the
 * fast EMA is above the slow one, short while below. Each position carries a stop loss and a take
 * profit set as percentages from the entry; a trend flip first closes the position it holds, open or
 * still pending (its opening order resting: closing it cancels it), so no two sides are held. At start it
 * takes the side of a position left open (a restart) as the current trend; after a resume too, and
 * with no position open (an entry denied while halted) it enters the current trend on the next candle.
 */
import { defineStrategy, Ema, marginClose, marginOpen, type Draft } from '../src/index.js';

export default defineStrategy({
  name: 'margin-trend',
  description: 'Margin long or short in the direction of an EMA trend, with stop loss and take profit.',
  params: {
    fast: { type: 'int', default: 12, min: 2, max: 200 },
    slow: { type: 'int', default: 26, min: 3, max: 500 },
    collateral: { type: 'number', default: 100, min: 0.0001, description: 'collateral per position (quote)' },
    riskCoef: { type: 'number', default: 2, min: 1, max: 10, description: 'risk coefficient (credit ratio)' },
    stopLossPct: { type: 'number', default: 2, min: 0.1, max: 50 },
    // Below 100: a short's take profit is entry × (1 − pct/100), which is 0 or less from 100 on (the
    // strategy would go long-only without a word, and an optimiser would sample it).
    takeProfitPct: {
      type: 'number',
      default: 4,
      min: 0.1,
      max: 99,
      description: "take profit distance from the entry, percent (below 100: a short's take profit must stay above 0)",
    },
  },
  // EMAs converge slowly: after 5 × slow candles the first price weighs (1 − 2/(slow + 1))^(5·slow), under 1e-4.
  warmup: (p) => 5 * p.slow,
  create(ctx) {
    const p = ctx.params;
    // The declared range says so too; this covers a definition created with unchecked parameters.
    if (!(p.takeProfitPct > 0 && p.takeProfitPct < 100)) {
      throw new RangeError(
        `takeProfitPct: ${p.takeProfitPct} must be greater than 0 and below 100 (a short's take profit is the entry × (1 − takeProfitPct/100))`,
      );
    }
    const emas = new Map<string, { fast: Ema; slow: Ema; trend: number }>(
      ctx.markets.map((s) => [s, { fast: new Ema(p.fast), slow: new Ema(p.slow), trend: 0 }]),
    );
    /** The trend each market's open position follows (0: none open, the next candle enters). */
    const fromPositions = () => {
      for (const [symbol, e] of emas) {
        const open = ctx.marginPositions(symbol).find((pos) => pos.state === 'open' || pos.state === 'pending');
        e.trend = open ? (open.side === 'long' ? 1 : -1) : 0;
      }
    };
    return {
      onStart() {
        // After a restart: an open position already follows the trend it was opened for, so the
        // first decision does not take it for a flip (close and reopen).
        fromPositions();
      },
      onTradingState(change) {
        // Resumed: a flip seen while halted was denied; the positions say which trend is held.
        if (change.state === 'active') fromPositions();
      },
      onCandle(symbol, bar) {
        const e = emas.get(symbol);
        if (!e) return;
        const close = bar.c;
        const diff = e.fast.update(close) - e.slow.update(close);
        if (Number.isNaN(diff) || diff === 0) return;
        const trend = diff > 0 ? 1 : -1;
        if (trend === e.trend) return;
        e.trend = trend;
        const out: Draft[] = [];
        // A pending position (its opening order not filled yet) is closed too: left alone it would open
        // later against the new trend, beside the position opened for it.
        const held = ctx.marginPositions(symbol).filter((pos) => pos.state === 'open' || pos.state === 'pending');
        for (const pos of held) out.push(marginClose(pos.id, undefined, 'trend-flip'));
        const side = trend > 0 ? 'long' : 'short';
        const sl = trend > 0 ? 1 - p.stopLossPct / 100 : 1 + p.stopLossPct / 100;
        const tp = trend > 0 ? 1 + p.takeProfitPct / 100 : 1 - p.takeProfitPct / 100;
        out.push(
          marginOpen({
            market: symbol,
            side,
            collateral: p.collateral,
            riskCoef: p.riskCoef,
            stopLoss: bar.close.mul(sl),
            takeProfit: bar.close.mul(tp),
            tag: `trend-${side}`,
          }),
        );
        return out;
      },
    };
  },
});
