/** Helpers for backtest tests: candle files in a temp dir, a config, scripted strategies. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runBacktest } from '../../src/backtest/run.js';
import { parseConfig } from '../../src/config/load.js';
import type { MizanConfig } from '../../src/config/schema.js';
import type { StrategyInstance } from '../../src/kernel/trading-core.js';
import type { Bar } from '../../src/strategy/bar.js';
import type { Draft } from '../../src/strategy/builders.js';
import { defineStrategy, type StrategyContext } from '../../src/strategy/define.js';
import type { FillEvent, OrderUpdate } from '../../src/strategy/views.js';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Real data and exchange samples the tests read, kept in the repository (test/fixtures/README.md). */
export const FIXTURES = resolve(REPO, 'test/fixtures');

/** [o, h, l, c, v] per minute from 2024-01-01T00:00Z. */
export type Ohlcv = [number, number, number, number, number];
export const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000;

export function writeCandles(rows: Ohlcv[], resSec = 60): string {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bt-'));
  const file = join(dir, 'candles.csv');
  const lines = ['time,open,high,low,close,volume', ...rows.map((r, i) => `${T0 + i * resSec},${r.join(',')}`)];
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

export interface ConfigOpts {
  balances?: string;
  extra?: string;
  rows: number;
  resSec?: number;
}

export function config(file: string, o: ConfigOpts): MizanConfig {
  const res = o.resSec ?? 60;
  const text = `mode: backtest
strategies:
  - { name: s, strategy: sma-cross, markets: [BTCUSDT], resolution: "${res}s" }
backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(file)} } ]
  from: ${T0}
  to: ${T0 + o.rows * res}
  balances: ${o.balances ?? '{ USDT: 10000, BTC: 0 }'}
${o.extra ?? ''}
journal: { file: ":memory:" }
`;
  return parseConfig(text, { baseDir: dirname(file) });
}

export interface Script {
  /** Intents to emit after the candle with this index (0-based) closes. */
  at?: Record<number, (ctx: StrategyContext, bar: Bar) => Draft | Draft[] | undefined>;
  onFill?: (f: FillEvent, ctx: StrategyContext) => Draft | Draft[] | undefined;
  log?: { fills: FillEvent[]; orders: OrderUpdate[]; denials: string[] };
}

export function scripted(script: Script, resSec = 60): StrategyInstance {
  const def = defineStrategy({
    name: 'scripted',
    description: 'test script',
    params: {},
    create(ctx) {
      return {
        onCandle(_symbol, bar) {
          const k = (bar.time - T0) / resSec;
          return script.at?.[k]?.(ctx, bar);
        },
        onFill(f) {
          script.log?.fills.push(f);
          return script.onFill?.(f, ctx);
        },
        onOrder(u) {
          script.log?.orders.push(u);
        },
        onDenied(d) {
          script.log?.denials.push(`${d.rule}: ${d.reason}`);
        },
      };
    },
  });
  return { name: 's', definition: def as never, params: {}, markets: ['BTCUSDT'], resolutionSec: resSec, account: 'main' };
}

export function newLog(): NonNullable<Script['log']> {
  return { fills: [], orders: [], denials: [] };
}

/** One-minute candles from T0 (see writeCandles) through a backtest of one scripted strategy. */
export async function runScript(rows: Ohlcv[], extra: string, script: Script, balances?: string) {
  const file = writeCandles(rows);
  const cfg = config(file, { rows: rows.length, extra, ...(balances ? { balances } : {}) });
  return runBacktest(cfg, { instances: [scripted(script)] });
}
