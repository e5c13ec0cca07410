/**
 * A bracket judges "already crossed" by the market's current price, and its exit is booked
 * (`mizan backtest` child process on the bundled BTC/USDT 5-minute data). The strategy is stopped
 * out on 2023-01-03, waits flat for about a day, then buys again with a stop 0.5 % under the close:
 * before the kernel kept one last price per market, the bracket compared that stop with a print
 * from the day before, exited at once at market under a `bracket-tp` tag, and the trade book never
 * booked the exit (trades +242.41 against an equity change of −8.99).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';

const REPO = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-bracket-price-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Result {
  trades: { exit: string; pnl: string }[];
  orders: { type: string; side: string; state: string; tag: string | null }[];
  finalBalances: Record<string, { value: string }>;
  accounting: { pnl: Record<string, string>; dustRevaluation: Record<string, string>; lastPrices: Record<string, string> };
}

describe('mizan backtest: a bracket after a long flat period', () => {
  it('places its stop against the current price and books every exit', async () => {
    const cfg = join(dir, 'bt.yaml');
    writeFileSync(
      cfg,
      [
        'mode: backtest',
        'strategies:',
        '  - name: brk',
        `    strategy: ${join(REPO, 'test/backtest/fixtures/bracket-reentry.ts')}`,
        '    markets: [BTCUSDT]',
        '    resolution: "300s"',
        'backtest:',
        '  data: [{ symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz }]',
        '  from: 2023-01-03T00:00:00Z',
        '  to: 2023-01-20T00:00:00Z',
        '  balances: { USDT: 10000 }',
        'journal: { file: ":memory:" }',
        '',
      ].join('\n'),
    );
    const out = join(dir, 'out');
    const { stdout } = await promisify(execFile)(process.execPath, ['bin/mizan.js', 'backtest', cfg, '--out', out], {
      cwd: REPO,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const r = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Result;
    // No stop was judged crossed on a stale price: every entry got its resting stop.
    expect(stdout).not.toContain('already crossed');
    const entries = r.orders.filter((o) => o.tag?.startsWith('entry-'));
    expect(entries.length).toBeGreaterThanOrEqual(2);
    expect(r.orders.filter((o) => o.type === 'STOP_MARKET').length).toBe(entries.length);
    expect(r.orders.some((o) => o.tag?.startsWith('bracket-tp'))).toBe(false);
    // Every stop that filled closed a trade as a stop loss.
    const stopped = r.orders.filter((o) => o.type === 'STOP_MARKET' && o.state === 'filled').length;
    expect(r.trades.filter((t) => t.exit === 'stop loss').length).toBe(stopped);
    // The trades add up to the account's change, exactly.
    const value = new Decimal(r.finalBalances.USDT!.value).plus(new Decimal(r.finalBalances.BTC!.value).mul(r.accounting.lastPrices.BTCUSDT!));
    const sum = new Decimal(r.accounting.pnl.USDT!);
    expect(sum.toFixed()).toBe(value.minus(10000).toFixed());
  }, 120_000);
});
