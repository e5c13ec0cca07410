import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { silentLogger, type Logger } from '../../src/core/logger.js';
import type { Intent } from '../../src/core/intents.js';
import { d } from '../../src/core/decimal.js';
import { defineStrategy, type StrategyContext } from '../../src/strategy/define.js';
import { StrategyRunner } from '../../src/strategy/runner.js';
import { cancel, fraction, limit, marginOpen, market, qty, quote } from '../../src/strategy/builders.js';
import { describeParams, resolveParams } from '../../src/strategy/params.js';
import { CandleWindow } from '../../src/strategy/candle-window.js';
import { Bar } from '../../src/strategy/bar.js';

function fakeCtx(name: string): StrategyContext {
  const notUsed = () => {
    throw new Error('not used in this test');
  };
  return {
    name,
    params: {},
    markets: ['BTCUSDT'],
    resolutionSec: 60,
    clock: new ManualClock(0),
    log: silentLogger,
    state: { get: () => undefined, set: () => {}, delete: () => {} },
    now: () => 0,
    market: notUsed,
    book: () => undefined,
    candles: () => new CandleWindow(10),
    balance: notUsed,
    position: () => undefined,
    marginPositions: () => [],
    openOrders: () => [],
    plot: () => {},
  };
}

const candle = (time: number, close: string) => new Bar(time, Number(close), Number(close), Number(close), Number(close), 1, 60);

describe('StrategyRunner', () => {
  it('stamps the instance name and hands intents to the sink in event order, never re-entering a handler', async () => {
    const seen: Intent[][] = [];
    let active = 0;
    let maxActive = 0;
    const runner = new StrategyRunner({
      ctx: fakeCtx('btc-a'),
      logger: silentLogger,
      sink: (intents) => {
        seen.push(intents);
      },
      handlers: {
        async onCandle(symbol, c) {
          active++;
          maxActive = Math.max(maxActive, active);
          await new Promise((r) => setTimeout(r, c.time === 1 ? 20 : 0));
          active--;
          return limit('BUY', symbol, qty('0.01'), c.close, { tag: `t${c.time}` });
        },
      },
    });
    await Promise.all([
      runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(1, '100') }),
      runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(2, '101') }),
    ]);
    expect(maxActive).toBe(1);
    expect(seen.map((s) => s[0]!.tag)).toEqual(['t1', 't2']);
    expect(seen[0]![0]!.strategy).toBe('btc-a');
    expect(runner.intentsEmitted).toBe(2);
  });

  it('logs and counts a throwing handler and keeps delivering events', async () => {
    const errors: unknown[] = [];
    const logger: Logger = { ...silentLogger, error: ((o: unknown) => errors.push(o)) as Logger['error'], child: () => logger };
    const got: Intent[] = [];
    const runner = new StrategyRunner({
      ctx: fakeCtx('x'),
      logger,
      sink: (i) => {
        got.push(...i);
      },
      handlers: {
        onCandle(_s, c) {
          if (c.time === 1) throw new Error('boom');
          return [market('SELL', 'BTCUSDT', fraction(1)), cancel('abc')];
        },
      },
    });
    await runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(1, '1') });
    await runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(2, '1') });
    expect(runner.errors).toBe(1);
    expect(errors).toHaveLength(1);
    expect(got.map((i) => i.kind)).toEqual(['order', 'cancel']);
  });

  it('ignores events after stop, except the stop itself', async () => {
    let calls = 0;
    const runner = new StrategyRunner({
      ctx: fakeCtx('s'),
      logger: silentLogger,
      sink: () => {},
      handlers: { onStop: () => void calls++, onSchedule: () => void calls++ },
    });
    await runner.dispatch({ type: 'stop', keepOrders: false });
    await runner.dispatch({ type: 'schedule', time: 1 });
    expect(calls).toBe(1);
  });
});

describe('builders and params', () => {
  it('builds intents with exact decimals and validates fractions', () => {
    const i = limit('BUY', 'BTCUSDT', quote('100.5'), '60000.12', { brackets: { takeProfit: '61000', stopLoss: '59000' } });
    expect(i.size).toEqual({ kind: 'quote', amount: d('100.5') });
    expect(i.price?.toFixed()).toBe('60000.12');
    expect(i.brackets?.stopLoss?.toFixed()).toBe('59000');
    expect(() => fraction(0)).toThrow(RangeError);
    expect(() => fraction(1.5)).toThrow(RangeError);
    const m = marginOpen({ market: 'BTCUSDT', side: 'long', collateral: '100', riskCoef: '3' });
    expect(m.riskCoef.toFixed()).toBe('3');
  });

  it('fills parameter defaults and names every bad parameter', () => {
    const def = defineStrategy({
      name: 'p-test',
      description: 'x',
      params: {
        fast: { type: 'int', default: 10, min: 2, max: 50 },
        mode: { type: 'string', default: 'a', choices: ['a', 'b'] },
      },
      create: () => ({}),
    });
    const ok = resolveParams(def.params, { fast: 12 }, 'strategies[0].params');
    expect(ok).toEqual({ ok: true, values: { fast: 12, mode: 'a' } });
    const bad = resolveParams(def.params, { fast: 1.5, mode: 'c', slow: 3 }, 'strategies[0].params');
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.issues.map((i) => i.path).sort()).toEqual(['strategies[0].params.fast', 'strategies[0].params.mode', 'strategies[0].params.slow']);
      expect(bad.issues.find((i) => i.path.endsWith('mode'))?.message).toContain('not one of a, b');
    }
    expect(describeParams(def.params)[0]).toBe('fast: int = 10 [2..50]');
    expect(() => defineStrategy({ name: 'Bad Name', description: '', params: {}, create: () => ({}) })).toThrow(/lower-case/);
  });

  it('keeps a bounded candle window, oldest first', () => {
    const w = new CandleWindow(3);
    for (let i = 1; i <= 5; i++) w.pushNumbers(i, i, i, i, i * 10, 1);
    expect(w.length).toBe(3);
    expect(w.closes()).toEqual([30, 40, 50]);
    expect(w.close(-1)).toBe(50);
    expect(w.at(0).time).toBe(3);
    expect(() => w.at(3)).toThrow(RangeError);
  });

  it('a start after a stop runs onStart again and delivers events again; a second stop is not delivered (the API stops and starts one strategy)', async () => {
    const calls: string[] = [];
    const runner = new StrategyRunner({
      ctx: fakeCtx('grid'),
      logger: silentLogger,
      sink: () => undefined,
      handlers: {
        onStart: () => void calls.push('start'),
        onCandle: (_s, c) => void calls.push(`candle ${c.time}`),
        onStop: () => void calls.push('stop'),
      },
    });
    await runner.dispatch({ type: 'start' });
    await runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(1, '100') });
    await runner.dispatch({ type: 'stop', keepOrders: false });
    expect(runner.isStopped).toBe(true);
    await runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(2, '100') });
    await runner.dispatch({ type: 'stop', keepOrders: false });
    await runner.dispatch({ type: 'start' });
    expect(runner.isStopped).toBe(false);
    await runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(3, '100') });
    expect(calls).toEqual(['start', 'candle 1', 'stop', 'start', 'candle 3']);
  });

  it('with recreate, a start after a stop runs on fresh handlers; the stop queued before reaches the old ones', async () => {
    const calls: string[] = [];
    let made = 0;
    const make = () => {
      const n = ++made;
      let candles = 0;
      return {
        onStart: () => void calls.push(`start #${n}`),
        onCandle: () => void calls.push(`candle #${n} (${++candles})`),
        onStop: () => void calls.push(`stop #${n}`),
      };
    };
    const runner = new StrategyRunner({ ctx: fakeCtx('grid'), logger: silentLogger, sink: () => undefined, handlers: make(), recreate: make });
    await runner.dispatch({ type: 'start' });
    await runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(1, '100') });
    void runner.dispatch({ type: 'stop', keepOrders: false });
    await runner.dispatch({ type: 'start' });
    await runner.dispatch({ type: 'candle', symbol: 'BTCUSDT', bar: candle(2, '100') });
    expect(calls).toEqual(['start #1', 'candle #1 (1)', 'stop #1', 'start #2', 'candle #2 (1)']);
    expect(runner.busy).toBe(false);
  });
});
