/**
 * A live bot's strategies warm up on the exchange's candle history (`/v1/udf/history`) before the
 * market data starts, as a backtest's warm up on the candles before `from` (src/runtime/warm-up.ts).
 * `mizan run --live` (a child process) against the simulator over HTTP, which serves 1-minute
 * candles up to the last closed minute: the probe (warm-up 20, 1-minute candles) gets the last 20 of
 * them through onCandle, its window holds them, and every buy it asks on them is denied (rule
 * `warmup`): no order reaches the exchange. Before, a live strategy started cold: an hourly SMA-30
 * bot was blind for 30 hours after every restart. History that stops short of the last closed
 * candle (a simulator seeded with old data) is not used, and said so.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { d } from '../../src/core/decimal.js';
import type { Candle } from '../../src/core/types/index.js';
import { DRILL_KEY, handSim, liveYaml, REPO, tempDir } from './restart-helpers.js';
import { KEY_ENV } from '../scenario/helpers.js';
import { startMizan } from './run-mizan.js';
import { waitFor } from '../support/wait-for.js';

const tmp = tempDir('mizan-e2e-warm-up-');
afterAll(() => tmp.remove());

/** 1-minute candles ending `endSec` (exclusive), `n` of them, close 62,000 + i. */
function minutes(endSec: number, n: number): Candle[] {
  const out: Candle[] = [];
  for (let i = 0; i < n; i++) {
    const t = endSec - (n - i) * 60;
    const c = d(62_000 + i);
    out.push({ time: t, open: c, high: c.plus(1), low: c.minus(1), close: c, volume: d('1') });
  }
  return out;
}

/**
 * The bot's output, and the orders it placed on the simulator. With `firstLive`, a trade at 63,000 is
 * printed in the minute the bot starts in, before it starts (the simulator prints 62,550 every 300 ms),
 * and the run lasts until that minute's candle reached the strategy.
 */
async function run(history: (lastCloseSec: number) => Candle[], name: string, firstLive = false): Promise<{ out: string; orders: number }> {
  const sim = await handSim('62550');
  try {
    // Far enough from the next minute for the bot to start inside this one.
    if (firstLive && new Date().getUTCSeconds() > 40) await new Promise((r) => setTimeout(r, (61 - new Date().getUTCSeconds()) * 1000));
    const now = Math.floor(Date.now() / 1000);
    sim.running.sim.setCandles('BTCUSDT', history(now - (now % 60)), 60);
    if (firstLive) sim.running.sim.recordTrade({ symbol: 'BTCUSDT', price: d('63000'), quantity: d('0.0001'), isBuyOrder: true, timestamp: Date.now() });
    const file = join(tmp.dir, `${name}.yaml`);
    const journal = join(tmp.dir, `${name}.sqlite`);
    writeFileSync(
      file,
      liveYaml({ url: sim.running.server.url, journal, strategy: join(REPO, 'test/e2e/fixtures/warm-probe.ts'), params: {}, resolution: '1' }),
    );
    const c = startMizan(['run', file, '--live'], { [KEY_ENV]: DRILL_KEY });
    try {
      await waitFor(() => /warm-up: BTCUSDT 60s: /.test(c.out()) && /stream connection up/.test(c.out()), {
        what: 'the warm-up line, then the market data',
        timeout: 60_000,
        detail: () => c.out(),
      });
      if (firstLive)
        await waitFor(() => (c.out().match(/probe: candle/g)?.length ?? 0) > 20, { what: 'the first live candle', timeout: 90_000, detail: () => c.out() });
      c.proc.kill('SIGINT');
      const exit = await c.exited;
      expect(exit.code, c.out()).toBe(0);
      return { out: c.out(), orders: sim.orders().length };
    } finally {
      c.proc.kill('SIGKILL');
    }
  } finally {
    await sim.stop();
  }
}

describe('mizan run --live: the warm-up on the exchange candle history', () => {
  it('feeds the last closed candles to the strategy, every intent on them denied', { timeout: 200_000 }, async () => {
    const { out, orders } = await run((last) => minutes(last, 50), 'warm', true);
    expect(out).toMatch(/warm-up: BTCUSDT 60s: 20 closed candle\(s\) from the exchange history/);
    const windows = [...out.matchAll(/probe: candle \S+ close (\d+), window (\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]);
    // The last 20 of the 50 (closes 62,030 .. 62,049), oldest first, the window growing to 20.
    expect(windows.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => [62_030 + i, i + 1]));
    expect(out.match(/probe: denied warmup: warming up on the exchange candle history/g)?.length).toBe(20);
    // A live minute that closed before the stop buys (as the probe asks): one order each, none from the history.
    expect(orders, out).toBe(windows.length - 20);
    // The first live minute began before the bot started: the strategy gets it whole, from the
    // exchange's history (its 63,000 trade printed before the start), not built from the seconds of
    // trades the bot saw (all at 62,550).
    expect(out).toMatch(/first live candle: BTCUSDT 60s at \S+ from the exchange's history/);
    expect(out.match(/probe: candle \S+ close \d+, window \d+, high (\d+)/g)?.[20]).toMatch(/high 63000$/);
  });

  it('does not use history that stops short of the last closed candle', { timeout: 120_000 }, async () => {
    const { out } = await run((last) => minutes(last - 3600, 50), 'old');
    expect(out).toMatch(/warm-up: BTCUSDT 60s: the exchange has no candle in the 20 periods before \S+; its strategies start cold/);
    expect(out).not.toMatch(/probe: candle/);
  });
});
