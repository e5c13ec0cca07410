/**
 * Example strategies across a SIGKILL: `mizan run <config> --live` against a simulator on 127.0.0.1
 * (REST and socket.io), killed with SIGKILL once its orders rest, then started again on the same
 * journal and simulator. A strategy rebuilds its view from its recovered orders (ctx.openOrders)
 * and ctx.state: the orders on the simulator are not placed a second time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handSim, kill9, liveYaml, sleep, startMizan, tempDir, waitFor, type Child } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-restart-');
afterAll(() => tmp.remove());

async function restartDrill(o: { name: string; strategy: string; params: Record<string, unknown>; ready: (open: number) => boolean; settleMs: number }) {
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
    await sleep(o.settleMs);
    const before = sim.open().map((x) => x.clientOrderId).sort();
    await kill9(child);
    child = startMizan(config);
    await waitFor('the restarted bot to start', () => /recovered \d+ open order/.test(child!.out()), 30_000).catch((e: Error) => {
      throw new Error(`${e.message}\n${child!.out()}`);
    });
    await sleep(o.settleMs);
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

describe('example strategies restarted after SIGKILL', () => {
  it('grid keeps its ladder: 4 open buys before the kill, the same 4 after the restart (not 8)', async () => {
    const r = await restartDrill({ name: 'grid', strategy: 'grid', params: { levels: 4, spacingPct: 0.5, orderQuote: 20 }, ready: (n) => n >= 4, settleMs: 3000 });
    expect(r.before).toHaveLength(4);
    expect(r.after, r.out).toHaveLength(4);
    expect(r.orders.filter((o) => o.side === 'BUY')).toHaveLength(4);
    expect(r.exit.code, r.out).toBe(0);
  }, 120_000);

  it('market-maker keeps one quote per side: its restart replaces the recovered quotes instead of adding to them', async () => {
    const r = await restartDrill({ name: 'mm', strategy: 'market-maker', params: { orderQuote: 50, minSpreadBps: 20, refreshMs: 200 }, ready: (n) => n >= 1, settleMs: 3000 });
    expect(r.before.length).toBeGreaterThanOrEqual(1);
    expect(r.after.length, r.out).toBeLessThanOrEqual(2);
    expect(r.after.filter((x) => x.startsWith('BUY')), r.out).toHaveLength(1);
    expect(r.exit.code, r.out).toBe(0);
  }, 120_000);
});
