import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/core/clock.js';

describe('isoTime', () => {
  it('prints what Date#toISOString prints, for any integer ms (random, day edges, before 1970, far years)', () => {
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const samples = [
      0, -1, 1, 86_399_999, 86_400_000, -86_400_000, -86_400_001, 1_700_000_000_000, 253_402_300_799_999, 253_402_300_800_000, -62_167_219_200_001, 8.64e15,
      -8.64e15,
    ];
    for (let i = 0; i < 20_000; i++) samples.push(Math.floor((rnd() * 2 - 1) * 4e12), Math.floor(rnd() * 2e12) + 1_500_000_000_000);
    for (const ms of samples) expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
  });
  it('throws like Date for a time it cannot print, and takes fractions through Date', () => {
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(isoTime(1.5)).toBe(new Date(1.5).toISOString());
  });
});
