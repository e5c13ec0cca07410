/**
 * Issue 33 item 9: a margin position closed by the strategy exactly at a 4-hour boundary is charged
 * the interest due at that instant, as a stop loss at that instant is (`sim/margin/lifecycle.ts`
 * settle() charges it for every way a position closes). `mizan backtest` (a child process) of the
 * bundled margin-trend on the bundled real data, 2023-01-11 to 01-13: its short opened 05:30 on the
 * 12th and closed by a trend flip at 09:30 pays one period. Every trade's fees are checked to be the
 * opening fee (N·taker, N = collateral × riskCoef), the closing fee (q × exit × taker) and the
 * interest of each 4 hours completed (long: C·(k − 1)·r, short: q × entry × r; r = 0.05 %); a position
 * still open at the end has paid only its opening fee.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-margin-interest-');
afterAll(() => tmp.remove());

const PERIOD_MS = 4 * 3600_000;
const TAKER = 0.002;
const RATE = 0.0005;
const C = 500;
const K = 2;

interface Trade {
  side: string;
  entryTime: number;
  exitTime: number;
  entryPrice: string;
  exitPrice: string;
  quantity: string;
  fees: string;
  exit: string;
}

describe('mizan backtest of margin-trend: interest on a close at a 4-hour boundary', () => {
  it('charges the period due when the strategy closes exactly at the boundary', async () => {
    const cfg = tmp.file(
      'mt.yaml',
      `mode: backtest
strategies:
  - name: mt
    strategy: margin-trend
    markets: [BTCUSDT]
    resolution: "300s"
    params: { fast: 12, slow: 26, collateral: ${C}, riskCoef: ${K} }
backtest:
  data: [ { symbol: BTCUSDT, file: ${join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz')} } ]
  from: 2023-01-11
  to: 2023-01-13
  balances: { USDT: 10000 }
  slippagePct: 0.05
journal: { file: ":memory:" }
`,
    );
    const r = await mizan(['backtest', cfg, '--out', join(tmp.dir, 'out')]);
    expect(r.code, r.all).toBe(0);
    const trades = (JSON.parse(tmp.read('out/result.json')) as { trades: Trade[] }).trades;
    const boundary = trades.filter((t) => t.exit === 'signal' && t.exitTime > t.entryTime && (t.exitTime - t.entryTime) % PERIOD_MS === 0);
    expect(boundary.map((t) => `${t.side} ${new Date(t.entryTime).toISOString()} → ${new Date(t.exitTime).toISOString()}`)).toContain(
      'short 2023-01-12T05:30:00.000Z → 2023-01-12T09:30:00.000Z',
    );
    const closed = trades.filter((t) => t.exit !== 'open at end');
    expect(closed.length).toBeGreaterThan(5);
    for (const t of closed) {
      const q = Number(t.quantity);
      const periods = Math.floor((t.exitTime - t.entryTime) / PERIOD_MS);
      const perPeriod = t.side === 'long' ? C * (K - 1) * RATE : q * Number(t.entryPrice) * RATE;
      const want = C * K * TAKER + q * Number(t.exitPrice) * TAKER + periods * perPeriod;
      expect(Number(t.fees), `${JSON.stringify(t)}: ${periods} period(s) of interest`).toBeCloseTo(want, 8);
    }
  }, 120_000);
});
