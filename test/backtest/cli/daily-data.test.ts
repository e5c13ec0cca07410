/**
 * Stock-like daily data (Monday to Friday) through `mizan backtest` in a child process: fills after a
 * weekend are stamped at the bar they happen in (issue 16 item 14); weekends are no gaps, and data
 * problems print once (item 16).
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers.js';
import { readResult, runCli, tempDir, writeFile } from './run-cli.js';

const FIX = resolve(REPO, 'test/backtest/cli/fixtures');
const DAY = 86_400;
const MON = Date.parse('2024-01-01T00:00:00Z') / 1000; // a Monday

/** Weekday candles for `weeks` weeks: open 100 + i, close 100.5 + i (i = the weekday candle's index); `skip` leaves days out. */
function weekdays(weeks: number, skip: string[] = []): { rows: string[]; times: number[] } {
  const rows: string[] = [];
  const times: number[] = [];
  let i = 0;
  for (let d = 0; d < weeks * 7; d++) {
    const t = MON + d * DAY;
    const wd = new Date(t * 1000).getUTCDay();
    if (wd === 0 || wd === 6) continue;
    if (skip.includes(new Date(t * 1000).toISOString().slice(0, 10))) continue;
    rows.push(`${t},${100 + i},${102 + i},${99 + i},${100.5 + i},1000`);
    times.push(t);
    i++;
  }
  return { rows, times };
}

function setup(rows: string[], weeks: number, strategy: string, extra = ''): { dir: string; config: string; out: string } {
  const dir = tempDir();
  writeFile(dir, 'daily.csv', ['time,open,high,low,close,volume', ...rows].join('\n') + '\n');
  const config = writeFile(
    dir,
    'bt.yaml',
    `mode: backtest
strategies:
  - { name: s, strategy: ${JSON.stringify(join(FIX, strategy))}, markets: [BTCUSDT], resolution: "1D"${extra} }
backtest:
  data: [ { symbol: BTCUSDT, file: daily.csv } ]
  from: ${MON}
  to: ${MON + weeks * 7 * DAY}
  balances: { USDT: 100000 }
  fees: { maker: 0, taker: 0 }
journal: { file: ":memory:" }
`,
  );
  return { dir, config, out: join(dir, 'out') };
}

describe('mizan backtest on weekday data', () => {
  it('stamps a fill after a weekend at the Monday open it happens at, not at the Saturday close it was decided on', async () => {
    const { rows } = weekdays(3);
    // Candle 4 is Friday Jan 5 (closes Sat 00:00): the buy fills at Monday Jan 8's open (candle 5,
    // open 105). Candle 9 is Friday Jan 12: the sell fills at Monday Jan 15's open (candle 10, 110).
    const s = setup(rows, 3, 'buy-sell.ts', ', params: { buyAt: 4, sellAt: 9, qty: 1 }');
    const r = await runCli(['backtest', s.config, '--out', s.out], { cwd: s.dir });
    expect(r.code, r.stderr).toBe(0);
    const res = readResult(s.out) as unknown as { trades: { entryTime: number; exitTime: number; entryPrice: string; exitPrice: string }[] };
    expect(res.trades).toHaveLength(1);
    const t = res.trades[0]!;
    expect(t.entryPrice).toBe('105');
    expect(t.exitPrice).toBe('110');
    expect(new Date(t.entryTime).toISOString()).toBe('2024-01-08T00:00:00.000Z');
    expect(new Date(t.exitTime).toISOString()).toBe('2024-01-15T00:00:00.000Z');
    // The orders were decided at the Saturday closes and filled at the Monday opens.
    const orders = (res as unknown as { orders: { side: string; createdAt: number; updatedAt: number }[] }).orders.map((o) => [
      o.side,
      new Date(o.createdAt).toISOString(),
      new Date(o.updatedAt).toISOString(),
    ]);
    expect(orders).toEqual([
      ['BUY', '2024-01-06T00:00:00.000Z', '2024-01-08T00:00:00.000Z'],
      ['SELL', '2024-01-13T00:00:00.000Z', '2024-01-15T00:00:00.000Z'],
    ]);
  }, 60_000);

  it('a year of weekday candles: weekends are no gaps, a missing weekday is, and each data line prints once', async () => {
    const { rows } = weekdays(52, ['2024-07-04']); // a Thursday holiday
    const s = setup(rows, 52, 'buy-sell.ts', ', params: { buyAt: 1000000 }');
    const r = await runCli(['backtest', s.config, '--out', s.out], { cwd: s.dir });
    expect(r.code, r.stderr).toBe(0);
    const gapLines = r.stdout.split('\n').filter((l) => l.includes('gap(s)'));
    expect(gapLines).toEqual(['data: BTCUSDT: 1 gap(s), 1 missing candle(s): 2024-07-04T00:00:00.000Z..2024-07-04T00:00:00.000Z (1)']);
    expect(r.stdout).toContain('data note: BTCUSDT: no candle on Sun, Sat in the whole data (daily.csv): taken as days the market is closed, not as gaps');
    // Printed once: in the summary, not also before the run.
    expect(r.stderr).not.toContain('gap(s)');
    expect(r.stderr).not.toContain('data note');
    const res = readResult(s.out) as unknown as { data: { series: { gaps: unknown[]; missingBars: number; closedDays: string[] }[] } };
    expect(res.data.series[0]).toMatchObject({ missingBars: 1, closedDays: ['Sun', 'Sat'] });
  }, 60_000);

  it('two weeks are too few to detect a weekly closure; backtest.data[].weekdays declares it', async () => {
    const { rows } = weekdays(2);
    const plain = setup(rows, 2, 'buy-sell.ts', ', params: { buyAt: 1000000 }');
    const r1 = await runCli(['backtest', plain.config], { cwd: plain.dir });
    expect(r1.stdout).toContain('data: BTCUSDT: 1 gap(s), 2 missing candle(s): 2024-01-06T00:00:00.000Z..2024-01-07T00:00:00.000Z (2)');
    const declared = setup(rows, 2, 'buy-sell.ts', ', params: { buyAt: 1000000 }');
    writeFile(
      declared.dir,
      'bt.yaml',
      (await import('node:fs')).readFileSync(declared.config, 'utf8').replace('file: daily.csv }', 'file: daily.csv, weekdays: [mon, tue, wed, thu, fri] }'),
    );
    const r2 = await runCli(['backtest', declared.config], { cwd: declared.dir });
    expect(r2.code, r2.stderr).toBe(0);
    expect(r2.stdout).not.toContain('gap(s)');
    expect(r2.stdout).not.toContain('data note');
  }, 60_000);

  it('round-the-clock data keeps a missing Saturday as a gap', async () => {
    const rows: string[] = [];
    for (let d = 0; d < 28; d++) if (d !== 12) rows.push(`${MON + d * DAY},100,102,99,100.5,1000`); // Saturday Jan 13 missing
    const s = setup(rows, 4, 'buy-sell.ts', ', params: { buyAt: 1000000 }');
    const r = await runCli(['backtest', s.config], { cwd: s.dir });
    expect(r.stdout).toContain('data: BTCUSDT: 1 gap(s), 1 missing candle(s): 2024-01-13T00:00:00.000Z..2024-01-13T00:00:00.000Z (1)');
    expect(r.stdout).not.toContain('data note');
  }, 60_000);
});
