import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { base36, ClientIdGenerator, isValidClientId } from '../../src/execution/client-id.js';

describe('base36', () => {
  it('writes what toString(36) writes, for timestamps, sequence numbers and the edges', () => {
    const ns = [0, 1, 35, 36, 37, 1295, 1296, 46655, 46656, 1577836800000, 1637836800000, 2 ** 31, 2 ** 32 + 7, Number.MAX_SAFE_INTEGER];
    for (let i = 0; i < 5000; i++) ns.push(Math.floor(((i * 2654435761) % 2 ** 32) * 997 + i), i);
    for (const n of ns) expect(base36(n)).toBe(n.toString(36));
  });

  it('leaves fractions and negative numbers to toString(36)', () => {
    for (const n of [1.5, -1, -36, 1577836800000.25]) expect(base36(n)).toBe(n.toString(36));
  });
});

describe('ClientIdGenerator', () => {
  it('makes valid, distinct ids that carry the time and sequence in base 36', () => {
    const clock = new ManualClock(1577836800000);
    const ids = new ClientIdGenerator(clock, 'abc');
    const a = ids.next('sma-cross #1');
    const b = ids.next('sma-cross #1');
    expect(a).toBe(`smacross1_${(1577836800000).toString(36)}abc_0`);
    expect(b).toBe(`smacross1_${(1577836800000).toString(36)}abc_1`);
    clock.set(1577836860000);
    expect(ids.next('sma-cross #1')).toBe(`smacross1_${(1577836860000).toString(36)}abc_0`);
    for (const id of [a, b]) expect(isValidClientId(id)).toBe(true);
  });

  it('a clock reading a fraction of a millisecond still gives valid, distinct ids', () => {
    // A book backtest's simulated clock with a fractional latency read 1577836800010.5: the id held a dot.
    const clock = new ManualClock(1577836800010.5);
    const ids = new ClientIdGenerator(clock, 'abc');
    const seen = new Set<string>();
    for (const t of [1577836800010.5, 1577836800010.75, 1577836800011, 1577836800011.25]) {
      clock.set(t);
      const id = ids.next('mm');
      expect(isValidClientId(id), id).toBe(true);
      seen.add(id);
    }
    expect(seen.size).toBe(4);
  });
});
