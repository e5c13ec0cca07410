import { describe, it, expect } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { ConfigError, validateParams } from '../../src/config/index.js';
import type { ParamSpecs } from '../../src/config/index.js';

const declared: ParamSpecs = {
  fast: { type: 'int', default: 10, min: 2, max: 200 },
  slow: { type: 'int', default: 30, min: 3 },
  size: { type: 'decimal', default: '0.001', min: '0.00000001' },
  mode: { type: 'string', default: 'long', choices: ['long', 'short'] },
  trail: { type: 'boolean', default: false },
  k: { type: 'number', min: 0.5, max: 3, description: 'band width' },
};

function issues(given: Record<string, unknown>) {
  try {
    validateParams(declared, given, 'strategies[0].params');
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).issues;
  }
  return [];
}

describe('validateParams', () => {
  it('fills defaults and turns decimals into Decimal', () => {
    const p = validateParams(declared, { fast: 5, k: 1.5, size: '0.00000001' }, 'strategies[0].params');
    expect(p).toMatchObject({ fast: 5, slow: 30, mode: 'long', trail: false, k: 1.5 });
    expect(p.size).toBeInstanceOf(Decimal);
    expect((p.size as Decimal).toFixed()).toBe('0.00000001');
  });

  it('reports every bad parameter with its path, value and what is allowed', () => {
    const got = issues({ fast: 1.5, slow: 1, size: '-1', mode: 'sideways', trail: 'yes', fsat: 3 });
    const byPath = Object.fromEntries(got.map((i) => [i.path, i.message]));
    expect(byPath['strategies[0].params.fsat']).toMatch(/unknown parameter "fsat"; did you mean "fast"\?/);
    expect(byPath['strategies[0].params.fast']).toBe('1.5 is not a whole number');
    expect(byPath['strategies[0].params.slow']).toBe('1 is out of range (allowed: 3 to ∞)');
    expect(byPath['strategies[0].params.size']).toBe('"-1" is out of range (allowed: 0.00000001 to ∞)');
    expect(byPath['strategies[0].params.mode']).toBe('"sideways" is not allowed (allowed: "long", "short")');
    expect(byPath['strategies[0].params.trail']).toBe('"yes" is not true or false');
    expect(byPath['strategies[0].params.k']).toBe('is required (a number: band width)');
    expect(got).toHaveLength(7);
  });
});
