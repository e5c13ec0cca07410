/**
 * The stop summary names the brackets the stop suspended (their stop cancelled with the open
 * orders, placed again at the next start): strategy, market, prices and what each closes.
 */
import { describe, expect, it } from 'vitest';
import type { BracketRecord } from '../../src/execution/bracket-state.js';
import { summary } from '../../src/runtime/status.js';
import { quietSnapshot } from '../support/status-snapshot.js';

const snap = quietSnapshot();

const bracket = (o: Partial<BracketRecord>): BracketRecord => ({
  entry: 'brk_1',
  strategy: 'brk',
  account: 'main',
  symbol: 'BTCUSDT',
  exitSide: 'SELL',
  held: '0.01',
  exited: '0.002',
  phase: 'open',
  suspended: true,
  ...o,
});

describe('the stop summary and suspended brackets', () => {
  const split = () => ({ base: 'BTC', quote: 'USDT' });
  it('names each one; says nothing when none is', () => {
    const text = summary(
      snap,
      [],
      split,
      [],
      [],
      [bracket({ stopLoss: '4310.56', takeProfit: '4500' }), bracket({ entry: 'brk_2', stopLoss: '4200', phase: 'exiting', held: '0.5', exited: '0' })],
    );
    expect(text).toContain(
      '  brackets suspended by the stop (placed again at the next start): brk BTCUSDT stop 4310.56 take profit 4500 (0.008 BTC); brk BTCUSDT stop 4200 (0.5 BTC, exiting at market)\n',
    );
    expect(summary(snap, [], split)).not.toContain('brackets suspended');
  });
});
