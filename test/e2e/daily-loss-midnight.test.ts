/**
 * `risk.protections.dailyLossLimitPct` in a backtest counts the loss of the day's last candle, the one
 * that closes at 00:00 UTC (`mizan backtest`, child process, hourly candles in a temp dir). The price
 * holds at 100 until the last hour of 2024-01-02, which closes at 97; the strategy (hears-state.ts)
 * holds 99 % of the account in BTC from its first candle. Before, the equity sampled at that midnight
 * close opened 2024-01-03 instead of closing 2024-01-02: the 3 % loss was never compared with the
 * day's start, and at resolution 1D (one sample a day, always at midnight) the limit could never fire.
 * A live bot samples every minute and would have breached before midnight; now both resolutions do.
 */
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-daily-loss-');
afterAll(() => tmp.remove());
const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000;
const HOUR = 3600;

// 2024-01-01 .. 2024-01-03, hourly: 100 until the last hour of 2024-01-02 closes at 97, then 97.
const rows = Array.from({ length: 72 }, (_, i) => {
  const t = T0 + i * HOUR;
  const open = i > 47 ? 97 : 100;
  const close = i >= 47 ? 97 : 100;
  return `${t},${open},${Math.max(open, close) + 0.5},${Math.min(open, close) - 0.5},${close},5`;
});
tmp.file('candles.csv', ['time,open,high,low,close,volume', ...rows].join('\n') + '\n');

function config(resolution: string, limitPct: number): string {
  const strategy = resolve(REPO, 'test/e2e/fixtures/hears-state.ts');
  return tmp.file(
    `bt-${resolution}-${limitPct}.yaml`,
    `mode: backtest
strategies:
  - { name: h, strategy: ${JSON.stringify(strategy)}, markets: [BTCUSDT], resolution: "${resolution}" }
risk:
  protections: { dailyLossLimitPct: ${limitPct} }
backtest:
  data: [ { symbol: BTCUSDT, file: candles.csv } ]
  from: ${T0}
  to: ${T0 + 72 * HOUR}
  balances: { USDT: 10000 }
  fees: { maker: 0, taker: 0 }
journal: { file: ":memory:" }
logging: { level: warn }
`,
  );
}

async function heard(resolution: string, limitPct: number): Promise<Record<string, unknown>[]> {
  const r = await mizan(['backtest', config(resolution, limitPct), '--out', join(tmp.dir, `out-${resolution}-${limitPct}`)], {
    cwd: tmp.dir,
    timeoutMs: 90_000,
  });
  expect(r.code, r.all).toBe(0);
  return r.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === 'heard the trading state');
}

describe('mizan backtest: the daily loss limit sees the candle that closes at midnight', () => {
  for (const resolution of ['60', '1D']) {
    it(`resolution ${resolution}: the last hour's 3 % loss breaches a 1 % limit against 2024-01-02's start`, async () => {
      const h = await heard(resolution, 1);
      expect(h).toHaveLength(1);
      expect(h[0]).toMatchObject({ state: 'reducing', previous: 'active' });
      expect(String(h[0]!.reason)).toMatch(/^daily loss limit: equity \S+ is 2\.\d+% below the day's start \S+ \(2024-01-02 UTC\), limit 1%$/);
    }, 120_000);
  }

  it("resolution 1D: a limit above the day's loss does not fire (the midnight sample opens the next day at its equity)", async () => {
    expect(await heard('1D', 3.5)).toEqual([]);
  }, 120_000);
});
