/**
 * A looping paper replay sleeps before almost every event (~7 a second at speed 1). Each sleep was
 * `Promise.race([sleep(ms), stopSignal])` with one stop promise for the whole replay, which never
 * settles while it runs: every race left a reaction on it (the race's promise, its resolving
 * functions and their context, ~300 bytes), so the heap grew by ~7 MB an hour for as long as the
 * bot ran (issue #33 item 6, bench/soak.ts; heap snapshots 10 minutes apart: +4,180 PromiseReaction,
 * +8,360 Promise and closures). The live heap must not grow with the number of sleeps.
 */
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { startReplay, type ReplayEvent, type ReplaySource, type ReplayTarget } from '../../../src/sim/replay/index.js';

v8.setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

/** `n` trades 1 ms apart, generated (nothing kept by the source). */
function manyTrades(n: number): ReplaySource {
  return {
    name: 'gen',
    symbols: ['AUSDT'],
    resolutionSec: 60,
    *events(): Generator<ReplayEvent> {
      for (let i = 0; i < n; i++) yield { kind: 'trade', symbol: 'AUSDT', time: 1_000 + i, price: '10', quantity: '1', isBuyOrder: i % 2 === 0 };
    },
    candles: () => [],
  };
}

describe('startReplay memory', () => {
  it('holds no memory per sleep: 100,000 paced events leave the heap where it was', async () => {
    let pushed = 0;
    const sim: ReplayTarget = { replaceBookSide: () => undefined, recordTrade: () => void pushed++ };
    const clock = new ManualClock(0);
    let sleeps = 0;
    const sleep = async (ms: number) => {
      sleeps++;
      clock.advance(ms);
    };
    const n = 100_000;
    const before = heapAfterGc();
    const h = startReplay({ sim, sources: [manyTrades(n)], speed: 1, clock, sleep });
    await h.done;
    const grown = heapAfterGc() - before;
    expect(pushed).toBe(n);
    expect(sleeps).toBe(n - 1);
    // the handle is still held (as a running bot holds it): what it keeps must not scale with n
    expect(h.progress().events).toBe(n);
    expect(grown).toBeLessThan(3 * 1024 * 1024);
  });

  it('stop() still wakes a replay in the middle of a long sleep', async () => {
    const sim: ReplayTarget = { replaceBookSide: () => undefined, recordTrade: () => undefined };
    let sleeping!: () => void;
    const asleep = new Promise<void>((r) => (sleeping = r));
    const h = startReplay({
      sim,
      sources: [manyTrades(10)],
      speed: 1,
      clock: new ManualClock(0),
      sleep: () => {
        sleeping();
        return new Promise(() => {}); // never ends by itself
      },
    });
    await asleep;
    h.stop();
    const p = await h.done;
    expect(p.events).toBe(1);
    expect(p.running).toBe(false);
  });
});
