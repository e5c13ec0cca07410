/**
 * Delivery to one target (src/notify/delivery.ts) against a real HTTP receiver on 127.0.0.1: retries
 * with doubling delays on 500, Retry-After of a 429 honoured, no retry on 400, a timeout per request,
 * a full queue drops the oldest (counted), and enqueue returns at once while a receiver hangs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/runtime/logger.js';
import { Delivery, type DeliveryOptions } from '../../src/notify/delivery.js';
import type { Notice } from '../../src/notify/format.js';
import { startReceiver, type Answer, type Receiver } from '../support/notify-receiver.js';
import { waitFor } from '../support/wait-for.js';
import { Writable } from 'node:stream';

const receivers: Receiver[] = [];
const deliveries: Delivery[] = [];
afterEach(async () => {
  for (const d of deliveries.splice(0)) await d.close(0);
  for (const r of receivers.splice(0)) await r.close();
});

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _e, cb) {
      for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: createLogger({ level: 'debug', pretty: false, destination, secrets: ['s3cret-token-value'] }) };
}

let seq = 0;
const notice = (title = `n${++seq}`): Notice => ({ id: `id-${title}`, event: 'fills', level: 'info', time: Date.now(), title, text: '', data: {} });

async function setup(answer: (nth: number) => Answer, opts: Partial<DeliveryOptions> = {}) {
  const recv = await startReceiver((_r, nth) => answer(nth));
  receivers.push(recv);
  const log = capture();
  const d = new Delivery(
    'test',
    (n) => ({
      url: `${recv.url}/hook/s3cret-token-value`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: n.id, title: n.title }),
    }),
    { timeoutMs: 2_000, retries: 3, backoffMs: 200, maxBackoffMs: 5_000, queueSize: 10, ...opts },
    log.logger,
    ['s3cret-token-value'],
  );
  deliveries.push(d);
  return { recv, d, log };
}

describe('Delivery', () => {
  it('retries a 500 with doubling delays, then delivers once', async () => {
    const { recv, d } = await setup((nth) => (nth <= 2 ? { status: 500, body: 'at /hook/s3cret-token-value' } : { status: 200 }));
    d.enqueue(notice());
    await d.idle();
    expect(recv.requests.map((r) => r.status)).toEqual([500, 500, 200]);
    const gaps = [recv.requests[1]!.at - recv.requests[0]!.at, recv.requests[2]!.at - recv.requests[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(190);
    expect(gaps[1]).toBeGreaterThanOrEqual(390);
    expect(gaps[1]).toBeLessThan(2_000);
    expect(d.stats).toMatchObject({ sent: 1, failed: 0, retries: 2 });
  });

  it('honours the Retry-After of a 429 (Telegram parameters.retry_after)', async () => {
    const { recv, d } = await setup((nth) =>
      nth === 1 ? { status: 429, body: JSON.stringify({ ok: false, parameters: { retry_after: 1 } }) } : { status: 200 },
    );
    d.enqueue(notice());
    await d.idle();
    expect(recv.requests).toHaveLength(2);
    expect(recv.requests[1]!.at - recv.requests[0]!.at).toBeGreaterThanOrEqual(990);
  });

  it('gives up at once on a 400, logs it without the secret, and goes on with the next', async () => {
    const { recv, d, log } = await setup((nth) => (nth === 1 ? { status: 400, body: 'bad request for /hook/s3cret-token-value' } : { status: 200 }));
    d.enqueue(notice('a'));
    d.enqueue(notice('b'));
    await d.idle();
    expect(recv.requests.map((r) => [r.json.title, r.status])).toEqual([
      ['a', 400],
      ['b', 200],
    ]);
    expect(d.stats).toMatchObject({ sent: 1, failed: 1, retries: 0 });
    const warn = log.lines.find((l) => String(l.msg).includes('not delivered'));
    expect(warn?.msg).toContain('HTTP 400');
    expect(JSON.stringify(log.lines)).not.toContain('s3cret-token-value');
    expect(JSON.stringify(log.lines)).toContain('[REDACTED]');
  });

  it('times a hanging receiver out, retries, and gives up after the retries', async () => {
    const { recv, d, log } = await setup(() => 'hang', { timeoutMs: 300, retries: 1, backoffMs: 100 });
    d.enqueue(notice());
    await d.idle();
    expect(recv.requests).toHaveLength(2);
    expect(d.stats).toMatchObject({ sent: 0, failed: 1, retries: 1 });
    expect(log.lines.some((l) => String(l.msg).includes('no answer within 300 ms'))).toBe(true);
  });

  it('enqueue returns at once while the receiver hangs; a full queue drops the oldest, counted', async () => {
    // q7 hangs for its whole timeout: long enough that q8 cannot go out while the test looks.
    const { recv, d, log } = await setup(() => 'hang', { timeoutMs: 10_000, retries: 0, queueSize: 3 });
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) d.enqueue(notice(`q${i}`));
    const took = performance.now() - t0;
    expect(took).toBeLessThan(50);
    await waitFor(() => recv.requests.length > 0, { what: 'the first request at the receiver', timeout: 5_000 });
    // All ten were queued before the first request went out: the seven oldest were dropped, q7 is in
    // flight (hanging), q8 and q9 wait.
    expect(recv.requests.map((r) => r.json.title)).toEqual(['q7']);
    expect(d.stats).toMatchObject({ dropped: 7, queued: 2 });
    const drops = log.lines.filter((l) => String(l.msg).includes('the oldest message was dropped'));
    expect(drops).toHaveLength(1); // rate-limited: one line for the burst
    expect(drops[0]).toMatchObject({ level: 40, target: 'test' });
  });
});
