/** A bot's status snapshot with nothing happening (no pnl, no orders, one healthy book), for status line and summary tests. */
import { Decimal } from '../../src/core/decimal.js';
import type { StatusSnapshot } from '../../src/runtime/status.js';

export function quietSnapshot(over: Partial<StatusSnapshot> = {}): StatusSnapshot {
  return {
    elapsedMs: 65_000,
    mode: 'live',
    reference: 'USDT',
    equity: new Decimal(5000),
    startEquity: new Decimal(5000),
    realized: new Decimal(0),
    unrealized: new Decimal(0),
    openOrders: 0,
    fills: 0,
    denials: 0,
    books: { healthy: 1, total: 1, unhealthy: [] },
    tradingState: 'active',
    ...over,
  };
}
