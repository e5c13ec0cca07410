/** The bundled config end to end: determinism, the CLI's files, the HTML report in Chromium, a sweep. */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { registerBacktestCommands } from '../../src/backtest/cli-command.js';
import { resultJson } from '../../src/backtest/result.js';
import { runBacktest } from '../../src/backtest/run.js';
import { expandSweep, parseParamRange, rankRows, runSweep } from '../../src/backtest/sweep.js';
import { REPO } from './helpers.js';

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
    // Debian's chromium: `npm test` installs it first when missing (scripts/ensure-chromium.mjs).
    if (!existsSync('/usr/bin/chromium')) expect.fail('/usr/bin/chromium is missing: apt-get install -y chromium (npm test does it when run as root)');
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
      const requests: string[] = [];
      page.on('request', (r) => {
        if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) requests.push(r.url());
      });
      await page.goto('file://' + join(out, 'report.html'));
      await page.waitForFunction(() => (globalThis as unknown as { __charts?: number }).__charts === 3);
      const canvases = await page.locator('#candles canvas').count();
      expect(canvases).toBeGreaterThan(0);
      // Drew, not just made canvases: each chart's canvases hold pixels of more than one colour.
      const colours = await page.evaluate(() => {
        type Canvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null };
        const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<Canvas> } }).document;
        return ['#candles', '#equity', '#drawdown'].map((sel) => {
          const seen = new Set<number>();
          for (const c of Array.from(doc.querySelectorAll(`${sel} canvas`))) {
            const ctx = c.getContext('2d');
            if (!ctx || c.width === 0 || c.height === 0) continue;
            const px = ctx.getImageData(0, 0, c.width, c.height).data;
            for (let i = 0; i < px.length; i += 4 * 97) seen.add(px[i]! * 16777216 + px[i + 1]! * 65536 + px[i + 2]! * 256 + px[i + 3]!);
          }
          return seen.size;
        });
      });
      for (const n of colours) expect(n).toBeGreaterThan(2);
      await page.screenshot({ path: join(out, 'report.png'), fullPage: false });
      expect(existsSync(join(out, 'report.png'))).toBe(true);
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
