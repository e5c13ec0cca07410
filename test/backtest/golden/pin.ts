/**
 * What a golden backtest pins (everything a change to fills, fees or metrics would move) and the
 * fixture it is compared with: `UPDATE_GOLDEN=1` rewrites the fixture from the run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BacktestResult } from '../../../src/backtest/result.js';

const HERE = dirname(fileURLToPath(import.meta.url));

export function golden(r: BacktestResult) {
  const metrics: Record<string, number | null> = {};
  for (const [k, m] of Object.entries(r.metrics)) if (m && typeof m === 'object' && 'value' in m) metrics[k] = m.value as number | null;
  const pinned = {
    summary: r.summary,
    metrics,
    // A book run's fills, fill ratio, queue time and adverse selection (absent from a candle run).
    book: r.book,
    finalBalances: r.finalBalances,
    trades: r.trades,
    orders: r.orders.map((o) => ({ side: o.side, type: o.type, price: o.price, quantity: o.quantity, filled: o.filled, avgPrice: o.avgPrice, fee: o.fee, state: o.state, tag: o.tag, createdAt: o.createdAt, updatedAt: o.updatedAt })),
  };
  return JSON.parse(JSON.stringify(pinned)) as typeof pinned;
}

export type Golden = ReturnType<typeof golden>;

/** The fixture `<name>.json` beside this file (written from `got` under UPDATE_GOLDEN=1). */
export function fixture(name: string, got: Golden): Golden {
  const file = join(HERE, `${name}.json`);
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(file)) {
    if (process.env.UPDATE_GOLDEN !== '1') throw new Error(`${file} is missing: run with UPDATE_GOLDEN=1 to write it`);
    writeFileSync(file, JSON.stringify(got, null, 1) + '\n');
  }
  return JSON.parse(readFileSync(file, 'utf8')) as Golden;
}
