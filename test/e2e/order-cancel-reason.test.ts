/**
 * A market order the exchange cancels reaches the strategy's onOrder with the reason (audit: the
 * backtest summary named the volume cap, the strategy's `OrderUpdate.reason` was undefined although
 * views.ts documents it "for rejections and cancels"). `mizan backtest` with a tiny `volumeCapPct`.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

describe('the reason of an order the exchange cancelled', { timeout: 120_000 }, () => {
  it("reaches the strategy's onOrder, as the summary states it", async () => {
    const file = tmp.file(
      'vc.yaml',
      `mode: backtest
strategies:
  - { name: q, strategy: ${join(REPO, 'test/e2e/fixtures/order-reasons.ts')}, markets: [BTCUSDT], resolution: '300s' }
backtest:
  data:
    - { symbol: BTCUSDT, file: ${join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz')} }
  from: 2023-01-03
  to: 2023-01-04
  balances: { USDT: 10000 }
  volumeCapPct: 0.001
journal: { file: ':memory:' }
logging: { level: warn, pretty: false }
`,
    );
    const r = await mizan(['backtest', file]);
    expect(r.code, r.all).toBe(0);
    const reason = /ORDER m3 cancelled reason=(.*?)"/.exec(r.all)?.[1];
    expect(reason, r.all).toMatch(/^market order of [\d.]+ is larger than the volume cap/);
    // The summary's block of the exchange's reasons names the same.
    expect(r.all).toContain(reason!.replace(/\\"/g, '"').slice(0, 40));
  });
});
