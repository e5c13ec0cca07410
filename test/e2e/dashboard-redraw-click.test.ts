/**
 * The dashboard's live views redraw on every event they follow (ui.js live()); a click whose press
 * and release straddle a redraw used to land on two different buttons, and Chromium clicked neither
 * (an order's Cancel lost while the orders table updated: the dashboard test saw it under load).
 * Here the dashboard's own ui.js, served over HTTP to Debian's chromium, draws a button with live();
 * the test presses it, makes the bot announce an order (a redraw), releases: one click, and the
 * redraw happens after it.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../backtest/browser.js';
import { REPO } from './cli.js';

const PAGE = `<!doctype html><html><body><div id="box"></div><script type="module">
import { live, h } from '/ui.js';
const listeners = [];
const bot = { state: 'live', status: {}, on(fn) { listeners.push(fn); return () => {}; } };
window.clicks = 0;
window.draws = 0;
window.announce = (topic) => listeners.forEach((l) => l(topic));
live(bot, document.getElementById('box'), ['order'], (box) => {
  window.draws++;
  const b = h('button', { id: 'cancel', style: 'width:200px;height:60px' }, 'Cancel ' + window.draws);
  b.addEventListener('click', () => window.clicks++);
  box.append(b);
});
window.ready = true;
</script></body></html>`;

/** The page's globals, as the test reads them (node's types have no DOM). */
interface PageGlobals {
  ready?: boolean;
  clicks: number;
  draws: number;
  announce(topic: string): void;
  document: { getElementById(id: string): { textContent: string | null } | null };
}

let server: Server;
let base: string;
let browser: Browser;

beforeAll(async () => {
  const ui = readFileSync(join(REPO, 'src/server/dashboard/ui.js'), 'utf8');
  server = createServer((req, res) => {
    if (req.url === '/ui.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(ui);
    else res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

describe('a click across a redraw of a live view', () => {
  it('is not lost: the redraw waits for the release', async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/`);
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).ready === true);
    const box = (await page.locator('#cancel').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.evaluate(() => (globalThis as unknown as PageGlobals).announce('order'));
    await page.mouse.up();
    await page.waitForFunction(() => (globalThis as unknown as PageGlobals).draws === 2);
    const seen = await page.evaluate(() => ({
      clicks: (globalThis as unknown as PageGlobals).clicks,
      text: (globalThis as unknown as PageGlobals).document.getElementById('cancel')!.textContent,
    }));
    expect(seen).toEqual({ clicks: 1, text: 'Cancel 2' });
    // Without a press a redraw is immediate.
    await page.evaluate(() => (globalThis as unknown as PageGlobals).announce('order'));
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobals).draws)).toBe(3);
    await page.close();
  });
});
