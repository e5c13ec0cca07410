/**
 * `/ws` application-level pings: mizan's StreamClient against the simulator serving `{"ping": n}`
 * frames (`stream.appPing`). The client answers `{"pong": n}` (the simulator extends the
 * connection's life per answer) and does not count the ping as a malformed frame.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { StreamClient } from '../../../src/exchange/stream/index.js';
import { appPong } from '../../../src/exchange/stream/transport.js';
import { readSampleText } from '../../support/samples.js';
import { captureLogger } from '../../exchange/stream/capture-logger.js';
import { startSim } from './harness.js';
import { waitFor as waitForCondition } from '../../support/wait-for.js';

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function until(what: string, cond: () => boolean, ms = 10_000): Promise<void> {
  await waitForCondition(cond, { what, timeout: ms, interval: 20 });
}

describe('/ws application-level ping', () => {
  it('the documentation has the server PING and the client PONG, each PONG extending the connection', () => {
    const doc = readSampleText('doc_socket_limits__developers-wallex-ir.txt');
    expect(doc).toContain('PING');
    expect(doc).toContain('PONG');
  });

  it('appPong answers the ping forms and nothing else', () => {
    expect(appPong('{"ping":7}', { ping: 7 })).toBe('{"pong":7}');
    expect(appPong('{"PING":"a"}', { PING: 'a' })).toBe('{"PONG":"a"}');
    expect(appPong('ping', undefined)).toBe('pong');
    expect(appPong('PING', undefined)).toBe('PONG');
    expect(appPong('["BTCUSDT@trade",{}]', ['BTCUSDT@trade', {}])).toBeUndefined();
    expect(appPong('{"ping":1,"x":2}', { ping: 1, x: 2 })).toBeUndefined();
    expect(appPong('{"pong":1}', { pong: 1 })).toBeUndefined();
  });

  it('StreamClient answers the simulator\'s {"ping": n} frames, which extend its connection, and counts nothing malformed', async () => {
    const h = await startSim({ stream: { appPing: true, pingIntervalMs: 100 } });
    cleanup.push(() => h.server.close());
    const client = new StreamClient({ url: h.server.streamUrl, transport: 'ws', logger: captureLogger() });
    cleanup.push(() => client.close());
    const malformed: string[] = [];
    client.on('malformed', (kind) => malformed.push(kind));
    client.subscribe('USDTTMN@trade');
    await client.connect();
    await until('three pongs counted by the simulator', () => h.server.streamStats().lifetimeExtensions >= 3);
    expect(malformed).toEqual([]);
    expect(client.stats().malformedTotal).toBe(0);
    expect(h.server.streamStats().ws).toBe(1);
  });
});
