/**
 * A marginClose that names no price closes at the market, as a market sell (long) or buy (short)
 * does: priced at the best bid (ask) moved by the strategy's maxSlippagePct, so a market that moves
 * against the position between the decision and the exchange (the next candle's open in a backtest,
 * the local book's lag in paper and live) still closes it, at the exchange's price. Beyond the
 * slippage bound it waits, as a market order beyond its bound is refused.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { marginClose, marginOpen } from '../../src/strategy/builders.js';
import { runScript, type Ohlcv } from './helpers.js';

const flat: Ohlcv = [100, 100, 100, 100, 1000];

async function closeIntoGap(side: 'long' | 'short', nextOpen: number, extra = '') {
  const gap: Ohlcv = [nextOpen, nextOpen, nextOpen, nextOpen, 1000];
  const r = await runScript([flat, flat, flat, gap, gap, gap], extra, {
    at: {
      0: () => marginOpen({ market: 'BTCUSDT', side, collateral: 1000, riskCoef: 2 }),
      2: (ctx) => ctx.marginPositions('BTCUSDT').filter((p) => p.state === 'open').map((p) => marginClose(p.id)),
    },
  });
  return r.result.trades.find((t) => t.side === side)!;
}

describe('marginClose without a price', () => {
  it('closes a long at the next open when the market gaps down within the slippage bound', async () => {
    const t = await closeIntoGap('long', 99);
    expect(t.exit).toBe('signal');
    expect(t.exitPrice).toBe('99');
  });

  it('closes a short at the next open when the market gaps up within the slippage bound', async () => {
    const t = await closeIntoGap('short', 101);
    expect(t.exit).toBe('signal');
    expect(t.exitPrice).toBe('101');
  });

  it('waits beyond the strategy maxSlippagePct, as a market order beyond its bound would not fill', async () => {
    const t = await closeIntoGap('long', 99, 'risk:\n  limits: { maxSlippagePct: 0.5 }');
    expect(t.exit).toBe('open at end');
  });
});

describe('mizan backtest: a marginClose without a price, through the CLI', () => {
  const REPO = resolve(import.meta.dirname, '../..');
  const FIX = resolve(REPO, 'test/e2e/fixtures');
  const dir = mkdtempSync(join(tmpdir(), 'mizan-margin-close-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function backtest(csv: string, long: boolean): Promise<{ exit: string; exitPrice: string; side: string }[]> {
    const cfg = join(dir, `${csv}-${long}.yaml`);
    writeFileSync(
      cfg,
      [
        'mode: backtest',
        'strategies:',
        '  - name: gap',
        `    strategy: ${join(FIX, 'margin-close-gap.ts')}`,
        '    markets: [BTCUSDT]',
        '    resolution: "300s"',
        `    params: { long: ${long}, closeAfter: 2 }`,
        'backtest:',
        `  data: [{ symbol: BTCUSDT, file: ${join(FIX, csv)} }]`,
        '  from: 2023-01-03T00:00:00Z',
        '  to: 2023-01-03T00:30:00Z',
        '  balances: { USDT: 5000 }',
        '  slippagePct: 0',
        'journal: { file: ":memory:" }',
        '',
      ].join('\n'),
    );
    const out = join(dir, `${csv}-${long}`);
    await promisify(execFile)(process.execPath, ['bin/mizan.js', 'backtest', cfg, '--out', out], { cwd: REPO, env: { ...process.env, NO_COLOR: '1' } });
    return (JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { trades: { exit: string; exitPrice: string; side: string }[] }).trades;
  }

  it('closes a long at the next open after a 1 % gap down, and a short after a 1 % gap up', async () => {
    const [down, up] = await Promise.all([backtest('margin-gap-down.csv', true), backtest('margin-gap-up.csv', false)]);
    expect(down.map((t) => `${t.side} ${t.exit} @${t.exitPrice}`)).toEqual(['long signal @99']);
    expect(up.map((t) => `${t.side} ${t.exit} @${t.exitPrice}`)).toEqual(['short signal @101']);
  }, 60_000);
});
