/**
 * The optimisation report in Debian's chromium (Playwright, the launcher of the backtest report's
 * test): `mizan optimize --walk-forward … --report` as a child process, then every chart is checked
 * for drawn marks (one dot per complete trial, the best-so-far line, heatmap cells, importance
 * bars, one scatter per parameter, the walk-forward bars and the stitched equity); no network; a
 * screenshot is saved to .tmp/artifacts/optimize-report.png.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mizan, REPO, tempDir, type TempDir } from '../e2e/cli.js';

/** The few DOM members the page checks use (the tests compile without the DOM library). */
interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
  width: number;
  height: number;
}
interface El {
  getBoundingClientRect(): Rect;
  querySelectorAll(sel: string): Iterable<El>;
  getAttribute(name: string): string | null;
}
interface Doc {
  querySelector(sel: string): El | null;
}

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('mizan-opt-report-');
});
afterAll(() => tmp.remove());

it('draws trials over time, objective by parameter, a heatmap, importance and the walk-forward charts', async () => {
  const storage = join(tmp.dir, 's.sqlite');
  const report = join(tmp.dir, 'report.html');
  const r = await mizan(
    [
      'optimize',
      'config/backtest-sweep.yaml',
      '--param',
      'fast=5..30',
      '--param',
      'slow=40..150',
      '--param',
      'fraction=0.1..1',
      '--objective',
      'return',
      '--trials',
      '14',
      '--workers',
      '1',
      '--seed',
      '2',
      '--study',
      'rep',
      '--storage',
      storage,
      '--walk-forward',
      'train=14d,test=7d',
      '--report',
      report,
    ],
    { timeoutMs: 400_000 },
  );
  expect(r.code, r.all).toBe(0);
  expect(r.stdout).toContain(`wrote ${report}`);
  const db = new Database(storage, { readonly: true });
  const last = db.prepare("SELECT t.state, t.value FROM trials t JOIN studies s ON s.id = t.study_id WHERE s.name = 'rep/wf3'").all() as {
    state: string;
    value: number | null;
  }[];
  db.close();
  const complete = last.filter((t) => t.state === 'complete').length;
  expect(complete).toBeGreaterThan(0);

  const html = readFileSync(report, 'utf8');
  expect(html).not.toMatch(/<script/);
  expect(html).not.toMatch(/<link[^>]+href=/);
  if (!existsSync('/usr/bin/chromium')) expect.fail('/usr/bin/chromium is missing: apt-get install -y chromium (npm test does it when run as root)');
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
    const requests: string[] = [];
    page.on('request', (q) => {
      if (!q.url().startsWith('file:') && !q.url().startsWith('data:')) requests.push(q.url());
    });
    await page.goto('file://' + report);
    /** Marks of `selector` inside chart `id` that the browser laid out with a visible size inside the chart. */
    const drawn = (id: string, selector: string) =>
      page.evaluate(
        ([chartId, sel]) => {
          const svg = (globalThis as unknown as { document: Doc }).document.querySelector(`svg[data-chart="${chartId}"]`);
          if (!svg) return -1;
          const box = svg.getBoundingClientRect();
          return [...svg.querySelectorAll(sel)].filter((e) => {
            const b = e.getBoundingClientRect();
            return (b.width > 0 || b.height > 0) && b.left >= box.left - 1 && b.right <= box.right + 1 && b.top >= box.top - 1 && b.bottom <= box.bottom + 1;
          }).length;
        },
        [id, selector] as const,
      );
    expect(await drawn('trials', 'circle.trial')).toBe(complete);
    expect(await drawn('trials', 'polyline.best-line')).toBe(1);
    expect(await drawn('importance', 'rect.bar')).toBe(3);
    expect(await drawn('heatmap', 'rect.cell')).toBeGreaterThan(3);
    for (const p of ['sma.fast', 'sma.slow', 'sma.fraction']) expect(await drawn(`param:${p}`, 'circle.point')).toBe(complete);
    expect(await drawn('walk-forward', 'rect.is-bar')).toBe(3);
    expect(await drawn('walk-forward', 'rect.oos-bar')).toBe(3);
    expect(await drawn('oos-equity', 'polyline.equity-line')).toBe(1);
    expect(await drawn('oos-equity', 'line.window-edge')).toBe(3);
    // The best-so-far line never goes down (maximised objective): its y coordinates only fall on screen.
    const ys = await page.evaluate(() =>
      ((globalThis as unknown as { document: Doc }).document.querySelector('polyline.best-line')!.getAttribute('points') ?? '')
        .split(' ')
        .map((p: string) => Number(p.split(',')[1])),
    );
    for (let i = 1; i < ys.length; i++) expect(ys[i]!).toBeLessThanOrEqual(ys[i - 1]!);
    expect(await page.locator('table.wf tbody tr').count()).toBe(3);
    const dir = join(REPO, '.tmp/artifacts');
    mkdirSync(dir, { recursive: true });
    await page.screenshot({ path: join(dir, 'optimize-report.png'), fullPage: true });
    expect(existsSync(join(dir, 'optimize-report.png'))).toBe(true);
    expect(requests).toEqual([]);
  } finally {
    await browser.close();
  }
}, 600_000);
