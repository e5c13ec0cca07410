/**
 * Instant order ids across runs (audit finding 5): without a nonce (a backtest) the ids are the
 * seed's alone and the same on every run; with one (paper, `mizan sim`: a random one per run) two
 * runs never make the same id, so a journal that outlives a run never merges their orders.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Ledger } from '../../../src/sim/ledger.js';
import { InstantDesk } from '../../../src/sim/instant.js';
import { D, FakePrices, specs, T0 } from './helpers.js';

/** A fresh desk (a run) and the ids of its first `n` instant buys. */
function run(n: number, idNonce?: string): string[] {
  const ledger = new Ledger();
  ledger.credit('a', 'USDT', D(100_000));
  const prices = new FakePrices();
  prices.set('BTCUSDT', '49900', '50100');
  const desk = new InstantDesk({ ledger, prices, specs, clock: new ManualClock(T0), ...(idNonce !== undefined ? { idNonce } : {}) });
  return Array.from({ length: n }, () => desk.place('a', { symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.001') }).clientOrderId);
}

const UUID_SHAPED = /^OTC-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/;

describe('instant order ids', () => {
  it('are the same on every run without a nonce (a backtest), as before', () => {
    const a = run(3);
    expect(run(3)).toEqual(a);
    // The seed-only derivation, unchanged: sha256("mizan-sim:1") shaped as a UUID.
    expect(a[0]).toBe('OTC-8dcbbf4d-e8a5-44f1-8676-d1f773a56f24');
    expect(new Set(a).size).toBe(3);
  });

  it('differ between two runs with their own nonces, and are unique and UUID-shaped within a run', () => {
    const a = run(5, 'run-a');
    const b = run(5, 'run-b');
    for (const id of [...a, ...b]) expect(id).toMatch(UUID_SHAPED);
    expect(new Set([...a, ...b]).size).toBe(10);
    // A nonce is a derivation input like the seed: the same nonce gives the same ids.
    expect(run(5, 'run-a')).toEqual(a);
  });
});
