/**
 * A margin open in flight when the bot is killed (an audit finding): the exchange's create call takes
 * no client id, so before, the position came back unowned after the restart, and the strategy (which
 * saw no position of its own) opened a second one: double exposure. Now the open is journaled before
 * it is sent (a write-ahead record), and the restarted bot matches the record to the one position of
 * that market and side opened since, without an owner: it is the strategy's, and nothing opens twice.
 * Against a simulator on 127.0.0.1 that executes the open but never answers; a second strategy trades
 * the same market (the position must go to the one whose open made it).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { Journal } from '../../src/store/journal.js';
import { DRILL_KEY, handSim, kill9, liveYaml, REPO, startMizan, tempDir, type Child } from './restart-helpers.js';
import { moreStatusLines, waitFor } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-margin-open-');
afterAll(() => tmp.remove());

function risk(file: string): { owners: unknown; opens: unknown } {
  const j = Journal.open(file, { readonly: true });
  try {
    return { owners: j.kvGet('__risk', 'marginOwners'), opens: j.kvGet('__risk', 'marginOpensInFlight') };
  } finally {
    j.close();
  }
}

describe('a margin open in flight across a SIGKILL (live mode against the simulator)', () => {
  it('the restarted bot owns the position the open made and opens no second one', async () => {
    const sim = await handSim('62550');
    const journal = join(tmp.dir, 'mo.sqlite');
    const config = join(tmp.dir, 'mo.yaml');
    writeFileSync(
      config,
      liveYaml({
        url: sim.running.server.url,
        journal,
        strategy: join(REPO, 'test/e2e/fixtures/margin-open-once.ts'),
        params: {},
        name: 'opener',
        more: [{ name: 'other', strategy: join(REPO, 'test/e2e/fixtures/idle.ts') }],
      }),
    );
    const rest = new WallexRestClient({ baseUrl: sim.running.server.url, apiKey: DRILL_KEY });
    const positions = () => rest.getMarginPositions({});
    // The simulator opens the position and holds its answer: the bot is killed while it waits.
    sim.running.server.faults.configure({ loseOrderResponses: 1 });
    let child: Child | undefined;
    try {
      child = startMizan(config);
      const first = child;
      await waitFor(async () => (await positions()).length > 0, { what: 'the margin open to reach the simulator', timeout: 30_000, detail: () => first.out() });
      await kill9(child);
      const [pos] = await positions();
      expect(pos!.side).toBe('long');
      // The record was written before the request was sent; no answer came, so it is unsettled.
      const before = risk(journal);
      expect(Object.values(before.opens as Record<string, unknown>)).toEqual([
        expect.objectContaining({ strategy: 'opener', account: 'main', market: 'BTCUSDT', side: 'long', collateral: '100', riskCoef: '2' }),
      ]);
      expect((before.owners as Record<string, string> | undefined)?.[String(pos!.id)]).toBeUndefined();

      child = startMizan(config);
      const second = child;
      await waitFor(() => /margin open sent before the stop matched/.test(second.out()), {
        what: 'the record to be matched',
        timeout: 30_000,
        detail: () => second.out(),
      }).catch(async (e: Error) => {
        throw new Error(`${e.message}\npositions: ${JSON.stringify((await positions()).map((p) => [p.id, p.side, p.state]))}`);
      });
      await moreStatusLines(() => second.out(), 2, 30_000); // the strategy ran on with its books healthy
      expect((await positions()).map((p) => p.id)).toEqual([pos!.id]); // nothing opened twice
      expect(second.out()).toContain(`position #${pos!.id} is opener's`);
      const after = risk(journal);
      expect(after.owners).toEqual({ [String(pos!.id)]: 'opener' });
      expect(after.opens).toEqual({});
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 120_000);

  it('a running bot owns the position an open without its answer made once an account read shows it (review)', async () => {
    const sim = await handSim('62550');
    const journal = join(tmp.dir, 'mr.sqlite');
    const config = join(tmp.dir, 'mr.yaml');
    writeFileSync(
      config,
      liveYaml({ url: sim.running.server.url, journal, strategy: join(REPO, 'test/e2e/fixtures/margin-open-once.ts'), params: {}, name: 'opener' }),
    );
    const rest = new WallexRestClient({ baseUrl: sim.running.server.url, apiKey: DRILL_KEY });
    sim.running.server.faults.configure({ loseOrderResponses: 1 });
    const child = startMizan(config);
    try {
      // The open times out (timeoutMs 2000); the next account read (every 10 s) shows the position.
      await waitFor(() => /margin open without its answer matched/.test(child.out()), {
        what: 'the open to be matched',
        timeout: 45_000,
        detail: () => child.out(),
      });
      const list = await rest.getMarginPositions({});
      expect(list).toHaveLength(1);
      expect(child.out()).toContain(`position #${list[0]!.id} is opener's`);
      expect(risk(journal)).toEqual({ owners: { [String(list[0]!.id)]: 'opener' }, opens: {} });
    } finally {
      child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 120_000);
});
