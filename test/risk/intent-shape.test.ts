import { describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import { intentShapeProblem } from '../../src/risk/intent-shape.js';
import { World, limit } from './fixtures.js';

describe('intent shape (issue 16.6)', () => {
  it('passes well-formed intents of every kind', () => {
    const ok = [
      limit('BUY', '0.001', '60000'),
      {
        kind: 'order',
        strategy: 's',
        symbol: 'BTCUSDT',
        side: 'SELL',
        type: 'MARKET',
        size: { kind: 'fraction', fraction: 0.5 },
        brackets: { stopLoss: d('1') },
      },
      { kind: 'cancel', strategy: 's', clientOrderId: 'x' },
      { kind: 'cancelAll', strategy: 's', symbol: 'BTCUSDT' },
      { kind: 'instant', strategy: 's', symbol: 'USDTTMN', side: 'BUY', size: { kind: 'quote', amount: d('10') } },
      { kind: 'marginOpen', strategy: 's', market: 'BTCUSDT', side: 'long', collateral: d('10'), riskCoef: d('2') },
      { kind: 'marginAddCollateral', strategy: 's', positionId: 3, amount: d('1') },
      { kind: 'marginClose', strategy: 's', positionId: 3 },
    ];
    for (const i of ok) expect(intentShapeProblem(i), JSON.stringify(i)).toBeUndefined();
  });

  it('names the field and the value of what is wrong', () => {
    const o = limit('BUY', '0.001', '60000') as unknown as Record<string, unknown>;
    expect(intentShapeProblem({ kind: 'withdraw', strategy: 's' })).toMatch(/^unknown intent kind "withdraw"/);
    expect(intentShapeProblem({ strategy: 's' })).toMatch(/^unknown intent kind undefined/);
    expect(intentShapeProblem(null)).toBe('an intent must be an object, got null');
    expect(intentShapeProblem({ ...o, side: 'buy' })).toBe('side must be one of BUY, SELL, got "buy"');
    expect(intentShapeProblem({ ...o, type: 'limit' })).toBe('type must be one of LIMIT, MARKET, STOP_LIMIT, STOP_MARKET, got "limit"');
    expect(intentShapeProblem({ ...o, price: 60000 })).toBe('price must be a Decimal, got 60000');
    expect(intentShapeProblem({ ...o, size: { kind: 'base', quantity: '1' } })).toBe('size.quantity must be a Decimal, got "1"');
    expect(intentShapeProblem({ ...o, size: { kind: 'lots', n: 1 } })).toBe('size.kind must be one of base, quote, fraction, got "lots"');
    expect(intentShapeProblem({ ...o, symbol: '' })).toBe('symbol must be a non-empty string, got ""');
    expect(intentShapeProblem({ ...o, tag: 5 })).toBe('tag must be a string, got 5');
    expect(intentShapeProblem({ ...o, brackets: { stopLoss: 5 } })).toBe('brackets.stopLoss must be a Decimal, got 5');
    expect(intentShapeProblem({ kind: 'marginOpen', strategy: 's', market: 'BTCUSDT', side: 'LONG', collateral: d('1'), riskCoef: d('2') })).toBe(
      'side must be one of long, short, got "LONG"',
    );
    expect(intentShapeProblem({ kind: 'marginClose', strategy: 's', positionId: '3' })).toBe('positionId must be a whole number, got "3"');
    expect(intentShapeProblem({ kind: 'cancel', strategy: 's' })).toBe('clientOrderId must be a non-empty string, got undefined');
  });

  it('is the first rule: an unknown kind is denied, not passed', () => {
    const e = new World().engine();
    const v = e.check({ kind: 'withdraw', strategy: 's1' } as never);
    expect(v).toMatchObject({ ok: false, rule: 'intentShape' });
  });
});
