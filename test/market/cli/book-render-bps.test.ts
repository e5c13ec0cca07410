/**
 * Issue 34 item 10: `mizan book`'s spread in basis points has enough precision to be read (a 0.01
 * spread at a 100,000 price is 0.001 bps, not `0 bps`).
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import { bpsText } from '../../../src/cli/market/book-render.js';

describe('bpsText', () => {
  it('two significant digits under 1 bps, two decimals from 1 bps, 0 only for no spread', () => {
    const bps = (spread: string, mid: string) => bpsText(new Decimal(spread).div(mid).mul(10_000));
    expect(bps('0.01', '100000')).toBe('0.001');
    expect(bps('0.01', '30000')).toBe('0.0033');
    expect(bps('1', '3000')).toBe('3.33');
    expect(bps('25', '1000')).toBe('250');
    expect(bps('0', '1000')).toBe('0');
  });
});
