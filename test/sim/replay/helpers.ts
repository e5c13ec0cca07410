import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Decimal } from '../../../src/core/decimal.js';
import type { ReplayLevel, ReplayTarget, ReplayTrade } from '../../../src/sim/replay/index.js';

const here = dirname(fileURLToPath(import.meta.url));
export const DATA = resolve(here, '../../fixtures/data');
export const BUNDLED = resolve(here, '../../../backtest/data');

export interface Pushed {
  kind: 'bid' | 'ask' | 'trade';
  symbol: string;
  time: number | undefined;
  at: number;
  levels?: ReplayLevel[];
  trade?: ReplayTrade;
}

/** A fake simulator recording what it was given, and when (by `now()`). */
export function fakeTarget(now: () => number = () => 0): ReplayTarget & { log: Pushed[] } {
  const log: Pushed[] = [];
  return {
    log,
    replaceBookSide(symbol, side, levels, timeMs) {
      log.push({ kind: side, symbol, time: timeMs, at: now(), levels });
    },
    recordTrade(trade) {
      log.push({ kind: 'trade', symbol: trade.symbol, time: trade.timestamp, at: now(), trade });
    },
  };
}

/** Strictly ordered, positive quantities, on the grid. */
export function checkSide(levels: readonly { price: Decimal; quantity: Decimal }[], side: 'bid' | 'ask', tickDecimals: number): void {
  for (let i = 0; i < levels.length; i++) {
    const l = levels[i]!;
    if (l.price.decimalPlaces() > tickDecimals) throw new Error(`${side} ${i} price ${l.price.toFixed()} off the grid`);
    if (!l.quantity.gt(0)) throw new Error(`${side} ${i} quantity ${l.quantity.toFixed()}`);
    if (i > 0) {
      const prev = levels[i - 1]!.price;
      if (side === 'bid' ? !l.price.lt(prev) : !l.price.gt(prev)) throw new Error(`${side} ${i} out of order`);
    }
  }
}
