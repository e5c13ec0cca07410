/**
 * A book backtest's report as a user gets it: `node bin/mizan.js backtest config/book-backtest.yaml
 * --out dir` (the market maker on the bundled hftbacktest capture) in a child process, then
 * report.html in Debian's chromium. Over the candles the engine built from the recorded trades: the
 * mid price and your quotes (your best open buy and sell), a pane of the quoted spread in bps of the
 * mid and one of your inventory, and one marker per fill; result.json's `bookChart` holds the same
 * series. Screenshot: test/artifacts/book-report/chart.png.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BacktestResult } from '../../../src/backtest/result.js';
import { REPO } from '../helpers.js';
import { runCli, tempDir } from '../cli/run-cli.js';
import { artifactDir, launchChromium, openReport, panes } from '../browser.js';

interface Point {
  time: number;
  value?: number;
}
interface ChartData {
  markets: { symbol: string; markers: { time: number; shape: string; text: string }[]; overlays: { label: string; data: Point[] }[] }[];
}

describe('book backtest report: mid, quotes, quoted spread, inventory and fills', { timeout: 240_000 }, () => {
  it('draws what result.json holds', async () => {
    const out = tempDir();
    const r = await runCli(['backtest', join(REPO, 'config/book-backtest.yaml'), '--out', out], { timeoutMs: 180_000 });
    expect(r.code, r.stderr).toBe(0);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as BacktestResult;
    const [book] = result.bookChart ?? [];
    expect(book?.symbol).toBe('BTCUSDT');
    expect(book!.base).toBe('BTC');
    // One sample a simulated second over the run; the market maker quoted on both sides at times.
    expect(book!.times.length).toBeGreaterThan(100);
    for (const k of ['mid', 'bid', 'ask', 'inventory'] as const) expect(book![k]).toHaveLength(book!.times.length);
    const both = book!.times.flatMap((_, i) => (book!.bid[i] != null && book!.ask[i] != null ? [i] : []));
    expect(both.length).toBeGreaterThan(0);
    // A market maker's bid is below its ask.
    for (const i of both) expect(book!.bid[i]!).toBeLessThan(book!.ask[i]!);
    // Every fill of the run is in the chart, as the metrics count them.
    expect(book!.fills).toHaveLength(result.book!.fills);
    expect(book!.fills.filter((f) => f.liquidity === 'maker')).toHaveLength(result.book!.makerFills);
    // The inventory's last sample is the run's final base balance (nothing traded after it).
    expect(book!.inventory.at(-1)).toBeCloseTo(Number(result.finalBalances.BTC?.value ?? '0'), 12);

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
      await openReport(page, join(out, 'report.html'));
      const ps = await panes(page);
      expect(ps.map((p) => [p.kind, p.series])).toEqual([
        ['price', 4], // candles + mid + your bid + your ask
        ['volume', 1],
        ['indicator', 1], // quoted spread
        ['indicator', 1], // inventory
        ['equity', 2],
        ['tradePnl', 1],
        ['drawdown', 1],
      ]);
      expect(ps[0]!.label).toBe('BTCUSDT candles with mid, your bid, your ask');
      expect(ps[2]!.label).toMatch(/^BTCUSDT quoted spread \(bps\): /);
      expect(ps[3]!.label).toMatch(/^BTCUSDT inventory \(BTC\): BTC held$/);
      for (const p of ps) expect(p.colours, p.label).toBeGreaterThan(2);
      const data = (await page.evaluate(() => (0, eval)('DATA'))) as ChartData;
      const m = data.markets[0]!;
      // One marker per fill: buys up, sells down, maker or taker in the label.
      expect(m.markers).toHaveLength(book!.fills.length);
      expect(m.markers.map((x) => x.shape)).toEqual(book!.fills.map((f) => (f.side === 'BUY' ? 'arrowUp' : 'arrowDown')));
      expect(m.markers.map((x) => x.text)).toEqual(book!.fills.map((f) => `${f.liquidity === 'maker' ? 'M' : 'T'} ${f.quantity} @ ${f.price}`));
      // The mid drawn is the sampled mid (the last sample of each chart bar).
      const mid = m.overlays.find((o) => o.label === 'mid')!.data.filter((p) => p.value !== undefined);
      expect(mid.length).toBeGreaterThan(10);
      expect(mid.at(-1)!.value).toBe(book!.mid.at(-1));
      await page.screenshot({ path: join(artifactDir('book-report'), 'chart.png') });
    } finally {
      await browser.close();
    }
  });
});
