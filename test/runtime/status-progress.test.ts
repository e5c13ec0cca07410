/**
 * The status line's warm-up and "no signal yet" part (issue 34 item 8; the e2e test is
 * e2e/status-progress.test.ts): from the trading core's candle counts and each runner's intents.
 */
import { describe, expect, it } from 'vitest';
import { progressText, type StrategyProgress } from '../../src/runtime/progress.js';
import { statusLine, type StatusSnapshot } from '../../src/runtime/status.js';
import { Decimal } from '../../src/core/decimal.js';
import { quietSnapshot } from '../support/status-snapshot.js';

const snap = (strategies?: StrategyProgress[]): StatusSnapshot =>
  quietSnapshot({ elapsedMs: 5_000, mode: 'paper', equity: new Decimal(100), startEquity: new Decimal(100), ...(strategies ? { strategies } : {}) });

describe('status line: strategies not trading yet', () => {
  it('names those warming up with candles seen / declared warm-up, then those that have not signalled', () => {
    const list: StrategyProgress[] = [
      { name: 'btc-sma', warmingUp: { seen: 5, need: 8 }, signalled: false },
      { name: 'eth-rsi', warmingUp: { seen: 3, need: 70 }, signalled: false },
      { name: 'btc-grid', signalled: true },
      { name: 'usdt-dca', signalled: false },
    ];
    expect(progressText(list)).toBe('btc-sma warming up 5/8, eth-rsi warming up 3/70  no signal yet: usdt-dca');
    expect(statusLine(snap(list), false)).toMatch(/books 1\/1 healthy {2}btc-sma warming up 5\/8, eth-rsi warming up 3\/70 {2}no signal yet: usdt-dca$/);
  });

  it('says nothing once every strategy signalled', () => {
    expect(progressText([{ name: 'a', signalled: true }])).toBe('');
    expect(statusLine(snap([{ name: 'a', signalled: true }]), false)).toMatch(/healthy$/);
  });
});
