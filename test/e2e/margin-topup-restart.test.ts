/**
 * The margin monitor's top-up budget outlives a restart (an audit finding): it was counted in memory,
 * so every restart started from zero and a bot restarted N times could top up N times its budget.
 * `mizan run --live` against a simulator on 127.0.0.1 opens a margin long; the market falls to 15 %
 * from its call price (top up at 20 %), the monitor adds its whole budget (10 USDT); the bot is killed
 * and started again on the same journal, the market falls to 15 % from the moved call price, and the
 * monitor finds the budget spent (before: it added 10 USDT more).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { DRILL_KEY, handSim, kill9, liveYaml, REPO, startMizan, tempDir, type Child } from './restart-helpers.js';
import { moreStatusLines, waitFor } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-margin-topup-');
afterAll(() => tmp.remove());

describe('the margin top-up budget across a restart (live mode against the simulator)', () => {
  it('a restarted bot does not top up past the budget', async () => {
    const sim = await handSim('62550');
    const config = join(tmp.dir, 'tu.yaml');
    writeFileSync(
      config,
      liveYaml({
        url: sim.running.server.url,
        journal: join(tmp.dir, 'tu.sqlite'),
        strategy: join(REPO, 'test/e2e/fixtures/margin-open-once.ts'),
        params: {},
        name: 'opener',
        risk: { marginMonitor: { warnAtPct: 30, topUpAtPct: 20, closeAtPct: 2, topUpBudget: { USDT: '10' } } },
      }),
    );
    const rest = new WallexRestClient({ baseUrl: sim.running.server.url, apiKey: DRILL_KEY });
    const open = async () => (await rest.getMarginPositions({})).filter((p) => p.state === 'open');
    const collateral = async () => (await open()).map((p) => p.collateral.value.toFixed());
    let child: Child | undefined;
    try {
      child = startMizan(config);
      const first = child;
      await waitFor(async () => (await open()).length === 1, { what: 'the margin long to open', timeout: 30_000, detail: () => first.out() });
      const [pos] = await open();
      expect(pos!.collateral.value.toFixed()).toBe('100');
      // 15 % from the call price: below the top-up threshold, far above the close one.
      sim.price(pos!.callPrice.div('0.85').toDecimalPlaces(2).toFixed());
      await waitFor(async () => (await collateral())[0] === '110', {
        what: 'the monitor to add its budget',
        timeout: 30_000,
        detail: () => first.out(),
      });
      await kill9(child);

      child = startMizan(config);
      const second = child;
      await moreStatusLines(() => second.out(), 1, 30_000); // restarted, the position synced
      // The top-up moved the call price down; the market falls on to 15 % from it again.
      const [moved] = await open();
      expect(moved!.callPrice.lt(pos!.callPrice)).toBe(true);
      sim.price(moved!.callPrice.div('0.85').toDecimalPlaces(2).toFixed());
      await waitFor(() => second.out().includes('top-up budget is spent'), {
        what: 'the restarted monitor to find the budget spent',
        timeout: 40_000,
        detail: () => second.out(),
      }).catch(async (e: Error) => {
        throw new Error(`${e.message}\ncollateral now: ${JSON.stringify(await collateral())}`);
      });
      await moreStatusLines(() => second.out(), 1, 20_000); // the monitor ran on after it
      expect(await collateral()).toEqual(['110']);
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 150_000);
});
