/** HandlerErrors: the first error of a kind logged with its stack, repeats counted and rate-limited; the status line shows the count. */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import type { Logger } from '../../src/core/logger.js';
import { statusLine, summary } from '../../src/runtime/status.js';
import { HandlerErrors } from '../../src/strategy/handler-errors.js';

function capturing(): { logger: Logger; lines: { obj: Record<string, unknown>; msg: string }[] } {
  const lines: { obj: Record<string, unknown>; msg: string }[] = [];
  const error = (obj: object | string, msg?: string) =>
    void lines.push(typeof obj === 'string' ? { obj: {}, msg: obj } : { obj: obj as Record<string, unknown>, msg: msg ?? '' });
  const noop = () => {};
  const logger: Logger = { trace: noop, debug: noop, info: noop, warn: noop, error, fatal: noop, child: () => logger };
  return { logger, lines };
}

describe('HandlerErrors', () => {
  it('logs the first of each kind with the error, then at most one line per minute per kind with the repeats', () => {
    const { logger, lines } = capturing();
    let wall = 1_000_000;
    let sim = 5;
    const e = new HandlerErrors(logger, 's', { now: () => sim, wallNow: () => wall });
    for (let i = 0; i < 1000; i++) {
      e.record('onBook', new Error('bad book'));
      wall += 10; // 1000 errors in 10 s
      sim += 1;
    }
    e.record('onFill', 'a string');
    expect(lines).toHaveLength(2);
    expect(lines[0]!.msg).toBe('strategy handler onBook failed: Error: bad book');
    expect((lines[0]!.obj.err as Error).stack).toContain('handler-errors.test.ts');
    expect(lines[1]!.msg).toBe('strategy handler onFill failed: thrown string: a string');
    wall += 60_000;
    e.record('onBook', new Error('bad book'));
    expect(lines).toHaveLength(3);
    expect(lines[2]!.msg).toBe('strategy handler onBook failed again 1000 time(s) since the last report (1001 in all): Error: bad book');
    e.record('onBook', new Error('bad book'));
    expect(lines).toHaveLength(3);
    expect(e.total).toBe(1003);
    expect(e.list().map((k) => [k.handler, k.error, k.count, k.firstAt])).toEqual([
      ['onBook', 'Error: bad book', 1002, 5],
      ['onFill', 'thrown string: a string', 1, 1005],
    ]);
  });

  it('the status line and the stop summary count the errors', () => {
    const base = {
      elapsedMs: 65_000,
      mode: 'paper',
      reference: 'USDT',
      equity: new Decimal(100),
      startEquity: new Decimal(100),
      realized: new Decimal(0),
      unrealized: new Decimal(0),
      openOrders: 0,
      fills: 0,
      denials: 2,
      books: { healthy: 1, total: 1, unhealthy: [] },
      tradingState: 'active',
    };
    expect(statusLine(base, false)).not.toContain('errors');
    expect(statusLine({ ...base, errors: 7 }, false)).toContain('denied 2  errors 7  books');
    expect(summary({ ...base, errors: 7 }, [], () => ({ base: 'BTC', quote: 'USDT' }))).toContain('strategy handler errors 7');
  });

  it('a message whose numbers change is one kind; past 50 kinds the rest are counted together', () => {
    const { logger, lines } = capturing();
    const e = new HandlerErrors(logger, 's', { now: () => 0, wallNow: () => 0 });
    for (let i = 0; i < 100; i++) e.record('onCandle', new Error(`bad price ${100 + i * 0.5} on BTCUSDT`));
    expect(e.list()).toHaveLength(1);
    expect(e.list()[0]).toMatchObject({ error: 'Error: bad price 100 on BTCUSDT', count: 100 });
    for (let i = 0; i < 60; i++) e.record('onCandle', new Error(`kind-${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`));
    // 50 kinds (the price one and 49 more), then one entry for the other 11.
    expect(e.list()).toHaveLength(51);
    expect(e.list().at(-1)).toMatchObject({ handler: '(any)', count: 11, error: 'errors of more than 50 kinds, the first: Error: kind-XB' });
    expect(lines).toHaveLength(51);
    expect(e.total).toBe(160);
  });
});
