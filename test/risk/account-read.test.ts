/**
 * Rule 1b, the account read (rules/account-read.ts): until the kernel's ledger has read an account
 * from the exchange, an intent that spends is denied, naming the wait, never checked against a
 * balance nobody reported (a restart once denied with "only -19.94 is free"). Cancels pass.
 */
import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { RiskEngine } from '../../src/risk/engine.js';
import { limit, World } from './fixtures.js';

describe('the account read', () => {
  it('denies what spends on an account not read yet, names the wait, and passes once it is read', () => {
    const w = new World();
    w.setBalance('USDT', '-19.94');
    const read = new Set<string>();
    const e = new RiskEngine({ ports: w.ports({ balancesRead: (a) => read.has(a) }), clock: w.clock, sink: w.sink });
    const buy = limit('BUY', '0.001', '60000');
    const v = e.check(buy);
    expect(v.ok).toBe(false);
    if (v.ok) return;
    expect(v.rule).toBe('balance');
    expect(v.reason).toBe(
      'the balances of main have not been read from the exchange yet: waiting for the first read of the account (no order intent is checked before it)',
    );
    expect(e.reservations.reserved('main', 'USDT').toFixed()).toBe('0');
    for (const intent of [
      { kind: 'cancel' as const, strategy: 's1', symbol: 'BTCUSDT', clientOrderId: 'x' },
      { kind: 'cancelAll' as const, strategy: 's1', symbol: 'BTCUSDT' },
    ])
      expect(e.check(intent).ok).toBe(true);
    // A margin top-up spends too.
    expect(e.check({ kind: 'marginAddCollateral', strategy: 's1', positionId: 1, amount: d('5') })).toMatchObject({ ok: false, rule: 'balance' });
    read.add('main');
    w.setBalance('USDT', '1000');
    expect(e.check(buy).ok).toBe(true);
  });
});
