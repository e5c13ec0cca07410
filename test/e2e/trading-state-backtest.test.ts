/**
 * Issue 34 item 3, the backtest mode: `onTradingState` is delivered by the kernel in every mode. A
 * `mizan backtest` (child process, candle file in a temp dir) whose strategy buys, then watches the
 * price fall through `risk.protections.maxDrawdownPct`: the protection halts the run and the
 * strategy hears it (its ctx.log line on stderr), with the context it was created with.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO } from './cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-bt-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000;

describe('mizan backtest: a protection halt reaches onTradingState (issue 34 item 3)', () => {
  it('the strategy hears active -> halted with the protection as the reason', async () => {
    // 40 one-minute candles falling from 100 to 61: a 10 % drawdown is crossed after about ten.
    const rows = Array.from({ length: 40 }, (_, i) => `${T0 + i * 60},${100 - i},${100.5 - i},${99 - i},${99 - i},5`);
    writeFileSync(join(dir, 'candles.csv'), ['time,open,high,low,close,volume', ...rows].join('\n') + '\n');
    const strategy = resolve(REPO, 'test/e2e/fixtures/hears-state.ts');
    const config = join(dir, 'bt.yaml');
    writeFileSync(
      config,
      `mode: backtest
strategies:
  - { name: h, strategy: ${JSON.stringify(strategy)}, markets: [BTCUSDT], resolution: "60s" }
risk:
  protections: { maxDrawdownPct: 10, onBreach: halted }
backtest:
  data: [ { symbol: BTCUSDT, file: candles.csv } ]
  from: ${T0}
  to: ${T0 + 40 * 60}
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
logging: { level: warn }
`,
    );
    const r = await mizan(['backtest', config, '--out', join(dir, 'out')], { cwd: dir, timeoutMs: 90_000 });
    const heard = r.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'heard the trading state');
    expect(heard, r.all).toHaveLength(1);
    expect(heard[0]).toMatchObject({ strategy: 'h', state: 'halted', previous: 'active', same: true });
    expect(String(heard[0]!.reason)).toMatch(/drawdown/i);
  }, 120_000);
});
