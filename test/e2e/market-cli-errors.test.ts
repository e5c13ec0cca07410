/**
 * What `mizan markets` and `mizan candles` say when the exchange refuses or cannot be reached, as a
 * user runs them: child processes against the simulator (`runSim`) on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { mizan } from './cli.js';

let sim: RunningSim;
beforeAll(async () => {
  sim = await runSim({ port: 0, replay: false });
});
afterAll(async () => {
  await sim.stop();
});

describe('mizan markets with an API key the exchange refuses', { timeout: 60_000 }, () => {
  it('says the fee read failed (status, the exchange message), never that the exchange gave none, never the key', async () => {
    const key = 'bogus_key_7c1e9a4f2b6d8e03';
    const r = await mizan(['markets', '--url', sim.server.url], { env: { WALLEX_API_KEY: key } });
    expect(r.code, r.all).toBe(0);
    const rows = r.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/));
    expect(rows).toHaveLength(sim.sim.markets().length);
    for (const row of rows) expect(row.slice(8, 10)).toEqual(['-', '-']);
    expect(r.stderr).toMatch(
      /^mizan: warning: the account's fee rates could not be read, maker\/taker show "-": GET \/v1\/account\/fee -> HTTP 401: authentication failed: .*\(exchange said: API key is invalid\)$/m,
    );
    expect(r.stderr).toMatch(/^5 markets from http:\/\/127\.0\.0\.1:\d+; fees: not read \(see the warning above; "-" = unknown\)$/m);
    expect(r.stderr).not.toContain('where the exchange gave none');
    expect(r.all).not.toContain(key);
  });
});
