/**
 * The stop summary lists the margin positions a stop leaves open on the exchange (a stop does not
 * close them), each with its owner, state, entry, call and liquidation prices, collateral, the
 * exchange's profit and the opening fee. Before, a bot stopped with positions open said only
 * `0 BTC` and an unrealised figure: a freqtrade user read it as flat (the sixth audit).
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import { summary } from '../../src/runtime/status.js';
import { quietSnapshot } from '../support/status-snapshot.js';

const snap = quietSnapshot();

const position = (id: number, state: string): MarginPosition => ({
  id,
  market: 'BTCUSDT',
  side: 'long',
  state,
  callPrice: new Decimal('41000'),
  liquidityPrice: new Decimal('40500'),
  isCalled: false,
  openPrice: new Decimal('62000'),
  openFilledPrice: new Decimal('62010.5'),
  collateral: { currency: 'usdt', value: new Decimal(100) },
  interest: { value: new Decimal(0) },
  loan: { value: new Decimal(100) },
  profit: { value: new Decimal('-1.25') },
  riskCoef: new Decimal(2),
});

describe('the stop summary and margin positions left open', () => {
  it('lists each one; says nothing when none is left', () => {
    const split = () => ({ base: 'BTC', quote: 'USDT' });
    const text = summary(
      snap,
      [],
      split,
      [],
      [
        { strategy: 'mt', position: position(7, 'open'), openFee: new Decimal('0.2') },
        { strategy: 'mt', position: position(8, 'pending'), openFee: undefined },
      ],
    );
    expect(text).toContain("margin positions left open on the exchange (2; a stop does not close them; profit is the exchange's, before the opening fee):");
    expect(text).toMatch(/strategy\s+market\s+position\s+side\s+state\s+entry\s+call price\s+liquidation\s+collateral\s+profit\s+opening fee/);
    expect(text).toMatch(/mt\s+BTCUSDT\s+#7\s+long\s+open\s+62010\.5\s+41000\s+40500\s+100\.0+ USDT\s+-1\.25\d* USDT\s+0\.2\d* USDT/);
    expect(text).toMatch(/mt\s+BTCUSDT\s+#8\s+long\s+pending\s+62010\.5\s.*not known/);
    expect(summary(snap, [], split)).not.toContain('left open');
  });
});
