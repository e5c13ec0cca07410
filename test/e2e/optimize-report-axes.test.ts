/**
 * Issue 34 item 9 (the optimisation report): `mizan optimize --report` as a child process, the page
 * opened in Debian's chromium (Playwright): every axis ticks at nice numbers (1, 2 or 5 × 10^k
 * apart, each a multiple of the step), the y label lies clear of the tick labels, and the heatmap
 * has a colour legend with the worst and best values.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mizan, tempDir, type TempDir } from './cli.js';

interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
interface El {
  getBoundingClientRect(): Rect;
  querySelectorAll(sel: string): Iterable<El>;
  getAttribute(name: string): string | null;
  textContent: string | null;
}
interface Doc {
  querySelectorAll(sel: string): Iterable<El>;
}

let tmp: TempDir;
beforeAll(() => {
  tmp = tempDir('mizan-opt-axes-');
});
afterAll(() => tmp.remove());

/** True when the sorted values are k × step for a step of 1, 2 or 5 × 10^j. */
function nice(values: number[]): boolean {
  if (values.length < 2) return values.length === 1;
  const step = values[1]! - values[0]!;
  const mant = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
  if (![1, 2, 5].some((f) => Math.abs(mant - f) < 1e-6)) return false;
  return values.every((v, i) => Math.abs(v / step - Math.round(v / step)) < 1e-6 && (i === 0 || Math.abs(v - values[i - 1]! - step) < step * 1e-6));
}

it('ticks at nice numbers, keeps the y label clear of the ticks and gives the heatmap a colour legend', async () => {
  const storage = join(tmp.dir, 's.sqlite');
  const report = join(tmp.dir, 'report.html');
  const r = await mizan(
    [
      'optimize',
      'config/backtest-sweep.yaml',
      '--param',
      'fast=3..41',
      '--param',
      'slow=40..150',
      '--param',
      'fraction=0.1..1',
      '--objective',
      'return',
      '--trials',
      '12',
      '--workers',
      '1',
      '--seed',
      '2',
      '--storage',
      storage,
      '--report',
      report,
    ],
    { timeoutMs: 200_000 },
  );
  expect(r.code, r.all).toBe(0);
  if (!existsSync('/usr/bin/chromium')) expect.fail('/usr/bin/chromium is missing: apt-get install -y chromium');
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1600 } });
    await page.goto('file://' + report);
    const charts = await page.evaluate(() => {
      const doc = (globalThis as unknown as { document: Doc }).document;
      return [...doc.querySelectorAll('svg[data-chart]')].map((svg) => {
        const texts = (sel: string) => [...svg.querySelectorAll(sel)].map((e) => ({ text: e.textContent ?? '', box: e.getBoundingClientRect() }));
        return {
          id: svg.getAttribute('data-chart')!,
          x: texts('text.x-tick'),
          y: texts('text.y-tick'),
          yLabel: texts('text.y-label')[0]?.box,
          legendSteps: [...svg.querySelectorAll('rect.legend-step')].length,
          legendMin: texts('text.legend-min')[0]?.text,
          legendMax: texts('text.legend-max')[0]?.text,
        };
      });
    });
    const ids = charts.map((c) => c.id);
    for (const id of ['trials', 'heatmap', 'param:sma.fast', 'param:sma.slow', 'param:sma.fraction']) expect(ids).toContain(id);
    for (const c of charts.filter((x) => x.id === 'trials' || x.id === 'heatmap' || x.id.startsWith('param:'))) {
      for (const axis of [c.x, c.y]) {
        const values = axis.map((t) => Number(t.text));
        expect(values.every(Number.isFinite), `${c.id}: ${axis.map((t) => t.text).join(' ')}`).toBe(true);
        expect(nice([...values].sort((a, b) => a - b)), `${c.id}: ${axis.map((t) => t.text).join(' ')}`).toBe(true);
        expect(values.length, c.id).toBeGreaterThanOrEqual(2);
      }
      const left = Math.min(...c.y.map((t) => t.box.left));
      expect(c.yLabel, c.id).toBeDefined();
      expect(c.yLabel!.right, `${c.id}: the y label overlaps the tick labels`).toBeLessThan(left);
    }
    const heat = charts.find((c) => c.id === 'heatmap')!;
    expect(heat.legendSteps).toBeGreaterThanOrEqual(10);
    expect(heat.legendMax).toMatch(/^-?\d[\d.e+-]* \(best\)$/);
    expect(heat.legendMin).toMatch(/^-?\d[\d.e+-]*$/);
    expect(Number(heat.legendMax!.split(' ')[0])).toBeGreaterThanOrEqual(Number(heat.legendMin));
  } finally {
    await browser.close();
  }
}, 300_000);
