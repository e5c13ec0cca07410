/**
 * The dashboard's charts and market views (issue 34 item 7), as a user opens them: a paper bot
 * (config/default.yaml) started by `node bin/mizan.js run <config> --serve --port 0` in a child
 * process, on a journal that already holds three days of equity history (a point a minute, as
 * earlier runs write it), and Debian's chromium on its page.
 *  - start-up prints the dashboard's URL;
 *  - the overview's equity chart is one series of evenly spaced periods (a real time axis), capped,
 *    that keeps its spacing while the stream pushes a status every 2 s;
 *  - the API's amounts are rounded to the reference asset's and the markets' precision;
 *  - btc-sma's page draws its declared plots (fastSma, slowSma) over its candles;
 *  - the Books page shows best bid / ask, spread and depth as GET /books gives them;
 *  - the Positions page shows each position's current price and value.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { Journal } from '../../src/store/journal.js';
import { artifactDir, launchChromium } from '../backtest/browser.js';
import { defaultConfigCopy, sleep, startMizan, waitFor, type MizanChild } from './run-mizan.js';

const TOKEN = { read: 'charts-read-token-0123456789', control: 'charts-control-token-0123456789' };
const HISTORY_MINUTES = 3 * 1440;
// Response bodies are read field by field in the assertions.
type Json = Record<string, any>;

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-dashboard-charts-'));
const shots = artifactDir('dashboard-charts');
let child: MizanChild;
let base: string;
let browser: Browser;
let page: Page;

async function api(path: string): Promise<Json> {
  const r = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${TOKEN.read}` } });
  expect(r.status, path).toBe(200);
  return (await r.json()) as Json;
}

const decimals = (v: string) => (v.includes('.') ? v.split('.')[1]!.length : 0);

async function shot(name: string): Promise<void> {
  const file = join(shots, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  process.stdout.write(`dashboard screenshot: ${file}\n`);
}

/** What a chart element's series (left on it by charts.js) holds: lightweight-charts' own data. */
const seriesData = (p: Page, testid: string) =>
  p.evaluate((id) => {
    const el = (
      globalThis as unknown as { document: { querySelector(s: string): { chartSeries?: { data(): { time: number; value?: number }[] } } | null } }
    ).document.querySelector(`[data-testid=${id}]`);
    return el?.chartSeries ? el.chartSeries.data().map((d) => ({ time: d.time, value: d.value ?? null })) : null;
  }, testid);

beforeAll(async () => {
  const copy = defaultConfigCopy(dir);
  // Earlier runs' history: three days, a point a minute, values with the 40 digits of the arithmetic.
  const j = Journal.open(copy.journal);
  const now = Date.now();
  for (let m = HISTORY_MINUTES; m >= 1; m--) j.recordEquity('USDT', new Decimal('22140.3380140000000000000000000000001').plus(m), {}, now - m * 60_000 - 7_000);
  j.close();
  child = startMizan(['run', copy.config, '--serve', '--port', '0'], { MIZAN_SERVER_TOKEN: TOKEN.read, MIZAN_SERVER_CONTROL_TOKEN: TOKEN.control });
  await waitFor('the API address', () => /API on http:\/\/127\.0\.0\.1:\d+/.test(child.out()), 90_000, child, 200);
  base = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(child.out())![1]!;
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  // The page waits for its scripts (the chart library among them) from a bot that is starting four
  // strategies: beside a second suite (load 10-15) that took over the 30 s default once.
  page.setDefaultNavigationTimeout(120_000);
  await page.goto(`${base}/`);
  await page.getByTestId('token').fill(TOKEN.read);
  await page.getByTestId('connect').click();
  await page.locator('[data-testid=connection]', { hasText: 'live' }).waitFor({ timeout: 30_000 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  if (child?.alive()) {
    child.proc.kill('SIGINT');
    await Promise.race([child.exited, sleep(15_000)]);
    if (child.alive()) child.proc.kill('SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe("the dashboard's charts and market views (mizan run --serve, in chromium)", () => {
  it("prints the dashboard's URL at start-up", () => {
    expect(child.out()).toContain(`dashboard: ${base}/`);
  });

  it("the API rounds equity to the reference asset's precision and every market amount to the market's", async () => {
    const s = await api('/api/v1/status');
    expect(s.reference).toBe('USDT');
    expect(typeof s.referencePrecision).toBe('number');
    for (const k of ['equity', 'startEquity', 'pnl', 'realized', 'unrealized'])
      expect(decimals(s[k] as string), `status.${k} ${s[k]}`).toBeLessThanOrEqual(s.referencePrecision);
    const points = (await api('/api/v1/equity?limit=10000')).points as Json[];
    expect(points.length).toBeGreaterThanOrEqual(HISTORY_MINUTES);
    for (const p of points) expect(decimals(p.equity), `equity point ${p.equity}`).toBeLessThanOrEqual(s.referencePrecision);
    const markets = new Map((s.markets as Json[]).map((m) => [m.symbol as string, m]));
    expect([...markets.keys()].sort()).toEqual(['BTCTMN', 'BTCUSDT', 'ETHUSDT', 'USDTTMN']);
    for (const st of (await api('/api/v1/strategies')).strategies as Json[]) {
      for (const p of st.pnl as Json[]) {
        const m = markets.get(p.symbol)!;
        expect(decimals(p.avgPrice), `${st.name} avgPrice ${p.avgPrice}`).toBeLessThanOrEqual(m.pricePrecision);
        expect(decimals(p.position), `${st.name} position ${p.position}`).toBeLessThanOrEqual(m.basePrecision);
        for (const k of ['realized', 'unrealized', 'fees']) expect(decimals(p[k]), `${st.name} ${k} ${p[k]}`).toBeLessThanOrEqual(m.quotePrecision);
      }
    }
  });

  it("the overview's equity is one series of evenly spaced periods at real times, capped, through the stream's 2 s statuses", async () => {
    const read = async () => {
      const d = await seriesData(page, 'equity-chart');
      expect(d, "the equity chart's series").not.toBeNull();
      return d!;
    };
    await expect.poll(async () => (await read()).length, { timeout: 30_000 }).toBeGreaterThan(100);
    const first = await read();
    const step = Number(await page.getByTestId('equity-chart').getAttribute('data-step'));
    const check = (d: { time: number; value: number | null }[]) => {
      const gaps = new Set(d.slice(1).map((p, i) => p.time - d[i]!.time));
      expect([...gaps], 'the spacing of the equity points (s)').toEqual([step]);
      expect(d.length).toBeLessThanOrEqual(1500);
      // Three days of history: from about three days ago to now.
      expect(d[0]!.time).toBeLessThanOrEqual(Date.now() / 1000 - HISTORY_MINUTES * 60 + step);
      expect(d.at(-1)!.time).toBeGreaterThan(Date.now() / 1000 - 2 * step - 10);
    };
    check(first);
    expect(step).toBeGreaterThan(60); // 4,320 minutes do not fit in 1,500 points: the periods were merged
    // Statuses every 2 s: four of them, then the same spacing and no point for each of them.
    const pushed = (await api('/api/v1/status')).uptimeMs as number;
    await expect.poll(async () => (await api('/api/v1/status')).uptimeMs - pushed, { timeout: 30_000 }).toBeGreaterThan(8_000);
    const later = await read();
    check(later);
    expect(later.length - first.length).toBeLessThanOrEqual(1);
    // The last point is the equity the bot pushed last (the stat above the chart), as a number.
    const shown = Number(await page.getByTestId('equity').getAttribute('data-value'));
    await expect
      .poll(async () => Math.abs((await read()).at(-1)!.value! - Number(await page.getByTestId('equity').getAttribute('data-value'))), { timeout: 10_000 })
      .toBe(0);
    expect(shown).toBeGreaterThan(0);
    await shot('overview');
  });

  it("a strategy page draws the strategy's declared plots over its candles", async () => {
    await page.goto(`${base}/#/strategy/btc-sma`);
    const chart = page.getByTestId('candles-BTCUSDT');
    await expect.poll(() => chart.getAttribute('data-plots'), { timeout: 60_000 }).toBe('2');
    const drawn = await page.evaluate(() => {
      type S = { data(): { time: number; value?: number }[] };
      const el = (globalThis as unknown as { document: { querySelector(s: string): { plotSeries?: Map<string, S> } | null } }).document.querySelector(
        '[data-testid=candles-BTCUSDT]',
      )!;
      return Object.fromEntries(
        [...el.plotSeries!.entries()].map(([k, s]) => [
          k,
          s
            .data()
            .filter((d) => d.value !== undefined)
            .map((d) => ({ time: d.time, value: d.value! })),
        ]),
      );
    });
    expect(Object.keys(drawn).sort()).toEqual(['fastSma', 'slowSma']);
    const plots = (await api('/api/v1/strategies/btc-sma/plots')).plots as Json[];
    expect(plots.map((p) => `${p.symbol} ${p.name} ${p.pane}`).sort()).toEqual(['BTCUSDT fastSma price', 'BTCUSDT slowSma price']);
    const candles = (await api('/api/v1/candles?symbol=BTCUSDT&resolution=2&limit=500')) as Json;
    const times = new Set((candles.candles as Json[]).map((c) => c.time as number));
    for (const name of ['fastSma', 'slowSma']) {
      const pts = drawn[name]!;
      expect(pts.length, name).toBeGreaterThan(0);
      // Each point at one of the candles' times, at the value the API gives for it.
      const fromApi = new Map((plots.find((p) => p.name === name)!.points as Json[]).map((p) => [Math.floor(p.time / 2000) * 2 - 2, p.value as number]));
      for (const p of pts) {
        if (times.has(p.time)) expect(fromApi.get(p.time), `${name} at ${p.time}`).toBe(p.value);
      }
      expect(pts.filter((p) => times.has(p.time)).length, `${name} points on candles`).toBeGreaterThan(0);
      // An SMA of BTCUSDT's closes lies within the candles' range.
      const lows = Math.min(...(candles.candles as Json[]).map((c) => Number(c.low)));
      const highs = Math.max(...(candles.candles as Json[]).map((c) => Number(c.high)));
      for (const p of pts) expect(p.value).toBeGreaterThanOrEqual(lows * 0.9);
      for (const p of pts) expect(p.value).toBeLessThanOrEqual(highs * 1.1);
    }
    await shot('strategy-plots');
  });

  it('the Books page shows best bid / ask, spread and depth of every market, as GET /books gives them', async () => {
    const books = (await api('/api/v1/books')).books as Json[];
    const status = await api('/api/v1/status');
    const markets = new Map((status.markets as Json[]).map((m) => [m.symbol as string, m]));
    expect(books.map((b) => b.symbol).sort()).toEqual(['BTCTMN', 'BTCUSDT', 'ETHUSDT', 'USDTTMN']);
    for (const b of books) {
      const m = markets.get(b.symbol)!;
      expect(Number(b.bestBid.price), b.symbol).toBeLessThan(Number(b.bestAsk.price));
      expect(new Decimal(b.spread).eq(new Decimal(b.bestAsk.price).minus(b.bestBid.price)), `${b.symbol} spread ${b.spread}`).toBe(true);
      for (const v of [b.bestBid.price, b.bestAsk.price, b.spread]) expect(decimals(v)).toBeLessThanOrEqual(m.pricePrecision);
      expect(Number(b.depth.bid.quantity)).toBeGreaterThan(0);
      expect(Number(b.depth.ask.quantity)).toBeGreaterThan(0);
      expect(b.bids.length).toBeGreaterThan(0);
    }
    await page.goto(`${base}/#/books`);
    for (const b of books) {
      const row = page.locator(`[data-testid=books] tr[data-symbol=${b.symbol}]`);
      await expect.poll(() => row.getByTestId('best-bid').textContent(), { timeout: 15_000 }).toMatch(/^[\d,.]+ × [\d,.]+$/);
      expect(await row.getByTestId('best-ask').textContent()).toMatch(/^[\d,.]+ × [\d,.]+$/);
      expect(await row.getByTestId('spread').textContent()).toMatch(/^[\d,.]+ \([\d.]+ bps\)$/);
      expect(await row.getByTestId('bid-depth').textContent()).toMatch(/^[\d,.]+ \([\d,.]+ [A-Z]+, \d+ levels\)$/);
      expect(await row.getByTestId('ask-depth').textContent()).toMatch(/^[\d,.]+ \([\d,.]+ [A-Z]+, \d+ levels\)$/);
      // The page's best bid is one GET /books gave (it reads them again with each status).
      const text = (await row.getByTestId('best-bid').textContent())!;
      const price = Number(text.split(' × ')[0]!.replace(/,/g, ''));
      expect(price).toBeGreaterThan(0);
      expect(Math.abs(price / Number(b.bestBid.price) - 1)).toBeLessThan(0.05);
    }
    await shot('books');
  });

  it("the Positions page shows each position's current price and value (position × price)", async () => {
    // The bundled strategies hold positions within their first minute (npm-start-first-minute.test.ts).
    const positions = async () =>
      ((await api('/api/v1/strategies')).strategies as Json[]).flatMap((s) =>
        (s.pnl as Json[]).filter((p) => Number(p.position) !== 0).map((p): Json => ({ strategy: s.name as string, ...p })),
      );
    await expect.poll(async () => (await positions()).length, { timeout: 90_000 }).toBeGreaterThan(0);
    const status = await api('/api/v1/status');
    const markets = new Map((status.markets as Json[]).map((m) => [m.symbol as string, m]));
    for (const p of await positions()) {
      const m = markets.get(p.symbol)!;
      expect(p.price, `${p.strategy} ${p.symbol} price`).not.toBeNull();
      const tick = new Decimal(10).pow(-m.pricePrecision);
      const unit = new Decimal(10).pow(-m.basePrecision);
      const cent = new Decimal(10).pow(-m.quotePrecision);
      // value is the exact position × the exact mid, rounded; both shown rounded: within their roundings.
      const err = new Decimal(p.value).minus(new Decimal(p.position).mul(p.price)).abs();
      expect(
        err.lte(new Decimal(p.position).abs().mul(tick).plus(unit.mul(p.price)).plus(cent)),
        `${p.strategy} ${p.symbol}: ${p.value} vs ${p.position} × ${p.price}`,
      ).toBe(true);
      expect(decimals(p.price)).toBeLessThanOrEqual(m.pricePrecision);
      expect(decimals(p.value)).toBeLessThanOrEqual(m.quotePrecision);
    }
    await page.goto(`${base}/#/positions`);
    const first = (await positions())[0]!;
    const row = page.locator(`[data-testid=positions] tr[data-strategy=${first.strategy}][data-symbol=${first.symbol}]`);
    await expect.poll(() => row.getByTestId('position-price').getAttribute('data-value'), { timeout: 15_000 }).toMatch(/^\d/);
    // One read of each cell (its value and its text together): the page redraws as the price moves.
    const cell = (id: string) => row.getByTestId(id).evaluate((el) => ({ value: el.getAttribute('data-value')!, text: el.textContent! }));
    const price = await cell('position-price');
    const value = await cell('position-value');
    expect(price.text.replace(/,/g, '')).toBe(String(Number(price.value)));
    expect(value.text).toMatch(new RegExp(`^[-\\d,.]+ ${markets.get(first.symbol)!.quote}$`));
    expect(Number(value.value)).not.toBe(0);
    await shot('positions');
  });
});
