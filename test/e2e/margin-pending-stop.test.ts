/**
 * A margin opening that has not filled is an open order in all but name: `mizan run --live` stopped
 * with Ctrl-C cancels it, as it cancels its spot orders. Before, the pending position stayed on the
 * exchange after a summary saying "open orders left 0", and opened later with nobody managing it (an
 * audit finding). Against a simulator on 127.0.0.1, with the bot's API: its margin positions name the
 * strategy that opened them (before: always null).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { DRILL_KEY, handSim, liveYaml, REPO, tempDir } from './restart-helpers.js';
import { KEY_ENV } from '../scenario/helpers.js';
import { startMizan, type MizanChild } from './run-mizan.js';
import { waitFor as waitForCondition } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-margin-pending-');
afterAll(() => tmp.remove());

describe('stop: pending margin openings', () => {
  it('Ctrl-C cancels the margin position the bot opened that is still pending', async () => {
    const sim = await handSim('62550');
    const config = join(tmp.dir, 'mp.yaml');
    writeFileSync(
      config,
      liveYaml({
        url: sim.running.server.url,
        journal: join(tmp.dir, 'mp.sqlite'),
        strategy: join(REPO, 'test/e2e/fixtures/margin-pending.ts'),
        params: {},
        name: 'mp',
      }),
    );
    const rest = new WallexRestClient({ baseUrl: sim.running.server.url, apiKey: DRILL_KEY });
    let child: MizanChild | undefined;
    const TOKEN = 'read-token-0123456789abcdef';
    try {
      child = startMizan(['run', config, '--live', '--serve', '--port', '0'], { [KEY_ENV]: DRILL_KEY, MIZAN_SERVER_TOKEN: TOKEN });
      let id: number | undefined;
      const c = child;
      await waitForCondition(
        async () => {
          id = (await rest.getMarginPositions({})).find((p) => p.state === 'pending')?.id;
          return id !== undefined;
        },
        { what: 'a pending margin position', timeout: 30_000, interval: 300, detail: () => c.out() },
      );
      // The API names the strategy that opened it (the kernel's record), once the loop has synced it.
      await waitForCondition(() => /API on http:\/\/127\.0\.0\.1:\d+/.test(c.out()), { what: 'the API address', timeout: 30_000, detail: () => c.out() });
      const base = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(c.out())![1]!;
      let listed: { id: string; strategy: string | null }[] = [];
      await waitForCondition(
        async () => {
          const r = await fetch(`${base}/api/v1/margin/positions`, { headers: { authorization: `Bearer ${TOKEN}` } });
          listed = ((await r.json()) as { positions: { id: string; strategy: string | null }[] }).positions;
          return listed.some((p) => p.id === String(id));
        },
        { what: 'the position in the API', timeout: 30_000, interval: 500, detail: () => JSON.stringify(listed) },
      );
      expect(listed.find((p) => p.id === String(id))!.strategy).toBe('mp');
      child.proc.kill('SIGINT');
      const exit = await child.exited;
      const out = child.out();
      child = undefined;
      expect(exit.code, out).toBe(0);
      const after = (await rest.getMarginPositions({})).find((p) => p.id === id)!;
      expect(after.state, out).toBe('canceled');
      expect(out).toMatch(/pending margin opening cancelled/);
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 90_000);
});
