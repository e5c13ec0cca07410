/**
 * `mizan backtest` of a bot holding USDT and Toman (TMN), trading BTCUSDT and BTCTMN, with USDTTMN
 * loaded to value the Toman: the first equity sample is the whole account (USDT plus the Toman at
 * USDTTMN's first price), whatever the order of `backtest.data`. Before the fix, USDTTMN (no
 * strategy's market: no warm-up, so its series starts at `from`) had no price at the first sample
 * unless it came first in the list; the Toman was left out of it silently, so the run reported
 * the account doubling or halving from the first point to the second.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, mizan, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-two-quotes-');
afterAll(() => tmp.remove());

const T0 = Date.UTC(2023, 0, 2) / 1000;
const N = 2 * 288; // two days of 5-minute candles
const FROM = '2023-01-03';

/** A 5-minute CSV: `price(i)` as open and close, ±0.1 % high and low. */
function csv(name: string, price: (i: number) => number, dp: number): string {
  const rows = ['time,open,high,low,close,volume'];
  for (let i = 0; i < N; i++) {
    const o = price(i);
    const c = price(i + 1);
    const f = (x: number) => x.toFixed(dp);
    rows.push(`${T0 + i * 300},${f(o)},${f(Math.max(o, c) * 1.001)},${f(Math.min(o, c) * 0.999)},${f(c)},10`);
  }
  return tmp.file(name, rows.join('\n') + '\n');
}

const btcUsdt = (i: number) => 16_000 + 200 * Math.sin(i / 20);
const usdtTmn = (i: number) => 59_000 + i * 5;
const files = {
  BTCUSDT: csv('BTCUSDT.csv', btcUsdt, 2),
  BTCTMN: csv('BTCTMN.csv', (i) => btcUsdt(i) * usdtTmn(i), 0),
  USDTTMN: csv('USDTTMN.csv', usdtTmn, 0),
};

function config(order: (keyof typeof files)[], paths: Record<string, string> = files): string {
  return [
    'mode: backtest',
    'strategies:',
    "  - { name: tmn, strategy: sma-cross, markets: [BTCTMN], resolution: '300s', params: { fast: 5, slow: 20, fraction: 0.5 } }",
    "  - { name: usd, strategy: sma-cross, markets: [BTCUSDT], resolution: '300s', params: { fast: 5, slow: 20, fraction: 0.5 } }",
    'backtest:',
    '  data:',
    ...order.map((s) => `    - { symbol: ${s}, file: ${JSON.stringify(paths[s])} }`),
    `  from: ${FROM}`,
    '  to: 2023-01-04',
    '  balances: { USDT: 10000, TMN: 590000000 }',
    "journal: { file: ':memory:' }",
    'logging: { level: warn, pretty: false }',
    '',
  ].join('\n');
}

describe('mizan backtest: an account in two quote assets', () => {
  it('values the whole account at the first sample, whatever the order of backtest.data', async () => {
    const firsts: number[][] = [];
    for (const order of [
      ['BTCUSDT', 'BTCTMN', 'USDTTMN'],
      ['USDTTMN', 'BTCUSDT', 'BTCTMN'],
    ] as (keyof typeof files)[][]) {
      const out = join(tmp.dir, order.join('-'));
      const r = await mizan(['backtest', tmp.file(`${order.join('-')}.yaml`, config(order)), '--out', out]);
      expect(r.code, r.all).toBe(0);
      const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { equity: { values: number[] }; summary: { startEquity: number } };
      const v = result.equity.values;
      // 10,000 USDT + 590,000,000 TMN at USDTTMN's price at `from` (59,000 + 288 × 5 = 60,440): 19,761.75.
      const whole = 10_000 + 590_000_000 / usdtTmn(288);
      expect(result.summary.startEquity, r.all).toBeCloseTo(whole, 0);
      // Nothing jumps from one sample to the next by more than the two markets can move in 5 minutes.
      for (let i = 1; i < v.length; i++) expect(Math.abs(v[i]! / v[i - 1]! - 1), `sample ${i}: ${v[i - 1]} -> ${v[i]}`).toBeLessThan(0.01);
      firsts.push(v.slice(0, 3));
    }
    expect(firsts[1]).toEqual(firsts[0]);
  });

  it('says which samples left an asset out when its route has no price yet (the data starts later)', async () => {
    // USDTTMN from 06:00 on the first day: the Toman has no price in the samples before (its first
    // candle opens at 06:00, which values it from then on).
    const late = tmp.file(
      'USDTTMN-late.csv',
      readFileSync(files.USDTTMN, 'utf8')
        .split('\n')
        .filter((l, i) => i === 0 || (l !== '' && Number(l.split(',')[0]) >= Date.UTC(2023, 0, 3, 6) / 1000))
        .join('\n') + '\n',
    );
    const out = join(tmp.dir, 'late');
    const r = await mizan(['backtest', tmp.file('late.yaml', config(['BTCUSDT', 'BTCTMN', 'USDTTMN'], { ...files, USDTTMN: late })), '--out', out]);
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toMatch(
      /data: TMN: left out of 73 equity sample\(s\) from 2023-01-03T00:00:00\.000Z to 2023-01-03T05:55:00\.000Z: USDTTMN, its route to USDT, had no price yet/,
    );
  });

  it('warms up with the clock at each warm-up candle, whichever series is listed first', async () => {
    // The clock started at the first listed series' first candle: with USDTTMN (no warm-up: it starts
    // at from) first, the BTCUSDT warm-up candles were walked with the clock already at from, so the
    // warm-up gate (clock < from) let their intents through and stamped them at from.
    const probe = join(REPO, 'test/e2e/fixtures/warm-probe.ts');
    const text = [
      'mode: backtest',
      'strategies:',
      `  - { name: probe, strategy: ${JSON.stringify(probe)}, markets: [BTCUSDT], resolution: '300s' }`,
      'backtest:',
      '  data:',
      `    - { symbol: USDTTMN, file: ${JSON.stringify(files.USDTTMN)} }`,
      `    - { symbol: BTCUSDT, file: ${JSON.stringify(files.BTCUSDT)} }`,
      `  from: ${FROM}`,
      '  to: 2023-01-03T02:00:00Z',
      '  balances: { USDT: 10000, TMN: 590000000 }',
      "journal: { file: ':memory:' }",
      'logging: { level: warn, pretty: false }',
      '',
    ].join('\n');
    const out = join(tmp.dir, 'probe');
    const r = await mizan(['backtest', tmp.file('probe.yaml', text), '--out', out]);
    expect(r.code, r.all).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as {
      orders: { createdAt: number }[];
      denied: { total: number; byRule?: Record<string, number> };
    };
    const fromMs = Date.parse(FROM);
    expect(result.orders.length, r.all).toBeGreaterThan(0);
    expect(Math.min(...result.orders.map((o) => o.createdAt)), r.all).toBeGreaterThanOrEqual(fromMs);
    // Every warm-up candle's buy denied (the probe declares 20; the candle closing at from is the run's first).
    expect(result.denied.total, r.all).toBeGreaterThanOrEqual(19);
    expect(r.stdout).toMatch(/warmup/);
  });
});
