/**
 * Debian's chromium driven by playwright-core (the browser tests: the backtest report, the
 * dashboard). `npm test` installs /usr/bin/chromium first when missing (scripts/ensure-chromium.mjs).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { REPO } from '../e2e/run-mizan.js';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync('/usr/bin/chromium')) throw new Error('/usr/bin/chromium is missing: apt-get install -y chromium (npm test does it when run as root)');
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
}

/** Where a browser test saves its screenshots: test-artifacts/<name>/ (git-ignored), or $MIZAN_TEST_ARTIFACTS/<name>/. */
export function artifactsDir(name: string): string {
  const dir = join(process.env.MIZAN_TEST_ARTIFACTS ?? join(REPO, 'test-artifacts'), name);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** How many colours each selector's canvases hold (a drawn chart has more than its background). */
export async function drawnColours(page: Page, selectors: string[]): Promise<number[]> {
  return page.evaluate((sels) => {
    type Canvas = { width: number; height: number; getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null };
    const doc = (globalThis as unknown as { document: { querySelectorAll(selector: string): ArrayLike<Canvas> } }).document;
    return sels.map((sel) => {
      const seen = new Set<number>();
      for (const c of Array.from(doc.querySelectorAll(`${sel} canvas`))) {
        const ctx = c.getContext('2d');
        if (!ctx || c.width === 0 || c.height === 0) continue;
        const px = ctx.getImageData(0, 0, c.width, c.height).data;
        for (let i = 0; i < px.length; i += 4 * 97) seen.add(px[i]! * 16777216 + px[i + 1]! * 65536 + px[i + 2]! * 256 + px[i + 3]!);
      }
      return seen.size;
    });
  }, selectors);
}
