/**
 * What `mizan markets` and `mizan candles` say when the exchange refuses or cannot be reached, as a
 * user runs them: child processes against the simulator (`runSim`) on 127.0.0.1.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { startRewriteProxy } from '../support/rewrite-proxy.js';
import { mizan, tempDir } from './cli.js';

const tmp = tempDir('mizan-e2e-market-errors-');

let sim: RunningSim;
beforeAll(async () => {
  sim = await runSim({ port: 0, replay: false });
});
afterAll(async () => {
  await sim.stop();
  tmp.remove();
});

/** A port on 127.0.0.1 that nothing listens on (taken from the system, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The rows of `mizan markets`' table (its header left out), split into columns: one per simulator market. */
function tableRows(stdout: string): string[][] {
  const rows = stdout
    .trimEnd()
    .split('\n')
    .slice(1)
    .map((l) => l.split(/\s+/));
  expect(rows).toHaveLength(sim.sim.markets().length);
  return rows;
}

describe('mizan markets with an API key the exchange refuses', { timeout: 60_000 }, () => {
  it('says the fee read failed (status, the exchange message), never that the exchange gave none, never the key', async () => {
    const key = 'bogus_key_7c1e9a4f2b6d8e03';
    const r = await mizan(['markets', '--url', sim.server.url], { env: { WALLEX_API_KEY: key } });
    expect(r.code, r.all).toBe(0);
    const rows = tableRows(r.stdout);
    for (const row of rows) expect(row.slice(8, 10)).toEqual(['-', '-']);
    expect(r.stderr).toMatch(
      /^mizan: warning: the account's fee rates could not be read, maker\/taker show "-": GET \/v1\/account\/fee -> HTTP 401: authentication failed: .*\(exchange said: API key is invalid\)$/m,
    );
    expect(r.stderr).toMatch(/^5 markets from http:\/\/127\.0\.0\.1:\d+; fees: not read \(see the warning above; "-" = unknown\)$/m);
    expect(r.stderr).not.toContain('where the exchange gave none');
    expect(r.all).not.toContain(key);
  });
});

describe('mizan markets when the list of active markets cannot be read', { timeout: 60_000 }, () => {
  it('shows "?" in the trading column and says why, not every market as tradable', async () => {
    // The simulator answers every read; a proxy in front of it fails the active-markets list only.
    const proxy = await startRewriteProxy(sim.server.url, (req) =>
      req.url.startsWith('/hector/web/v1/markets') ? { answer: { status: 503, body: '{"success":false,"message":"maintenance"}' } } : undefined,
    );
    try {
      const r = await mizan(['markets', '--url', proxy.url]);
      expect(r.code, r.all).toBe(0);
      const rows = tableRows(r.stdout);
      for (const row of rows) expect(row.at(-1)).toBe('?');
      expect(r.stderr).toMatch(
        /^mizan: warning: the list of active markets could not be read, the trading column shows "\?": GET \/hector\/web\/v1\/markets.* 503/m,
      );
    } finally {
      await proxy.close();
    }
  });
});

describe('mizan markets and candles when the exchange cannot be reached', { timeout: 60_000 }, () => {
  it('name the address and the cause (refused, a port fetch will not use), never the key', async () => {
    const key = 'KEY_3e8d1f6a9c2b4e7d';
    const port = await closedPort();
    const refused = await mizan(
      ['candles', 'BTCTMN', '--resolution', '60', '--from', '2024-01-01', '--to', '2024-01-02', '--url', `http://127.0.0.1:${port}`, '--cache', tmp.dir],
      { env: { WALLEX_API_KEY: key } },
    );
    expect(refused.code, refused.all).toBe(1);
    expect(refused.stderr).toMatch(
      new RegExp(
        `^mizan: GET /v1/udf/history: could not reach the exchange at http://127\\.0\\.0\\.1:${port}: fetch failed: connect ECONNREFUSED 127\\.0\\.0\\.1:${port}$`,
        'm',
      ),
    );
    const badPort = await mizan(['markets', '--url', 'http://127.0.0.1:1'], { env: { WALLEX_API_KEY: key } });
    expect(badPort.code, badPort.all).toBe(1);
    expect(badPort.stderr).toMatch(/^mizan: GET \/v1\/markets: could not reach the exchange at http:\/\/127\.0\.0\.1:1: fetch failed: bad port$/m);
    expect(refused.all + badPort.all).not.toContain(key);
  });
});
