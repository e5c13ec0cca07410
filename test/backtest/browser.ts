/**
 * The HTML report in Debian's chromium (playwright-core drives /usr/bin/chromium; `npm test`
 * installs it first when missing: scripts/ensure-chromium.mjs). Helpers: launch, wait until the
 * report's chart is laid out, and count the colours each chart pane drew.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { expect } from 'vitest';
import { REPO } from './helpers.js';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync('/usr/bin/chromium')) expect.fail('/usr/bin/chromium is missing: apt-get install -y chromium (npm test does it when run as root)');
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** Screenshots of the browser tests (gitignored): test/artifacts/<name>. */
export function artifactDir(name: string): string {
  const dir = join(REPO, 'test/artifacts', name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Opens a report and waits until its chart is laid out and labelled. */
export async function openReport(page: Page, file: string): Promise<void> {
  await page.goto('file://' + file);
  await page.waitForFunction(() => (globalThis as unknown as { __charts?: number }).__charts === 1, undefined, { timeout: 30_000 });
}

export interface PaneInfo {
  kind: string;
  label: string;
  /** Distinct pixel colours sampled from the pane's canvases (a pane that drew has many, a blank one 1-2). */
  colours: number;
  height: number;
  /** Series the chart holds in the pane. */
  series: number;
}

/** Every pane of the report's chart, read through the chart's API and the pane's canvases. */
export async function panes(page: Page): Promise<PaneInfo[]> {
  return page.evaluate(() => {
    type Canvas = {
      width: number;
      height: number;
      getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null;
    };
    type Pane = { getHeight(): number; getSeries(): unknown[]; getHTMLElement(): { querySelectorAll(s: string): ArrayLike<Canvas> } | null };
    const r = (globalThis as unknown as { __report: { chart: { panes(): Pane[] }; panes: { kind: string; label: string }[] } }).__report;
    return r.chart.panes().map((p, i) => {
      const seen = new Set<number>();
      for (const c of Array.from(p.getHTMLElement()?.querySelectorAll('canvas') ?? [])) {
        const ctx = c.getContext('2d');
        if (!ctx || c.width === 0 || c.height === 0) continue;
        const px = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let k = 0; k < px.length; k += 4 * 53) seen.add(px[k]! * 16777216 + px[k + 1]! * 65536 + px[k + 2]! * 256 + px[k + 3]!);
      }
      return { kind: r.panes[i]!.kind, label: r.panes[i]!.label, colours: seen.size, height: p.getHeight(), series: p.getSeries().length };
    });
  });
}
