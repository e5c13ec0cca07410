/**
 * The warm-up on the exchange history (src/runtime/warm-up.ts), one module with fakes: the gate
 * denies only the strategies whose market is being fed, the just-closed period is asked again when
 * it is not served yet, and a period boundary crossed while feeding is caught up (no hole); a catch-up
 * that fails keeps what was fed and names the hole.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import type { Intent, Verdict } from '../../src/core/intents.js';
import type { Candle } from '../../src/core/types/index.js';
import type { StrategyInstance } from '../../src/kernel/trading-core-ports.js';
import { WarmUp } from '../../src/runtime/warm-up.js';

const ruleOf = (v: Verdict | undefined): string | undefined => (v && !v.ok ? v.rule : undefined);

const T = 1_800_000_000; // a minute boundary (s)
const candle = (time: number): Candle => ({ time, open: d(1), high: d(1), low: d(1), close: d(time), volume: d(1) });
const inst = (name: string, markets: string[], warm?: number): StrategyInstance =>
  ({
    name,
    markets,
    resolutionSec: 60,
    params: {},
    account: 'main',
    definition: { warmup: warm === undefined ? undefined : () => warm },
  }) as unknown as StrategyInstance;
const buy = (strategy: string): Intent =>
  ({ kind: 'order', strategy, symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET', size: { kind: 'base', quantity: d(1) } }) as Intent;

describe('WarmUp', () => {
  it('denies only the fed market strategies, asks again for a period not served yet, and catches up a boundary crossed meanwhile', async () => {
    const clock = new ManualClock((T + 1) * 1000);
    const w = new WarmUp();
    const fed: number[] = [];
    const verdicts: (string | undefined)[] = [];
    let calls = 0;
    await w.run([inst('sma', ['BTCUSDT'], 3), inst('grid', ['ETHUSDT'])], {
      clock,
      logger: silentLogger,
      sleep: async () => {
        clock.set(clock.now() + 2_000);
      },
      history: async (q) => {
        calls++;
        // 1st: the period closing at T not served yet; 2nd: served; 3rd (after the boundary at T + 60): the new one.
        const upTo = calls === 1 ? T - 60 : calls === 2 ? T : T + 60;
        const out: Candle[] = [];
        for (let t = q.from; t + 60 <= upTo; t += 60) out.push(candle(t));
        return out;
      },
      onBar: (_s, bar) => {
        fed.push(bar.time);
        verdicts.push(ruleOf(w.gate(buy('sma'))), ruleOf(w.gate(buy('grid'))));
        // Feeding the last of the first batch takes past the next boundary.
        if (bar.time === T - 60) clock.set((T + 61) * 1000);
      },
    });
    expect(calls).toBe(3);
    expect(fed).toEqual([T - 180, T - 120, T - 60, T]);
    expect(verdicts).toEqual(['warmup', undefined, 'warmup', undefined, 'warmup', undefined, 'warmup', undefined]);
    expect(w.gate(buy('sma'))).toBeUndefined();
  });

  it('keeps what it fed when the catch-up request fails, and names the hole it leaves', async () => {
    const clock = new ManualClock((T + 1) * 1000);
    const w = new WarmUp();
    const fed: number[] = [];
    const warned: string[] = [];
    const logger = { ...silentLogger, warn: ((_o: unknown, m?: string) => void warned.push(m ?? '')) as typeof silentLogger.warn, child: () => logger };
    let calls = 0;
    const got = await w.run([inst('sma', ['BTCUSDT'], 2)], {
      clock,
      logger,
      sleep: async () => undefined,
      history: async (q) => {
        if (++calls === 2) throw new Error('HTTP 503');
        const out: Candle[] = [];
        for (let t = q.from; t + 60 <= T; t += 60) out.push(candle(t));
        return out;
      },
      onBar: (_s, bar) => {
        fed.push(bar.time);
        if (bar.time === T - 60) clock.set((T + 61) * 1000); // a boundary crossed while feeding
      },
    });
    expect(calls).toBe(2);
    expect(fed).toEqual([T - 120, T - 60]);
    expect(got).toEqual([{ symbol: 'BTCUSDT', seconds: 60, candles: 2 }]);
    const iso = (t: number) => new Date(t * 1000).toISOString();
    expect(warned).toEqual([`warm-up: BTCUSDT 60s: the history could not be read: HTTP 503; the window has a hole from ${iso(T)} to ${iso(T + 60)}`]);
    // The gate is open again: the strategies trade on the live candles.
    expect(w.gate(buy('sma'))).toBeUndefined();
  });
});
