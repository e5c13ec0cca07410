/** Helpers for backtest tests: candle files in a temp dir, a config, scripted strategies. */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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

/** The bundled real BTCUSDT 5-minute candles (2023-01-02 .. 2023-02-09). */
const BUNDLED_5M = join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz');

/**
 * `mizan backtest <dir>/<name>.yaml --out <dir>/out-<name>` in a child process, as a user runs it,
 * on a config of `strategies` (YAML lines) over the bundled 5-minute data; `backtest` holds the
 * lines of the `backtest:` section after `data:` (range, balances, ...), `extra` top-level sections.
 * Returns what it printed and its result.json.
 */
export async function cliBacktest<R>(
  dir: string,
  name: string,
  o: { strategies: string; backtest: string; extra?: string },
): Promise<{ stdout: string; result: R }> {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `mode: backtest
strategies:
${o.strategies}
${o.extra ?? ''}
backtest:
  data:
    - { symbol: BTCUSDT, file: ${JSON.stringify(BUNDLED_5M)} }
${o.backtest}
journal: { file: ":memory:" }
logging: { level: warn, pretty: false }
`,
  );
  const out = join(dir, `out-${name}`);
  const { stdout } = await promisify(execFile)(process.execPath, [join(REPO, 'bin/mizan.js'), 'backtest', file, '--out', out], { cwd: REPO });
  return { stdout, result: JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as R };
}
