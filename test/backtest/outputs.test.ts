/** The bundled config end to end: determinism, the CLI's files, the HTML report in Chromium, a sweep. */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/load.js';
import { renderHtmlReport } from '../../src/backtest/report-html.js';
import { registerBacktestCommands } from '../../src/cli/backtest.js';
import { resultJson } from '../../src/backtest/result.js';
import { runBacktest } from '../../src/backtest/run.js';
import { expandSweep, parseParamRange, rankRows, runSweep } from '../../src/backtest/sweep.js';
import { REPO } from './helpers.js';
import { launchChromium, openReport, panes } from './browser.js';

const CONFIG = resolve(REPO, 'config/backtest.yaml');

async function inRepo<T>(fn: () => Promise<T>): Promise<T> {
  const cwd = process.cwd();
  process.chdir(REPO);
  try {
    return await fn();
  } finally {
    process.chdir(cwd);
  }
}

/**
 * Two markets on one clock (the bundled candles twice, the second as a declared market). The second
 * is a copy without the bundled `.meta.json`, which says BTCUSDT: a meta of another market stops a run.
 */
const XBT_FILE = join(mkdtempSync(join(tmpdir(), 'mizan-bt-xbt-')), 'XBTUSDT-5m.csv.gz');
copyFileSync(resolve(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz'), XBT_FILE);
const TWO_MARKETS = `mode: backtest
strategies:
  - { name: sma, strategy: sma-cross, markets: [BTCUSDT, XBTUSDT], resolution: "300s", params: { fast: 10, slow: 30, fraction: 0.3 } }
backtest:
  data:
    - { symbol: BTCUSDT, file: backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz }
    - { symbol: XBTUSDT, file: ${XBT_FILE} }
  from: 2023-01-03
  to: 2023-01-20
  balances: { USDT: 10000 }
  markets:
    - { symbol: XBTUSDT, base: XBT, quote: USDT, pricePrecision: 2, quantityPrecision: 6, minQty: "0.000001", minNotional: "5", makerFee: "0", takerFee: "0" }
journal: { file: ":memory:" }
`;

describe('backtest outputs', () => {
  it('gives a byte-identical JSON result for the same inputs', async () => {
    const a = await inRepo(async () => resultJson((await runBacktest(await loadConfig(CONFIG))).result));
    const b = await inRepo(async () => resultJson((await runBacktest(await loadConfig(CONFIG))).result));
    expect(a).toBe(b);
    const r = JSON.parse(a) as { format: string; equity: { times: number[] }; metrics: object };
    expect(r.format).toBe('mizan-backtest/1');
    expect(r.equity.times.length).toBeGreaterThan(100);
  });

  it('mizan backtest writes result.json and a self-contained report that draws in Chromium', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mizan-bt-out-'));
    const program = new Command().exitOverride();
    registerBacktestCommands(program);
    const write = process.stdout.write.bind(process.stdout);
    let printed = '';
    process.stdout.write = ((s: string) => ((printed += s), true)) as typeof process.stdout.write;
    try {
      await inRepo(() => program.parseAsync(['node', 'mizan', 'backtest', CONFIG, '--out', out]));
    } finally {
      process.stdout.write = write;
    }
    expect(printed).toContain('Total return');
    const json = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { trades: unknown[]; orders: unknown[] };
    expect(json.orders.length).toBeGreaterThan(0);
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html).not.toMatch(/<link[^>]+href=/);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
      const requests: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url());
      });
      await openReport(page, join(out, 'report.html'));
      // One chart: candles, volume, the rsi strategy's pane, equity (with buy and hold), trade P/L, drawdown; each drew (more than one colour).
      const one = await panes(page);
      expect(one.map((p) => p.kind)).toEqual(['price', 'volume', 'indicator', 'equity', 'tradePnl', 'drawdown']);
      for (const p of one) expect(p.colours, p.label).toBeGreaterThan(2);
      await page.screenshot({ path: join(out, 'report.png'), fullPage: false });
      expect(existsSync(join(out, 'report.png'))).toBe(true);
      expect(requests).toEqual([]);

      // A run over two markets draws a candle pane for each, with its own trades' markers.
      const two = await inRepo(async () => runBacktest(parseConfig(TWO_MARKETS, { baseDir: REPO })));
      expect(new Set(two.result.trades.map((t) => t.symbol))).toEqual(new Set(['BTCUSDT', 'XBTUSDT']));
      writeFileSync(join(out, 'two.html'), renderHtmlReport(two.result, two.series));
      await openReport(page, join(out, 'two.html'));
      const both = await panes(page);
      expect(both.filter((p) => p.kind === 'price').map((p) => p.label.split(' ')[0])).toEqual(['BTCUSDT', 'XBTUSDT']);
      for (const p of both) expect(p.colours, p.label).toBeGreaterThan(2);
      expect(requests).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('sweeps parameters on worker threads and ranks the runs', async () => {
    const config = await inRepo(() => loadConfig(resolve(REPO, 'config/backtest-sweep.yaml')));
    await expect(expandSweep(config, [parseParamRange('fast=1..3:1')])).rejects.toThrow(/below the declared minimum/);
    const combos = await expandSweep(config, [parseParamRange('fast=5..10:5'), parseParamRange('slow=20,30')]);
    expect(combos).toHaveLength(4);
    const rows = await inRepo(() => runSweep(combos, { configFile: resolve(REPO, 'config/backtest-sweep.yaml'), workers: 2 }));
    expect(rows.every((r) => !r.error)).toBe(true);
    const ranked = rankRows(rows, 'totalReturnPct');
    const vals = ranked.map((r) => r.metrics.totalReturnPct as number);
    expect([...vals].sort((a, b) => b - a)).toEqual(vals);
  }, 120_000);
});
