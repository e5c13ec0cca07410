/**
 * Fills that happened while the bot was down are booked once. `mizan run --live` places a grid's
 * buys on a simulator on 127.0.0.1, is killed with SIGKILL, both buys fill while it is down, and it
 * is started again on the same journal: recovery finds the two fills. Before, they were booked twice
 * (recovery applied them to the portfolio and so did the kernel, which books every fill the engine
 * emits): the stop summary showed twice the coins the account received, and the grid offered them
 * for sale twice. The summary's position must be the journal's (`mizan journal pnl`), and the grid's
 * sells must not exceed what was bought.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { handSim, kill9, liveYaml, startMizan, tempDir, waitFor, type Child } from './restart-helpers.js';
import { mizan } from './cli.js';
import { moreStatusLines } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-recovery-fills-');
afterAll(() => tmp.remove());

describe('recovery after SIGKILL: fills found are booked once', () => {
  it("the summary's position is the journal's, and the grid sells no more than it bought", async () => {
    const sim = await handSim('62550');
    const journal = join(tmp.dir, 'grid.sqlite');
    const config = join(tmp.dir, 'grid.yaml');
    writeFileSync(
      config,
      liveYaml({ url: sim.running.server.url, journal, strategy: 'grid', params: { levels: 2, spacingPct: 0.5, orderQuote: 20 }, name: 'g' }),
    );
    let child: Child | undefined;
    try {
      child = startMizan(config);
      await waitFor('the two buys to rest', () => sim.open().filter((o) => o.side === 'BUY').length >= 2, 30_000).catch((e: Error) => {
        throw new Error(`${e.message}\n${child!.out()}`);
      });
      await kill9(child);
      // Down: the market falls through both buys.
      sim.price('61000');
      await waitFor('both buys to fill on the exchange', () => sim.orders().filter((o) => o.side === 'BUY' && o.status === 'FILLED').length === 2, 20_000);
      const bought = sim
        .orders()
        .filter((o) => o.side === 'BUY')
        .reduce((a, o) => a + Number(o.executedQty.minus(o.fee).toFixed()), 0);

      child = startMizan(config);
      await waitFor('the restarted bot to recover', () => /recovered \d+ open order/.test(child!.out()), 30_000);
      await moreStatusLines(() => child!.out(), 1, 30_000);
      const sells = sim
        .open()
        .filter((o) => o.side === 'SELL')
        .reduce((a, o) => a + Number(o.origQty.toFixed()), 0);
      child.proc.kill('SIGINT');
      const exit = await child.exited;
      const out = child.out();
      child = undefined;
      expect(exit.code, out).toBe(0);
      expect(out).toMatch(/"fillsFound":2/);

      const summary = /^\s+g\s+BTCUSDT\s+([\d.]+) BTC\s/m.exec(out);
      expect(summary, out).not.toBeNull();
      const pnl = await mizan(['journal', 'pnl', '--file', journal]);
      const row = /^g\s+BTCUSDT\s+\d+\s+([\d.]+)\s/m.exec(pnl.stdout);
      expect(row, pnl.all).not.toBeNull();
      // Before: the summary held each recovered fill twice.
      expect(summary![1]).toBe(row![1]);
      expect(Number(row![1])).toBeCloseTo(bought, 12);
      expect(sells, out).toBeLessThanOrEqual(bought + 1e-12);
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 120_000);
});
