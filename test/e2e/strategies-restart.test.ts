/**
 * Example strategies across a SIGKILL: `mizan run <config> --live` against a simulator on 127.0.0.1
 * (REST and socket.io), killed with SIGKILL once its orders rest, then started again on the same
 * journal and simulator. A strategy rebuilds its view from its recovered orders (ctx.openOrders)
 * and ctx.state: the orders on the simulator are not placed a second time.
 *
 * The three drills run at the same time (each its own simulator, journal and bot): most of each is
 * waiting for the bot's 5-second status lines.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import { DRILL_KEY, handSim, kill9, liveYaml, startMizan, tempDir, waitFor, type Child } from './restart-helpers.js';
import { moreStatusLines, waitFor as waitForCondition } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-restart-');
afterAll(() => tmp.remove());

async function restartDrill(o: { name: string; strategy: string; params: Record<string, unknown>; ready: (open: number) => boolean }) {
  const sim = await handSim('62550');
  const journal = join(tmp.dir, `${o.name}.sqlite`);
  const config = join(tmp.dir, `${o.name}.yaml`);
  writeFileSync(config, liveYaml({ url: sim.running.server.url, journal, strategy: o.strategy, params: o.params, name: o.name }));
  let child: Child | undefined;
  try {
    child = startMizan(config);
    await waitFor(`${o.name} to place its orders`, () => o.ready(sim.open().length), 30_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${child!.out()}`);
    });
    // Settled: the bot's loop ran on for two status lines (5 s each) with its orders resting.
    await moreStatusLines(() => child!.out(), 2, 40_000);
    const before = sim
      .open()
      .map((x) => x.clientOrderId)
      .sort();
    await kill9(child);
    child = startMizan(config);
    await waitFor('the restarted bot to start', () => /recovered \d+ open order/.test(child!.out()), 30_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${child!.out()}`);
    });
    // The restarted strategy had its chance to place orders again: a status line (5 s after its start) came.
    await moreStatusLines(() => child!.out(), 1, 30_000);
    const after = sim.open().map((x) => `${x.side} ${x.price.toFixed()}`);
    const out = child.out();
    child.proc.kill('SIGINT');
    const exit = await child.exited;
    child = undefined;
    return { before, after, out, exit, orders: sim.orders() };
  } finally {
    if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
    await sim.stop();
  }
}

describe.concurrent('example strategies restarted after SIGKILL', () => {
  it('grid keeps its ladder: 4 open buys before the kill, the same 4 after the restart (not 8)', async ({ expect }) => {
    const r = await restartDrill({
      name: 'grid',
      strategy: 'grid',
      params: { levels: 4, spacingPct: 0.5, orderQuote: 20 },
      ready: (n) => n >= 4,
    });
    expect(r.before).toHaveLength(4);
    expect(r.after, r.out).toHaveLength(4);
    expect(r.orders.filter((o) => o.side === 'BUY')).toHaveLength(4);
    expect(r.exit.code, r.out).toBe(0);
  }, 120_000);

  it('market-maker keeps one quote per side: its restart replaces the recovered quotes instead of adding to them', async ({ expect }) => {
    const r = await restartDrill({
      name: 'mm',
      strategy: 'market-maker',
      params: { orderQuote: 50, minSpreadBps: 20, refreshMs: 200 },
      ready: (n) => n >= 1,
    });
    expect(r.before.length).toBeGreaterThanOrEqual(1);
    expect(r.after.length, r.out).toBeLessThanOrEqual(2);
    expect(
      r.after.filter((x) => x.startsWith('BUY')),
      r.out,
    ).toHaveLength(1);
    expect(r.exit.code, r.out).toBe(0);
  }, 120_000);

  it('margin-trend keeps its position: after the restart the trend it follows is not taken for a flip (no close, no second position)', async ({ expect }) => {
    const sim = await handSim('62550');
    const journal = join(tmp.dir, 'mt.sqlite');
    const config = join(tmp.dir, 'mt.yaml');
    writeFileSync(
      config,
      liveYaml({
        url: sim.running.server.url,
        journal,
        strategy: 'margin-trend',
        params: { fast: 2, slow: 3, collateral: 100, riskCoef: 2, stopLossPct: 5, takeProfitPct: 20 },
        name: 'mt',
        resolution: '5s',
      }),
    );
    const rest = new WallexRestClient({ baseUrl: sim.running.server.url, apiKey: DRILL_KEY });
    let positions: MarginPosition[] = [];
    const read = async () => (positions = await rest.getMarginPositions({}));
    // A steady rise: the fast EMA stays above the slow one, a long is opened and kept.
    let px = 62550;
    const rise = setInterval(() => sim.price(String((px += 2))), 500);
    let child: Child | undefined;
    try {
      child = startMizan(config);
      const opened = async () => (await read()).some((p) => p.state === 'open' || p.state === 'pending');
      const first = child;
      await waitForCondition(opened, { what: 'a margin position opened', timeout: 60_000, interval: 500, detail: () => first.out() });
      await kill9(child);
      const before = positions.map((p) => `${p.id} ${p.side} ${p.state}`);
      expect(before).toHaveLength(1);
      expect(before[0]).toMatch(/ long (open|pending)$/);
      child = startMizan(config);
      await waitFor('the restarted bot to start', () => /mizan live/.test(child!.out()), 30_000);
      await moreStatusLines(() => child!.out(), 5, 60_000); // five 5-second candles of the same trend
      await read();
      const out = child.out();
      child.proc.kill('SIGINT');
      expect((await child.exited).code, out).toBe(0);
      child = undefined;
      // The same single position, still active (a flip would have closed it and opened another).
      expect(
        positions.map((p) => `${p.id} ${p.side}`),
        out,
      ).toEqual([before[0]!.split(' ').slice(0, 2).join(' ')]);
      expect(positions[0]!.state, out).toMatch(/^(open|pending)$/);
    } finally {
      clearInterval(rise);
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 150_000);
});
