/**
 * The report as a user gets it: `node bin/mizan.js backtest config/backtest.yaml --out dir` in a
 * child process (the breakdowns in the summary and result.json, the strategies' plot series, colours
 * only on a terminal), then report.html in Debian's chromium: every pane drew on one time axis
 * (candles with the SMA lines, volume, the RSI pane, equity, drawdown), the breakdown tables show
 * the run's numbers, the trades table sorts, filters and jumps to a trade on the chart.
 * Screenshots: test/artifacts/report/ (printed).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BacktestResult } from '../../../src/backtest/result.js';
import { formatAmount, formatBreakdown, pnlDigits } from '../../../src/backtest/breakdowns.js';
import { parseConfig } from '../../../src/config/load.js';
import { runBacktest } from '../../../src/backtest/run.js';
import { REPO } from '../helpers.js';
import { runCli, tempDir } from '../cli/run-cli.js';
import { artifactDir, launchChromium, openReport, panes } from '../browser.js';

const CONFIG = join(REPO, 'config/backtest.yaml');

/** The data's price at equity sample `i` (0: the first, −1: the last) over the run's first open. */
async function closeRatio(i: number): Promise<number> {
  const { readCandleColumns } = await import('../../../src/market/files/read.js');
  const c = readCandleColumns(join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz'));
  const from = Date.parse('2023-01-03T00:00:00Z') / 1000;
  const first = c.time.indexOf(from);
  if (i === 0) return 1;
  const lastClose = Date.parse('2023-01-20T00:00:00Z') / 1000;
  const last = c.time.indexOf(lastClose - 300);
  return c.close[last]! / c.open[first]!;
}
const ARGS = ['backtest', CONFIG, '--to', '2023-01-20'];

describe('backtest report: breakdowns, plots, trades table, aligned panes', { timeout: 240_000 }, () => {
  const out = tempDir();
  let result: BacktestResult;
  let stdout = '';

  it('mizan backtest prints the breakdowns and writes them, the plots and the market precisions to result.json', async () => {
    const r = await runCli([...ARGS, '--out', out], { timeoutMs: 120_000 });
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    stdout = r.stdout;
    result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as BacktestResult;
    const b = result.breakdowns;
    // Each breakdown covers every trade once; pnl sums to the trades' pnl.
    const total = result.trades.reduce((a, t) => a + Number(t.pnl), 0);
    for (const rows of [b.byStrategy, b.byMarket, b.byExit]) {
      expect(rows.reduce((a, x) => a + x.trades, 0)).toBe(result.trades.length);
      expect(rows.reduce((a, x) => a + Number(x.pnl), 0)).toBeCloseTo(total, 6);
    }
    expect(b.byStrategy.map((x) => x.key)).toEqual(['sma', 'rsi']);
    const sma = result.trades.filter((t) => t.strategy === 'sma');
    expect(b.byStrategy[0]).toMatchObject({ trades: sma.length, wins: sma.filter((t) => Number(t.pnl) > 0).length });
    expect(b.byStrategy[0]!.avgDurationMs).toBeCloseTo(sma.reduce((a, t) => a + t.exitTime - t.entryTime, 0) / sma.length, 6);
    expect(new Set(b.byExit.map((x) => x.key))).toEqual(new Set(result.trades.map((t) => t.exit)));
    // The summary prints the same tables (no colour: stdout is a pipe and run-cli sets NO_COLOR).
    for (const [title, rows] of [
      ['strategy', b.byStrategy],
      ['market', b.byMarket],
      ['exit reason', b.byExit],
    ] as const) {
      for (const line of formatBreakdown(title, rows, 'USDT')) expect(stdout).toContain(line);
    }
    expect(stdout).not.toContain('\u001b[');
    expect(result.run.markets.BTCUSDT).toEqual({ base: 'BTC', quote: 'USDT', pricePrecision: 2, quantityPrecision: 6 });
    expect(result.plots.map((p) => `${p.strategy}.${p.name}:${p.pane}`)).toEqual([
      'sma.fastSma:price',
      'sma.slowSma:price',
      'rsi.rsi:rsi',
      'rsi.oversold:rsi',
      'rsi.overbought:rsi',
    ]);
    // From `from` on, one point per candle close.
    const fast = result.plots[0]!;
    expect(fast.times[0]).toBe(Date.parse('2023-01-03T00:00:00Z'));
    expect(fast.times.length).toBe(result.summary.candles + 1);
    expect(result.plots[2]!.levels).toEqual([50]);
  });

  it('colours the summary on a terminal, and not with NO_COLOR', () => {
    // `script` gives the child a pseudo-terminal as stdout.
    const cmd = `${process.execPath} ${join(REPO, 'bin/mizan.js')} ${ARGS.join(' ')}`;
    const env = { ...process.env };
    delete env.NO_COLOR;
    const tty = spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd: REPO, env, encoding: 'utf8', timeout: 120_000 });
    expect(tty.status).toBe(0);
    expect(tty.stdout).toContain('\u001b[1mbacktest 2023-01-03');
    expect(tty.stdout).toMatch(/\u001b\[3[12]m/);
    const noColor = spawnSync('script', ['-qec', cmd, '/dev/null'], { cwd: REPO, env: { ...env, NO_COLOR: '1' }, encoding: 'utf8', timeout: 120_000 });
    expect(noColor.status).toBe(0);
    expect(noColor.stdout).toContain('backtest 2023-01-03');
    expect(noColor.stdout).not.toMatch(/\u001b\[(1|2|3[123])m/);
  });

  it('the plotted SMA values are the SMAs of the closes', async () => {
    const config = parseConfig(
      `mode: backtest
strategies:
  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "300s", params: { fast: 3, slow: 5 } }
backtest:
  data: [ { symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz } ]
  from: 2023-01-03
  to: 2023-01-03T06:00:00Z
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
`,
      { baseDir: REPO },
    );
    const cwd = process.cwd();
    process.chdir(REPO);
    const run = await runBacktest(config).finally(() => process.chdir(cwd));
    const s = run.series[0]!;
    const [fast, slow] = run.result.plots;
    expect(fast!.times.length).toBe(s.length - s.firstIndex + 1);
    for (const [p, n] of [
      [fast!, 3],
      [slow!, 5],
    ] as const) {
      for (let k = 0; k < p.times.length; k++) {
        // The point at a candle's close: the mean of that candle's and the n − 1 earlier closes.
        const i = s.time.findIndex((t) => (t + s.resSec) * 1000 === p.times[k]);
        let sum = 0;
        for (let j = i - n + 1; j <= i; j++) sum += s.close[j]!;
        expect(p.values[k]).toBeCloseTo(sum / n, 8);
      }
    }
  });

  it("report.html draws every pane on one time axis, shows the run's breakdowns, sorts, filters and jumps to a trade", async () => {
    const shots = artifactDir('report');
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1300, height: 1500 } });
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await openReport(page, join(out, 'report.html'));
      const ps = await panes(page);
      expect(ps.map((p) => [p.kind, p.series])).toEqual([
        ['price', 3], // candles + fastSma + slowSma
        ['volume', 1],
        ['indicator', 3], // rsi + oversold + overbought
        ['equity', 2], // equity + buy and hold
        ['tradePnl', 1],
        ['drawdown', 1],
      ]);
      // Buy and hold (issue 34 item 9): the start equity in BTCUSDT at the first open, valued at each
      // close; the trade P/L bars sum to the closed trades' pnl.
      const data = (await page.evaluate(() => (0, eval)('DATA'))) as {
        hold: { label: string; data: { time: number; value?: number }[] };
        tradePnl: { time: number; value?: number }[];
      };
      expect(data.hold.label).toBe('buy and hold BTCUSDT');
      const start = result.equity.values[0]!;
      expect(data.hold.data[0]!.value).toBeCloseTo(start * (await closeRatio(0)), 6);
      expect(data.hold.data.at(-1)!.value).toBeCloseTo(start * (await closeRatio(-1)), 6);
      const closed = result.trades.filter((t) => t.exit !== 'open at end').reduce((a, t) => a + Number(t.pnl), 0);
      expect(data.tradePnl.reduce((a, b) => a + (b.value ?? 0), 0)).toBeCloseTo(closed, 6);
      expect(data.tradePnl.some((b) => (b.value ?? 0) > 0) && data.tradePnl.some((b) => (b.value ?? 0) < 0)).toBe(true);
      for (const p of ps) expect(p.colours, p.label).toBeGreaterThan(2);
      expect(ps[0]!.height).toBeGreaterThan(ps[1]!.height);
      // One time axis: every series starts at the first candle and ends at the last.
      const ends = await page.evaluate(() => {
        type S = { data(): readonly { time: number }[] };
        const chart = (globalThis as unknown as { __report: { chart: { panes(): { getSeries(): S[] }[] } } }).__report.chart;
        return chart.panes().flatMap((p) => p.getSeries().map((s) => [s.data()[0]!.time, s.data()[s.data().length - 1]!.time]));
      });
      for (const e of ends) expect(e).toEqual(ends[0]);
      expect(ends[0]![0]).toBe(Date.parse('2023-01-03T00:00:00Z') / 1000);
      // The page opens on the whole run, first bar to last (the old candle chart opened on its last
      // weeks while the equity chart showed the whole run).
      // (Read until the chart has applied it: it lays out on an animation frame, late on a loaded machine.)
      const visibleRange = () =>
        page.evaluate(() =>
          (globalThis as unknown as { __report: { chart: { timeScale(): { getVisibleRange(): { from: number; to: number } | null } } } }).__report.chart
            .timeScale()
            .getVisibleRange(),
        );
      await expect.poll(visibleRange, { timeout: 10_000 }).toEqual({ from: ends[0]![0], to: ends[0]![1] });
      await page.screenshot({ path: join(shots, 'chart.png') });

      // The breakdown tables show result.json's numbers.
      const cells = (id: string) =>
        page.$$eval(`#${id} tbody tr`, (rows) =>
          rows.map((r) => Array.from((r as unknown as { cells: ArrayLike<{ textContent: string | null }> }).cells, (c) => c.textContent ?? '')),
        );
      for (const [id, rows] of [
        ['breakdown-strategy', result.breakdowns.byStrategy],
        ['breakdown-market', result.breakdowns.byMarket],
        ['breakdown-exit', result.breakdowns.byExit],
      ] as const) {
        const digits = pnlDigits(rows);
        expect(await cells(id)).toEqual(
          rows.map((x) => [x.key, String(x.trades), x.winRatePct.toFixed(1), formatAmount(Number(x.pnl), digits), expect.any(String)]),
        );
      }

      // The trades table: readable times and amounts.
      const first = (await cells('trades'))[0]!;
      const t0 = result.trades[0]!;
      expect(first[3]).toBe(new Date(t0.entryTime).toISOString().slice(0, 16).replace('T', ' ') + ' UTC');
      expect(first[8]).toBe(Number(t0.quantity).toFixed(6));
      expect(first[9]).toMatch(/^-?[\d,]+\.\d{2} USDT$/);
      // Sort by pnl (a click: ascending, another: descending).
      const pnlHeader = page.locator('#trades thead th', { hasText: /^pnl$/ });
      await pnlHeader.click();
      const pnls = () =>
        page.$$eval('#trades tbody tr', (rows) =>
          rows.map((r) => Number((r as unknown as { cells: ArrayLike<{ dataset: { v?: string } }> }).cells[9]!.dataset.v)),
        );
      const asc = [...result.trades.map((t) => Number(t.pnl))].sort((a, b) => a - b);
      expect(await pnls()).toEqual(asc);
      await pnlHeader.click();
      expect(await pnls()).toEqual([...asc].reverse());
      expect(await pnlHeader.getAttribute('aria-sort')).toBe('descending');
      await page.screenshot({ path: join(shots, 'trades-sorted.png'), fullPage: true });
      // Filter by strategy, by side and by text.
      const visible = () => page.$$eval('#trades tbody tr', (rows) => rows.filter((r) => !(r as unknown as { hidden: boolean }).hidden).length);
      await page.selectOption('#filter-strategy', 'rsi');
      expect(await visible()).toBe(result.trades.filter((t) => t.strategy === 'rsi').length);
      expect(await page.textContent('#trades-shown')).toBe(`${result.trades.filter((t) => t.strategy === 'rsi').length} of ${result.trades.length} trades`);
      await page.selectOption('#filter-strategy', '');
      await page.selectOption('#filter-side', 'short');
      expect(await visible()).toBe(0);
      await page.selectOption('#filter-side', '');
      await page.fill('#filter-text', 'open at end');
      expect(await visible()).toBe(result.trades.filter((t) => t.exit === 'open at end').length);
      await page.fill('#filter-text', '');
      // A click on a row shows that trade on the chart.
      const row = page.locator('#trades tbody tr').nth(5);
      const entry = Number(await row.getAttribute('data-entry'));
      const exit = Number(await row.getAttribute('data-exit'));
      await row.click();
      // Zoomed in on the trade: its entry and exit in view, and far less than the whole run.
      const quarter = (Date.parse(result.run.to) - Date.parse(result.run.from)) / 1000 / 4;
      await expect
        .poll(
          async () => {
            const range = await visibleRange();
            return range !== null && range.from <= entry && range.to >= exit && range.to - range.from < quarter;
          },
          { timeout: 10_000 },
        )
        .toBe(true);
      await page.screenshot({ path: join(shots, 'trade-focused.png') });
      expect(errors).toEqual([]);
      process.stdout.write(`report screenshots: ${shots}\n`);
    } finally {
      await browser.close();
    }
  });
});
