/** Plot declarations (checked by defineStrategy) and ctx.plot: undeclared names, bad values and markets are errors naming them. */
import { describe, expect, it } from 'vitest';
import { defineStrategy } from '../../src/strategy/define.js';
import { harness, candle } from '../../src/testing/harness.js';

const base = { description: 'plots', params: {}, create: () => ({}) };

describe('plots', () => {
  it('checks the declarations, naming the plot and the field', () => {
    expect(() => defineStrategy({ ...base, name: 'p', plots: { 'bad name': { pane: 'price' } } })).toThrow(/plots\.bad name: a plot name is letters/);
    expect(() => defineStrategy({ ...base, name: 'p', plots: { rsi: { pane: 'rsi', levels: [30, Number.NaN] } } })).toThrow(
      'strategy p: plots.rsi.levels must be a list of finite numbers, got [30,null]',
    );
    expect(() => defineStrategy({ ...base, name: 'p', plots: { rsi: { pane: 'my pane' } } })).toThrow(/plots\.rsi\.pane must be a name/);
    expect(() => defineStrategy({ ...base, name: 'p', plots: { rsi: { pane: 'rsi', colour: 'red' } as never } })).toThrow(
      'strategy p: plots.rsi.colour: unknown field (pane, color, levels)',
    );
    expect(() =>
      defineStrategy({ ...base, name: 'p', plots: { upper: { pane: 'price', color: '#1e88e5' }, rsi: { pane: 'rsi', levels: [30, 70] } } }),
    ).not.toThrow();
  });

  it('ctx.plot takes declared names and numbers, and throws naming an undeclared name', async () => {
    const def = defineStrategy({
      ...base,
      name: 'p',
      plots: { upper: { pane: 'price' } },
      create(ctx) {
        return {
          onCandle(_s, bar) {
            ctx.plot('upper', bar.c + 1);
            if (bar.c > 100) ctx.plot('lower', bar.c - 1);
          },
        };
      },
    });
    const h = harness(def, { markets: ['BTCUSDT'] });
    await h.handlers.onCandle?.('BTCUSDT', candle(0, 50));
    expect(h.plots).toEqual([{ name: 'upper', symbol: 'BTCUSDT', value: 51, time: h.clock.now() }]);
    expect(() => h.handlers.onCandle?.('BTCUSDT', candle(60, 150))).toThrow(`ctx.plot("lower"): not declared in the strategy's plots (declared: upper)`);
    expect(() => h.ctx.plot('upper', '5' as unknown as number)).toThrow('ctx.plot("upper", "5"): the value must be a number');
    expect(() => h.ctx.plot('upper', 1, 'ETHUSDT')).toThrow('strategy test does not trade ETHUSDT');
  });

  it('a strategy on several markets names the market', () => {
    const def = defineStrategy({ ...base, name: 'p', plots: { x: {} } });
    const h = harness(def, { markets: ['BTCUSDT', 'ETHUSDT'] });
    expect(() => h.ctx.plot('x', 1)).toThrow('strategy test trades 2 markets; name the market');
    h.ctx.plot('x', 2, 'ETHUSDT');
    expect(h.plots.map((p) => [p.symbol, p.value])).toEqual([['ETHUSDT', 2]]);
  });

  it('keeps every point of every series, also past the series ctx.plot keeps at hand', () => {
    const names = Array.from({ length: 40 }, (_, i) => `s${i}`);
    const def = defineStrategy({ ...base, name: 'p', plots: Object.fromEntries(names.map((n) => [n, {}])) });
    const h = harness(def, { markets: ['BTCUSDT', 'ETHUSDT'] });
    for (let round = 0; round < 2; round++) for (const [i, n] of names.entries()) h.ctx.plot(n, i + round, i % 2 ? 'ETHUSDT' : 'BTCUSDT');
    expect(h.plots).toHaveLength(80);
    expect(h.plots.slice(40).map((p) => [p.name, p.symbol, p.value])).toEqual(names.map((n, i) => [n, i % 2 ? 'ETHUSDT' : 'BTCUSDT', i + 1]));
    expect(() => h.ctx.plot('s39', Number.NaN, 'XRPUSDT')).toThrow('strategy test does not trade XRPUSDT');
  });
});
