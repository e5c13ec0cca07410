/**
 * Issue 33 item 2: wrong tokens must not lock the operator out of the kill switch. Two paper bots
 * (`mizan run <config> --serve`, child processes): one with the default `server:` (X-Forwarded-For
 * ignored: every request comes from 127.0.0.1), one with `trustProxy: true` (the client is the last
 * X-Forwarded-For entry, as the nginx of docs/api-and-dashboard.md appends it). After a source's 10 failed token checks
 * its wrong tokens get 429, but the valid tokens keep being served, from that same source too: the
 * halt, the reads, the dashboard and the stream.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CONTROL, READ, startServedBot, stopBot, type ServedBot } from './server-bot.js';
import { waitFor } from './run-mizan.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-server-auth-'));
// Both start at once; each test waits for its own (a bot that fails to start fails its test alone).
let starting: Promise<ServedBot>[] = [];
let direct: ServedBot;
let proxied: ServedBot;

beforeAll(() => {
  starting = [startServedBot(dir, 'direct', []), startServedBot(dir, 'proxied', ['  trustProxy: true'])];
  for (const p of starting) p.catch(() => undefined);
});

afterAll(async () => {
  const bots = await Promise.allSettled(starting);
  await Promise.all(bots.flatMap((b) => (b.status === 'fulfilled' ? [stopBot(b.value.child)] : [])));
  rmSync(dir, { recursive: true, force: true });
});

const WRONG = 'wrong-token-0123456789abcdef';

async function status(bot: ServedBot, token: string, headers: Record<string, string> = {}): Promise<number> {
  const r = await fetch(`${bot.base}/api/v1/status`, { headers: { authorization: `Bearer ${token}`, ...headers } });
  await r.arrayBuffer();
  return r.status;
}

async function halt(bot: ServedBot, path: 'halt' | 'resume', headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, any> }> {
  const r = await fetch(`${bot.base}/api/v1/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${CONTROL}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ reason: 'operator drill' }),
  });
  return { status: r.status, body: (await r.json()) as Record<string, any> };
}

/** The stream's first message (hello), or the HTTP status it was refused with. */
function hello(bot: ServedBot, headers: Record<string, string>, protocols?: string[]): Promise<Record<string, any>> {
  const ws = new WebSocket(`${bot.base.replace('http', 'ws')}/api/v1/stream?topics=status`, protocols, { headers });
  return new Promise((resolve, reject) => {
    ws.once('message', (d) => {
      resolve(JSON.parse(d.toString()) as Record<string, any>);
      ws.close();
    });
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

const wrongTokenLines = (bot: ServedBot) => bot.child.lines().filter((l) => l.msg === 'api: wrong token');

describe('failed token checks are limited per source; the valid tokens are always served', () => {
  it('after 12 wrong tokens from 127.0.0.1, the control token still halts and the dashboard and stream still serve it', async () => {
    direct = await starting[0]!;
    const got: number[] = [];
    for (let i = 0; i < 12; i++) got.push(await status(direct, WRONG));
    expect(got).toEqual([...Array(10).fill(401), 429, 429]);
    // Without trustProxy the header is ignored: a forged X-Forwarded-For is not another source.
    expect(await status(direct, WRONG, { 'x-forwarded-for': '198.51.100.7' })).toBe(429);
    expect(await status(direct, 'no-such-token-0123456789', { 'x-forwarded-for': '198.51.100.8' })).toBe(429);

    const h = await halt(direct, 'halt');
    expect(h.status, JSON.stringify(h.body)).toBe(200);
    expect(h.body.tradingState.state).toBe('halted');
    expect(await status(direct, READ)).toBe(200);
    const page = await fetch(`${direct.base}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<html');
    expect((await hello(direct, { authorization: `Bearer ${READ}` })).type).toBe('hello');
    // The dashboard's way: the token as a subprotocol.
    expect((await hello(direct, {}, ['mizan.v1', `bearer.${CONTROL}`])).status.tradingState.state).toBe('halted');
    expect((await halt(direct, 'resume')).status).toBe(200);

    // The wrong ones are still refused, and a wrong stream too.
    expect(await status(direct, WRONG)).toBe(429);
    await expect(hello(direct, { authorization: `Bearer ${WRONG}` })).rejects.toThrow('HTTP 429');
    await waitFor('the failures logged', () => wrongTokenLines(direct).length >= 10, 5_000, direct.child);
    expect(new Set(wrongTokenLines(direct).map((l) => l.address))).toEqual(new Set(['127.0.0.1']));
    expect(direct.child.out()).not.toContain(WRONG);
  }, 120_000);

  it('with server.trustProxy, each X-Forwarded-For client is limited on its own, and its valid token is served', async () => {
    proxied = await starting[1]!;
    const a = { 'x-forwarded-for': '203.0.113.1' };
    const got: number[] = [];
    for (let i = 0; i < 12; i++) got.push(await status(proxied, WRONG, a));
    expect(got).toEqual([...Array(10).fill(401), 429, 429]);
    // Another client behind the same proxy, and the proxy's own address, are not blocked.
    expect(await status(proxied, WRONG, { 'x-forwarded-for': '203.0.113.2' })).toBe(401);
    expect(await status(proxied, WRONG)).toBe(401);
    // The proxy appends the address it saw: an entry the client wrote in front of it changes nothing.
    expect(await status(proxied, WRONG, { 'x-forwarded-for': '203.0.113.77, 203.0.113.1' })).toBe(429);

    const h = await halt(proxied, 'halt', a);
    expect(h.status, JSON.stringify(h.body)).toBe(200);
    expect(h.body.tradingState.state).toBe('halted');
    expect(await status(proxied, READ, a)).toBe(200);
    expect((await fetch(`${proxied.base}/`, { headers: a })).status).toBe(200);
    expect((await hello(proxied, { authorization: `Bearer ${READ}`, ...a })).status.tradingState.state).toBe('halted');
    expect((await halt(proxied, 'resume', a)).status).toBe(200);

    await waitFor('the failures logged', () => wrongTokenLines(proxied).length >= 12, 5_000, proxied.child);
    const addresses = new Set(wrongTokenLines(proxied).map((l) => l.address));
    expect(addresses).toEqual(new Set(['203.0.113.1', '203.0.113.2', '127.0.0.1']));
    const blocked = proxied.child.lines().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('api: too many failed token checks'));
    expect(blocked.map((l) => l.address)).toEqual(['203.0.113.1']);
  }, 120_000);
});
