/**
 * A bracket survives the bot's own stop: `mizan run <config> --live` against a simulator buys with a
 * stop loss and a take profit; once the stop rests on the simulator the bot gets SIGINT (Ctrl-C),
 * whose cancel of the open orders cancels the stop. The bracket is kept in the journal, suspended,
 * and the summary names it. Started again on the same journal, the bot places the stop again
 * (exactly once) at the market's first price, and it protects: the market falls through it and it
 * sells. A second run stops the same way, the market falls through the stop while the bot is down,
 * and the restarted bot exits at market instead of placing a stop already crossed.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { handSim, liveYaml, startMizan, tempDir, waitFor, type Child } from './restart-helpers.js';
import { moreStatusLines } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-brkstop-');
afterAll(() => tmp.remove());
const STRATEGY = resolve(import.meta.dirname, 'fixtures/bracket-entry.ts');

function brackets(file: string): Record<string, unknown> {
  const j = Journal.open(file, { readonly: true });
  try {
    return j.kvAll('__brackets');
  } finally {
    j.close();
  }
}

async function ctrlC(child: Child): Promise<string> {
  child.proc.kill('SIGINT');
  expect((await child.exited).code, child.out()).toBe(0);
  return child.out();
}

async function setUp(name: string) {
  const sim = await handSim('62550');
  const journal = join(tmp.dir, `${name}.sqlite`);
  const config = join(tmp.dir, `${name}.yaml`);
  writeFileSync(
    config,
    liveYaml({ url: sim.running.server.url, journal, strategy: STRATEGY, params: { quantity: 0.001, stopLoss: 60000, takeProfit: 65000 } }),
  );
  const types = () => sim.orders().map((o) => `${o.type} ${o.side} ${o.status}`);
  // The first run: the entry fills and its stop rests; Ctrl-C cancels it and suspends the bracket.
  const child = startMizan(config);
  await waitFor('the entry to fill and its stop to rest', () => sim.open().some((o) => o.type === 'STOP_MARKET'), 30_000).catch((e: Error) => {
    throw new Error(`${e.message}\n${child.out()}`);
  });
  const out = await ctrlC(child);
  expect(types()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL CANCELED']);
  expect(out).toMatch(/bracket of [^:]+: its stop cancelled by the stop; placed again at start/);
  expect(out).toContain('brackets suspended by the stop (placed again at the next start): e2e BTCUSDT stop 60000 take profit 65000 (0.000998 BTC)');
  const kept = Object.values(brackets(journal)) as { suspended?: boolean; held: string }[];
  expect(kept).toEqual([expect.objectContaining({ suspended: true, held: '0.000998', phase: 'open' })]);
  return { sim, journal, config, types };
}

describe("a bracket across the bot's own stop (live mode against the simulator)", () => {
  it('keeps the bracket at Ctrl-C and places its stop again, once, at the next start', async () => {
    const { sim, journal, config, types } = await setUp('again');
    let child: Child | undefined;
    try {
      child = startMizan(config);
      await waitFor('the stop to rest again', () => sim.open().some((o) => o.type === 'STOP_MARKET'), 30_000).catch((e: Error) => {
        throw new Error(`${e.message}\n${types().join('\n')}\n${child!.out()}`);
      });
      await moreStatusLines(() => child!.out(), 1, 20_000); // the restarted bot ran on for a while
      expect(types()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL CANCELED', 'STOP_MARKET SELL NEW']);
      const stop = sim.open()[0]!;
      expect(stop.origQty.toFixed()).toBe('0.000998');
      expect(stop.stopPrice!.toFixed()).toBe('60000');
      expect(child.out()).toMatch(/bracket of [^:]+: suspended by the last stop; placed again at start/);
      expect(brackets(journal)).toEqual({ [Object.keys(brackets(journal))[0]!]: expect.not.objectContaining({ suspended: true }) });

      // It protects: the market falls through the stop, which sells.
      sim.price('59000');
      await waitFor('the stop to sell', () => sim.orders().some((o) => o.type === 'STOP_MARKET' && o.status === 'FILLED'), 20_000);
      await waitFor('the bracket to end', () => Object.keys(brackets(journal)).length === 0, 10_000);
      const out = await ctrlC(child);
      child = undefined;
      expect(out).not.toContain('brackets suspended by the stop');
      expect(types()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL CANCELED', 'STOP_MARKET SELL FILLED']);
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 150_000);

  it('exits at market at the next start when the stop was crossed while the bot was down', async () => {
    const { sim, journal, config, types } = await setUp('crossed');
    let child: Child | undefined;
    try {
      sim.price('59000');
      child = startMizan(config);
      await waitFor('the market exit', () => sim.orders().some((o) => o.type === 'MARKET' && o.side === 'SELL' && o.status === 'FILLED'), 30_000).catch(
        (e: Error) => {
          throw new Error(`${e.message}\n${types().join('\n')}\n${child!.out()}`);
        },
      );
      await waitFor('the bracket to end', () => Object.keys(brackets(journal)).length === 0, 10_000);
      await ctrlC(child);
      child = undefined;
      expect(types()).toEqual(['MARKET BUY FILLED', 'STOP_MARKET SELL CANCELED', 'MARKET SELL FILLED']);
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await sim.stop();
    }
  }, 150_000);
});
