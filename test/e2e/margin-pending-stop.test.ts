/**
 * A margin opening that has not filled is an open order in all but name: `mizan run --live` stopped
 * with Ctrl-C cancels it, as it cancels its spot orders. Before, the pending position stayed on the
 * exchange after a summary saying "open orders left 0", and opened later with nobody managing it (an
 * audit finding). Against a simulator on 127.0.0.1.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { DRILL_KEY, handSim, liveYaml, REPO, startMizan, tempDir, type Child } from './restart-helpers.js';
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
    let child: Child | undefined;
    try {
      child = startMizan(config);
      let id: number | undefined;
      const c = child;
      await waitForCondition(
        async () => {
          id = (await rest.getMarginPositions({})).find((p) => p.state === 'pending')?.id;
          return id !== undefined;
        },
        { what: 'a pending margin position', timeout: 30_000, interval: 300, detail: () => c.out() },
      );
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
