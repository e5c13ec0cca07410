/**
 * Audit 2026-11-29 item 8: options accepted that did nothing. A `schedule:` only calls the
 * strategy's onSchedule (its candle handlers run on every candle either way), so on a strategy
 * without onSchedule (sma-cross) it changed nothing; a `capital:` caps what the strategy spends of an
 * asset, so an asset that is neither the base nor the quote of its markets (TMN on BTCUSDT) never
 * applied. `mizan check`, `mizan run` and `mizan backtest` (child processes) refuse both, naming the
 * field, the value and why; a schedule on otc-dca and a USDT capital on BTCUSDT still pass.
 */
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

const DATA = `${REPO}/backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz`;

const paper = (extra: string) => `mode: paper
strategies:
  - name: sma
    strategy: sma-cross
    markets: [BTCUSDT]
${extra}journal:
  file: ${tmp.dir}/never.sqlite
`;

const backtest = (extra: string) => `mode: backtest
strategies:
  - name: sma
    strategy: sma-cross
    markets: [BTCUSDT]
    resolution: 300s
${extra}backtest:
  data:
    - { symbol: BTCUSDT, file: ${DATA} }
  from: 2023-01-03
  to: 2023-01-05
journal: { file: ':memory:' }
`;

const SCHEDULE = '    schedule: { cron: "0 */6 * * *" }\n';
const CAPITAL = '    capital: { TMN: 1000 }\n';
const SCHEDULE_MSG =
  /strategies\[0\]\.schedule: \{ cron: "0 \*\/6 \* \* \*" \} would never run: strategy sma-cross has no onSchedule handler \(a schedule only calls onSchedule; its candle handlers run on every candle either way\)/;
const CAPITAL_MSG = /strategies\[0\]\.capital\.TMN: 1000 TMN would never apply: TMN is not the quote asset of the strategy's markets \(BTCUSDT: BTC\/USDT\)/;

describe('options that would do nothing are refused', { timeout: 180_000 }, () => {
  it('mizan check and mizan run: a schedule on a strategy without onSchedule, a capital in an asset it never spends', async () => {
    for (const [extra, msg] of [
      [SCHEDULE, SCHEDULE_MSG],
      [CAPITAL, CAPITAL_MSG],
    ] as const) {
      const file = tmp.file(`paper-${extra.trim().slice(0, 5)}.yaml`, paper(extra));
      const check = await mizan(['check', file]);
      expect(check.code, check.all).toBe(1);
      expect(check.all).toMatch(msg);
      const run = await mizan(['run', file, '--duration', '5']);
      expect(run.code, run.all).toBe(1);
      expect(run.all).toMatch(msg);
      expect(run.all).not.toContain('embedded simulator');
    }
  });

  it('mizan backtest refuses each before running', async () => {
    for (const [extra, msg] of [
      [SCHEDULE, SCHEDULE_MSG],
      [CAPITAL, CAPITAL_MSG],
    ] as const) {
      const file = tmp.file(`bt-${extra.trim().slice(0, 5)}.yaml`, backtest(extra));
      const out = `${tmp.dir}/report-${extra.trim().slice(0, 5)}`;
      const r = await mizan(['backtest', file, '--out', out]);
      expect(r.code, r.all).not.toBe(0);
      expect(r.all).toMatch(msg);
      expect(existsSync(`${out}/result.json`)).toBe(false);
    }
  });

  it('a schedule on a strategy with onSchedule and a capital in the quote asset still pass', async () => {
    const file = tmp.file(
      'ok.yaml',
      `mode: paper
strategies:
  - name: sma
    strategy: sma-cross
    markets: [BTCUSDT]
    capital: { USDT: 1000 }
  - name: dca
    strategy: otc-dca
    markets: [USDTTMN]
    schedule: { cron: "0 */6 * * *" }
    capital: { TMN: 1000000 }
journal:
  file: ${tmp.dir}/never.sqlite
`,
    );
    const r = await mizan(['check', file]);
    expect(r.code, r.all).toBe(0);
    expect(r.all).toContain('schedule "0 */6 * * *"');
  });
});
