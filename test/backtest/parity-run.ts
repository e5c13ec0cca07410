/**
 * The paper-versus-backtest parity run of the risk-settings tests: the parity-probe fixture
 * (fixtures/parity-probe.ts) in paper mode against the embedded simulator (real BTCUSDT replay),
 * then the same strategies and risk settings backtested on exactly the candles the paper strategies
 * saw. Both runs' probe logs (denials by candle and rule, fills, margin alerts) are returned.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { parseConfig } from '../../src/config/index.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { runBacktest } from '../../src/backtest/run.js';
import { allocColumns } from '../../src/market/files/columns.js';
import type { ParityLog } from './fixtures/parity-probe.js';
import { REPO } from './helpers.js';
import { waitFor } from '../support/wait-for.js';

export type { ParityLog };

const probe = join(REPO, 'test/backtest/fixtures/parity-probe.ts');

/** One probe instance on BTCUSDT 1 s candles: its name, plan, extra instance keys (`, risk: {...}`) and extra params. */
export const inst = (name: string, plan: string, extra = '', params = '') =>
  `  - { name: ${name}, strategy: ${probe}, markets: [BTCUSDT], resolution: 1s, params: { plan: ${plan}${params} }${extra} }`;

const logs = () => ((globalThis as { __mizanParity?: Record<string, ParityLog> }).__mizanParity ??= {});
const snapshot = () => JSON.parse(JSON.stringify(logs())) as Record<string, ParityLog>;

/** Denials and fills by candle number `k:...`: only those of candles both runs saw. */
export const upTo = (n: number) => (xs: string[]) => xs.filter((x) => Number(x.split(':')[0]) < n);

/** Paper runs and their temp dirs (one bot at a time); `cleanup` stops and removes what is left. */
export function parityRunner() {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-parity-'));
  let bot: Bot | undefined;
  return {
    async cleanup() {
      await bot?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
    /** Run `strategies` with `risk` in paper mode until `done`, then backtest the candles the strategies saw; both runs' logs. */
    async paperThenBacktest(strategies: string, risk: string, done: (l: Record<string, ParityLog>) => boolean, minCandles: number) {
      for (const k of Object.keys(logs())) delete logs()[k];
      bot = await startBot(
        parseConfig(`
mode: paper
simulator: { seed: 9, speed: 2 }
strategies:
${strategies}
${risk}
paper: { balances: { USDT: 10000 } }
journal: { file: ${join(dir, `paper-${Date.now()}.sqlite`)} }
`),
        { logger: silentLogger, intervals: { statusEveryMs: 0 } },
      );
      await waitFor(() => done(logs()), {
        what: "the paper run to reach the test's condition (candles, fills, alerts)",
        timeout: 60_000,
        interval: 250,
        detail: () => JSON.stringify(logs()).slice(-3000),
      });
      const window = bot.core.candleWindow('BTCUSDT', 1);
      await bot.stop();
      bot = undefined;
      const paper = snapshot();
      expect(window.length).toBeGreaterThanOrEqual(minCandles);
      const cols = allocColumns(window.length);
      for (let i = 0; i < window.length; i++) {
        const c = window.at(i);
        cols.time[i] = c.time;
        cols.open[i] = c.open;
        cols.high[i] = c.high;
        cols.low[i] = c.low;
        cols.close[i] = c.close;
        cols.volume[i] = c.volume;
      }
      cols.length = window.length;
      const from = new Date(window.at(0).time * 1000).toISOString();
      const to = new Date((window.at(-1).time + 1) * 1000).toISOString();
      await runBacktest(
        parseConfig(`
mode: backtest
strategies:
${strategies}
${risk}
backtest:
  data: [ { symbol: BTCUSDT, file: unused-columns-given.csv } ]
  from: "${from}"
  to: "${to}"
  balances: { USDT: 10000 }
  slippagePct: 0
journal: { file: ":memory:" }
`),
        { logger: silentLogger, columns: { BTCUSDT: { cols, resSec: 1, source: 'paper candles' } } },
      );
      return { paper, backtest: snapshot(), n: window.length };
    },
  };
}

/**
 * The orders filled, in order (consecutive fills of one order counted once): the paper exchange may
 * fill one market order in several parts, one per book level it takes, a backtest in one (a
 * documented fill-model difference).
 */
export const filledOrders = (fills: string[]): string[] => fills.filter((f, i) => f !== fills[i - 1]);
