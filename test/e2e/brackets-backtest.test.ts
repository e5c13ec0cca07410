/**
 * Brackets in a backtest, through the CLI (`node bin/mizan.js backtest <config> --out <dir>`): an
 * entry with a stop loss and a take profit fills, then the candle path reaches one of the two; the
 * other is cancelled (the stop) or never acted on (the take profit). Prices are exact: slippage 0,
 * so the take profit exits at 105 and the stop at 95 (both lie inside the candles' ranges).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const FIX = resolve(import.meta.dirname, 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-brackets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface OrderRow {
  type: string;
  side: string;
  state: string;
  filled: string;
  avgPrice: string | null;
  stopPrice: string | null;
  tag: string | null;
  quantity: string;
}

async function backtest(csv: string): Promise<{ orders: OrderRow[]; trades: { exit: string; exitPrice: string }[]; stdout: string }> {
  const name = csv.replace('.csv', '');
  const cfg = join(dir, `${name}.yaml`);
  writeFileSync(
    cfg,
    [
      'mode: backtest',
      'strategies:',
      '  - name: brk',
      `    strategy: ${join(FIX, 'bracket-entry.ts')}`,
      '    markets: [BTCUSDT]',
      '    resolution: "300s"',
      '    params: { quantity: 1, stopLoss: 95, takeProfit: 105 }',
      'backtest:',
      `  data: [{ symbol: BTCUSDT, file: ${join(FIX, csv)} }]`,
      '  from: 2023-01-03T00:00:00Z',
      '  to: 2023-01-03T00:30:00Z',
      '  balances: { USDT: 1000 }',
      '  slippagePct: 0',
      '  fillOnTouch: false',
      'journal: { file: ":memory:" }',
      '',
    ].join('\n'),
  );
  const out = join(dir, name);
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/mizan.js', 'backtest', cfg, '--out', out], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1' },
  });
  const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { orders: OrderRow[]; trades: { exit: string; exitPrice: string }[] };
  return { orders: result.orders, trades: result.trades, stdout };
}

const brief = (o: OrderRow) => `${o.type} ${o.side} ${o.state} ${o.filled}${o.avgPrice ? ` @${o.avgPrice}` : ''} ${o.tag?.split(':')[0] ?? ''}`;

describe('mizan backtest: brackets', () => {
  it('take profit first: the stop rests from the entry fill, the path reaches 105, the stop is cancelled and the rest exits at 105', async () => {
    const { orders, trades } = await backtest('brackets-tp.csv');
    expect(trades.map((t) => `${t.exit} @${t.exitPrice}`)).toEqual(['take profit @105']);
    // 1 BTC bought at 100 (taker fee 0.2 % in BTC): 0.998 BTC to protect.
    expect(orders.map(brief)).toEqual([
      'MARKET BUY filled 1 @100 entry',
      'STOP_MARKET SELL cancelled 0 bracket-sl',
      'MARKET SELL filled 0.998 @105 bracket-tp',
    ]);
    expect(orders[1]!.stopPrice).toBe('95');
    // The later candle through 95 found no stop: nothing else was placed.
  }, 60_000);

  it('stop first: the path reaches 95, the stop fills at 95, and the later candle through 105 takes nothing', async () => {
    const { orders, trades } = await backtest('brackets-sl.csv');
    expect(trades.map((t) => `${t.exit} @${t.exitPrice}`)).toEqual(['stop loss @95']);
    expect(orders.map(brief)).toEqual(['MARKET BUY filled 1 @100 entry', 'STOP_MARKET SELL filled 0.998 @95 bracket-sl']);
  }, 60_000);
});
