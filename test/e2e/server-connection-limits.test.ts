/**
 * Issue 33 item 4: connection limits of the API, on a paper bot (`mizan run <config> --serve`, child
 * process) with small limits in its `server:` section: 3 streams at once (the fourth is closed with
 * 1013 and says why), 1.5 s to send the headers, 3 s to send a whole request (the defaults are 10 s
 * and 30 s; without limits node waits 60 s and 300 s). The waits allow for a loaded machine. Raw sockets from this
 * process play the slow clients. A stream, once open, is not cut by the request timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CONTROL, READ, startServedBot, stopBot, type ServedBot } from './server-bot.js';
import { sleep } from './run-mizan.js';
import { waitFor, waitForValue } from '../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-server-limits-'));
const HEADERS_MS = 1_500;
const REQUEST_MS = 3_000;
let bot: ServedBot;
const sockets: (Socket | WebSocket)[] = [];

beforeAll(async () => {
  bot = await startServedBot(dir, 'limits', ['  maxWebSocketClients: 3', `  headersTimeoutMs: ${HEADERS_MS}`, `  requestTimeoutMs: ${REQUEST_MS}`]);
}, 120_000);

afterAll(async () => {
  for (const s of sockets) {
    if (s instanceof WebSocket) s.terminate();
    else s.destroy();
  }
  await stopBot(bot?.child);
  rmSync(dir, { recursive: true, force: true });
});

interface Stream {
  ws: WebSocket;
  messages: { at: number; type: string }[];
  /** The close code and reason, once closed. */
  closed: Promise<{ code: number; reason: string; at: number }>;
}

/** A stream with the read token: resolves on its first message (hello) or its close, whichever is first. */
function openStream(): Promise<Stream & { first: 'hello' | 'closed' }> {
  const ws = new WebSocket(`${bot.base.replace('http', 'ws')}/api/v1/stream?topics=status`, { headers: { authorization: `Bearer ${READ}` } });
  sockets.push(ws);
  const messages: Stream['messages'] = [];
  const closed = new Promise<{ code: number; reason: string; at: number }>((r) =>
    ws.once('close', (code, reason) => r({ code, reason: reason.toString(), at: Date.now() })),
  );
  ws.on('message', (d) => messages.push({ at: Date.now(), type: (JSON.parse(d.toString()) as { type: string }).type }));
  return new Promise((resolve, reject) => {
    ws.once('message', () => resolve({ ws, messages, closed, first: 'hello' }));
    void closed.then(() => resolve({ ws, messages, closed, first: 'closed' }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** A stream that is served: tried again while refused (a slot just freed is seen a moment later by the server). */
async function openServed(): Promise<Stream> {
  return waitForValue(
    async () => {
      const s = await openStream();
      return s.first === 'hello' ? s : undefined;
    },
    { what: 'a stream served (the freed slot taken)', timeout: 5_000 },
  );
}

/** A raw TCP connection to the API; `ended` resolves with what the server sent and when it closed. */
function raw(): { socket: Socket; opened: number; ended: Promise<{ at: number; text: string }> } {
  const socket = connect({ host: '127.0.0.1', port: bot.port });
  sockets.push(socket);
  let text = '';
  socket.on('data', (b: Buffer) => (text += b.toString()));
  socket.on('error', () => undefined);
  const ended = new Promise<{ at: number; text: string }>((r) => socket.once('close', () => r({ at: Date.now(), text })));
  return { socket, opened: Date.now(), ended };
}

/** Rejects when `p` has not settled within ms (the condition waited on, with its timeout). */
function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, sleep(ms).then(() => Promise.reject(new Error(`${what}: not within ${ms} ms`)))]);
}

async function tradingState(): Promise<string> {
  const r = await fetch(`${bot.base}/api/v1/status`, { headers: { authorization: `Bearer ${READ}` } });
  return ((await r.json()) as { tradingState: { state: string } }).tradingState.state;
}

describe('the API limits its connections', () => {
  it('serves maxWebSocketClients streams; the next one is closed with 1013 and the reason; a freed slot is taken again', async () => {
    const open = [await openStream(), await openStream(), await openStream()];
    expect(open.map((s) => s.first)).toEqual(['hello', 'hello', 'hello']);
    const extra = await openStream();
    expect(extra.first).toBe('closed');
    const why = await extra.closed;
    expect(why.code).toBe(1013);
    expect(why.reason).toBe('too many stream clients (server.maxWebSocketClients: 3); try again later');
    // Other requests are still served meanwhile.
    expect(await tradingState()).toBe('active');

    // One leaves: the next one is served.
    open[0]!.ws.close();
    await open[0]!.closed;
    const again = await openServed();

    // The refusal is logged once, with the limit.
    const lines = bot.child.lines().filter((l) => l.msg === 'api: stream refused: too many stream clients');
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(lines[0]).toMatchObject({ maxWebSocketClients: 3, address: '127.0.0.1' });
    for (const s of [open[1]!, open[2]!, again]) {
      s.ws.close();
      await s.closed;
    }
  }, 60_000);

  it('closes a connection that sends half a header, or nothing, within the header timeout', async () => {
    const half = raw();
    half.socket.write(`GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:${bot.port}\r\nAuthorization: Bearer ${READ}\r\n`);
    const idle = raw();
    // The checks run every headersTimeoutMs/4 (at most 1 s): closed by headersTimeoutMs plus that and some slack.
    const [h, i] = await within(Promise.all([half.ended, idle.ended]), HEADERS_MS + 5_000, 'the slow-header connections closed');
    expect(h.at - half.opened).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(h.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(i.at - idle.opened).toBeGreaterThanOrEqual(HEADERS_MS - 50);
  }, 30_000);

  it('cuts an authenticated request whose body is too slow at the request timeout (408, not applied)', async () => {
    const slow = raw();
    const body = `{"reason": "slow body"${' '.repeat(200)}}`;
    slow.socket.write(
      `POST /api/v1/halt HTTP/1.1\r\nHost: 127.0.0.1:${bot.port}\r\nAuthorization: Bearer ${CONTROL}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    let sent = 0;
    // A byte every 100 ms: the whole body would take 23 s.
    const drip = setInterval(() => {
      if (sent < body.length && !slow.socket.destroyed) slow.socket.write(body[sent++]!);
    }, 100);
    try {
      const end = await within(slow.ended, REQUEST_MS + 5_000, 'the slow body cut');
      expect(end.at - slow.opened).toBeGreaterThanOrEqual(REQUEST_MS - 50);
      expect(end.text).toMatch(/^HTTP\/1\.1 408 /);
      expect(sent).toBeLessThan(body.length);
    } finally {
      clearInterval(drip);
    }
    expect(await tradingState()).toBe('active');
  }, 30_000);

  it('keeps an open stream past the request timeout (a stream is not a slow request)', async () => {
    const s = await openServed();
    const opened = Date.now();
    // The bot pushes a status every 2 s: wait for one after the request timeout has passed.
    await waitFor(() => s.messages.some((m) => m.type === 'status' && m.at > opened + REQUEST_MS + 500), {
      what: 'a status push after the request timeout',
      timeout: REQUEST_MS + 10_000,
      interval: 100,
      detail: () => `messages: ${s.messages.map((m) => `${m.type}@+${m.at - opened}ms`).join(', ')}; readyState ${s.ws.readyState}`,
    });
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
    s.ws.close();
  }, 30_000);
});
