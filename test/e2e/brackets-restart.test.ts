/**
 * Brackets survive a SIGKILL: `mizan run <config> --live` against a simulator on 127.0.0.1 (REST and
 * socket.io) buys with a stop loss and a take profit; once the stop rests on the simulator the bot
 * is killed with SIGKILL and started again on the same journal. The restarted bot places nothing
 * twice (one entry, one stop), and when the market reaches the take profit it cancels the recovered
 * stop and exits at market; the strategy saw the children as its orders (its ctx.state record).
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { handSim, kill9, liveYaml, startMizan, tempDir, waitFor, type Child } from './restart-helpers.js';
import { moreStatusLines } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-brk-');
afterAll(() => tmp.remove());
const STRATEGY = resolve(import.meta.dirname, 'fixtures/bracket-entry.ts');

describe('brackets across a SIGKILL (live mode against the simulator)', () => {
  it('keeps the stop on the exchange, places nothing twice, and the take profit still cancels the stop after the restart', async () => {
    const sim = await handSim('62550');
    const journal = join(tmp.dir, 'brk.sqlite');
    const config = join(tmp.dir, 'brk.yaml');
    writeFileSync(
      config,
      liveYaml({ url: sim.running.server.url, journal, strategy: STRATEGY, params: { quantity: 0.001, stopLoss: 60000, takeProfit: 65000 } }),
    );
    let child: Child | undefined;
    const types = () => sim.orders().map((o) => `${o.type} ${o.side} ${o.status}`);
    try {
      child = startMizan(config);
      await waitFor('the entry to fill and its stop to rest', () => sim.open().some((o) => o.type === 'STOP_MARKET'), 30_000).catch((e: Error) => {
        throw new Error(`${e.message}\n${child!.out()}`);
      });
      await kill9(child);
      expect(types()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL NEW']);
      const stop = sim.open()[0]!;
      expect(stop.origQty.toFixed()).toBe('0.000998'); // 0.001 less the 0.2 % fee taken in BTC
      expect(stop.stopPrice!.toFixed()).toBe('60000');

      child = startMizan(config);
      await waitFor('the restarted bot to start', () => /recovered \d+ open order/.test(child!.out()), 30_000);
      await moreStatusLines(() => child!.out(), 1, 20_000); // the restarted bot ran on for a while
      expect(types()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL NEW']); // nothing placed twice

      sim.price('65000');
      await waitFor('the take profit to exit', () => sim.orders().some((o) => o.type === 'MARKET' && o.side === 'SELL' && o.status === 'FILLED'), 20_000).catch(
        (e: Error) => {
          throw new Error(`${e.message}\n${types().join('\n')}\n${child!.out()}`);
        },
      );
      expect(types()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL CANCELED', 'MARKET SELL FILLED']);
      expect(sim.running.sim.getOrder(sim.running.account.accountId, stop.clientOrderId).status).toBe('CANCELED');
      await waitFor(
        'the strategy to hear of the exit',
        () => {
          const j = Journal.open(journal, { readonly: true });
          try {
            return ((j.kvGet('e2e', 'fills') as string[] | undefined) ?? []).length > 0;
          } finally {
            j.close();
          }
        },
        10_000,
      );
      child.proc.kill('SIGINT');
      expect((await child.exited).code, child.out()).toBe(0);
      child = undefined;

      const j = Journal.open(journal, { readonly: true });
      try {
        expect(j.kvAll('__brackets')).toEqual({});
        expect(j.kvGet('e2e', 'fills')).toEqual(['SELL 0.000998 bracket-tp']);
        expect(j.kvGet('e2e', 'orders')).toEqual(expect.arrayContaining(['STOP_MARKET cancelled bracket-sl', 'MARKET filled bracket-tp']));
        // The emulated OCO is journaled on the entry.
        const entry = j.orders({}).find((o) => o.tag === 'entry')!;
        const notes = j
          .orderEvents(entry.clientId)
          .map((e) => (e.detail as { bracket?: string } | null)?.bracket)
          .filter(Boolean);
        expect(notes).toEqual(expect.arrayContaining(['placing stop loss', 'exiting', 'placing market exit', 'done']));
      } finally {
        j.close();
      }
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 120_000);
});
