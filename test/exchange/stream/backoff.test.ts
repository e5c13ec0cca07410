import { describe, it, expect } from 'vitest';
import { Backoff } from '../../../src/exchange/stream/backoff.js';
import { ParameterError } from '../../../src/core/errors.js';

describe('Backoff', () => {
  it('retries at once first, then doubles up to the cap', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0 });
    expect([0, 1, 2, 3, 4, 5, 6, 50, 5000].map((n) => b.delay(n))).toEqual([0, 100, 200, 400, 800, 1000, 1000, 1000, 1000]);
  });

  it('full jitter stays within [0, cap] and uses the random source', () => {
    const values = [0, 0.5, 0.999];
    let i = 0;
    const b = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 1 }, () => values[i++ % values.length]!);
    expect(b.delay(4)).toBe(800);
    expect(b.delay(4)).toBe(400);
    expect(b.delay(4)).toBe(1);
    const r = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 1 });
    for (let n = 1; n < 40; n++) {
      const delay = r.delay(n);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(r.capFor(n));
      expect(r.capFor(n)).toBeLessThanOrEqual(1000);
    }
  });

  it('partial jitter keeps the delay in [cap*(1-jitter), cap]', () => {
    const b = new Backoff({ initialMs: 100, maxMs: 1000, jitter: 0.25 }, () => 1);
    expect(b.delay(2)).toBe(150);
  });

  it('rejects bad settings', () => {
    expect(() => new Backoff({ initialMs: -1 })).toThrow(ParameterError);
    expect(() => new Backoff({ initialMs: 500, maxMs: 100 })).toThrow(/reconnect.maxMs/);
    expect(() => new Backoff({ jitter: 2 })).toThrow(/reconnect.jitter/);
  });
});
