/**
 * Audit 2026-11-29 item 8, below the CLI (test/e2e/ignored-options.test.ts runs mizan): a capital
 * asset neither leg of the strategy's markets (legs from the simulator's markets and
 * backtest.markets, else base + quote of the symbol) and a schedule on a strategy whose handlers
 * have no onSchedule (asked of an instance with the configured params) are config problems.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectConfig, parseConfig } from '../../src/config/load.js';
import { ConfigError } from '../../src/config/issues.js';
import { loadStrategyInstances } from '../../src/runtime/strategy-loader.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-ignored-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const capitalIssues = (text: string) =>
  inspectConfig(text, { env: { WALLEX_API_KEY: 'k-0123456789' }, baseDir: dir })
    .issues.filter((i) => i.path.includes('.capital.'))
    .map((i) => `${i.path}: ${i.message}`);

describe('capital in an asset the strategy never spends', () => {
  it("a market of the exchange's catalog (live): the asset must end its symbol (a capital caps buys: the quote)", () => {
    const out = capitalIssues(`mode: live
exchange: { simulator: false, apiKey: "\${WALLEX_API_KEY}" }
strategies:
  - { name: a, strategy: sma-cross, markets: [SOLUSDT], capital: { SOL: 1, USDT: 10, TMN: 1000 } }
`);
    expect(out).toEqual([
      expect.stringMatching(/^strategies\[0\]\.capital\.SOL: 1 SOL would never apply: SOL is not the quote asset .*\(SOLUSDT\)/),
      expect.stringMatching(/^strategies\[0\]\.capital\.TMN: 1000 TMN would never apply: TMN is not the quote asset .*\(SOLUSDT\)/),
    ]);
  });

  it('a market declared in backtest.markets: its own legs, exactly', () => {
    const out = capitalIssues(`mode: backtest
strategies:
  - { name: a, strategy: sma-cross, markets: [SOLUSDT, BTCUSDT], capital: { SO: 1, BTC: 1, USDT: "5" } }
backtest:
  data: [{ symbol: SOLUSDT, file: s.csv }, { symbol: BTCUSDT, file: b.csv }]
  from: 2024-01-01
  to: 2024-02-01
  markets:
    - { symbol: SOLUSDT, base: SOL, quote: USDT, pricePrecision: 2, quantityPrecision: 2, minQty: 0.01, minNotional: 1, makerFee: 0.001, takerFee: 0.001 }
`);
    expect(out).toEqual([
      expect.stringMatching(/^strategies\[0\]\.capital\.SO: 1 SO would never apply: .*\(SOLUSDT: SOL\/USDT, BTCUSDT: BTC\/USDT\)/),
      expect.stringMatching(/^strategies\[0\]\.capital\.BTC: 1 BTC would never apply: BTC is not the quote asset .*\(SOLUSDT: SOL\/USDT, BTCUSDT: BTC\/USDT\)/),
    ]);
  });
});

async function scheduleProblems(strategy: string, params = '{}'): Promise<string[]> {
  const config = parseConfig(
    `mode: paper
strategies:
  - name: s
    strategy: ${strategy}
    markets: [BTCUSDT]
    params: ${params}
    schedule: { cron: "0 * * * *" }
`,
    { env: {}, baseDir: dir },
  );
  try {
    await loadStrategyInstances(config);
    return [];
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe('a schedule on a strategy without onSchedule', () => {
  it('is refused for sma-cross and accepted for otc-dca', async () => {
    expect(await scheduleProblems('sma-cross')).toEqual([
      expect.stringMatching(/^strategies\[0\]\.schedule: \{ cron: "0 \* \* \* \*" \} would never run: strategy sma-cross has no onSchedule handler/),
    ]);
    expect(await scheduleProblems('otc-dca')).toEqual([]);
  });

  it('asks the handlers made with the configured params, methods of a class included', async () => {
    writeFileSync(
      join(dir, 'cond.ts'),
      `class Ticker { onSchedule() { return undefined; } }
export default {
  name: 'cond',
  description: 'onSchedule only when tick is on',
  params: { tick: { type: 'boolean', default: false } },
  create(ctx: { params: { tick: boolean } }) { return ctx.params.tick ? new Ticker() : {}; },
};
`,
    );
    expect(await scheduleProblems(join(dir, 'cond.ts'))).toEqual([expect.stringMatching(/strategy cond has no onSchedule handler/)]);
    expect(await scheduleProblems(join(dir, 'cond.ts'), '{ tick: true }')).toEqual([]);
  });
});
