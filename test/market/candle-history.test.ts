import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { type Candle, type Resolution, resolutionSeconds } from '../../src/core/types/market.js';
import { CandleHistory } from '../../src/market/candle-history.js';
import type { CandleHistorySource, CandleQuery } from '../../src/market/ports.js';

const DAY = 86_400;
const START = Date.UTC(2025, 0, 1) / 1000;

/** Serves deterministic candles; periods where (t / res) % 97 === 5 have no trade (no candle). */
class FakeHistory implements CandleHistorySource {
  queries: CandleQuery[] = [];
  constructor(
    private readonly cap: number,
    private readonly clock: ManualClock,
  ) {}
  async getCandles(q: CandleQuery): Promise<Candle[]> {
    this.queries.push(q);
    const res = resolutionSeconds(q.resolution);
    if (Math.floor(q.to / res) - Math.floor(q.from / res) + 1 > this.cap) throw new Error(`more than ${this.cap} points asked`);
    const out: Candle[] = [];
    // Like the exchange: from the period containing `from`, through `to`, up to now.
    for (let t = Math.floor(q.from / res) * res; t <= q.to && t * 1000 <= this.clock.now(); t += res) {
      if ((t / res) % 97 === 5) continue;
      const p = d(1000 + ((t / res) % 50));
      out.push({ time: t, open: p, high: p.plus(2), low: p.minus(1), close: p.plus(1), volume: d('0.5') });
    }
    return out;
  }
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup(cap = 1000, nowSec = START + 10 * DAY) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'mizan-candles-'));
  dirs.push(dir);
  const clock = new ManualClock(nowSec * 1000);
  const source = new FakeHistory(cap, clock);
  const history = new CandleHistory({ source, origin: 'https://api.wallex.ir', clock, options: { pageSize: cap, cacheDir: dir } });
  return { dir, clock, source, history };
}

describe('CandleHistory', () => {
  it('pages a long range with no duplicate and no missing candle, then serves it from the cache', async () => {
    const { source, history } = setup(1000);
    const from = START;
    const to = START + 3 * DAY - 1; // 4320 one-minute periods
    const r = await history.fetch('BTCTMN', '1', from + 30, to); // unaligned start
    expect(source.queries.length).toBe(5);
    const times = r.candles.map((c) => c.time);
    expect(new Set(times).size).toBe(times.length);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const expected: number[] = [];
    for (let t = from + 60; t <= to; t += 60) if ((t / 60) % 97 !== 5) expected.push(t);
    expect(times).toEqual(expected);
    // Gaps are the no-trade periods, each reported once.
    expect(r.gaps.length).toBe(4320 - 1 - expected.length);
    expect(r.gaps.every((g) => g.count === 1 && (g.from / 60) % 97 === 5)).toBe(true);

    const again = await history.fetch('BTCTMN', '1', from + 30, to);
    expect(again.requests).toBe(0);
    expect(source.queries.length).toBe(5);
    expect(again.candles.map((c) => c.time)).toEqual(times);
  });

  it('fetches only the missing parts of a partly covered range, and the cache survives a restart', async () => {
    const { dir, clock, source, history } = setup(100);
    await history.fetch('USDTTMN', '60', START + 100 * 3600, START + 149 * 3600);
    expect(source.queries).toHaveLength(1);
    source.queries.length = 0;
    const r = await history.fetch('USDTTMN', '60', START, START + 199 * 3600);
    expect(source.queries.map((q) => [q.from, q.to])).toEqual([
      [START, START + 99 * 3600 + 3599],
      [START + 149 * 3600 + 1, START + 199 * 3600],
    ]);
    expect(r.candles.length + r.gaps.reduce((n, g) => n + g.count, 0)).toBe(200);

    const restarted = new CandleHistory({ source, origin: 'https://api.wallex.ir', clock, options: { pageSize: 100, cacheDir: dir } });
    source.queries.length = 0;
    const cached = await restarted.fetch('USDTTMN', '60', START + 10 * 3600, START + 20 * 3600);
    expect(cached.requests).toBe(0);
    expect(cached.candles.map((c) => c.time)).toEqual(r.candles.filter((c) => c.time >= START + 36000 && c.time <= START + 72000).map((c) => c.time));
    expect(cached.candles[0]?.open.toString()).toBe(r.candles.find((c) => c.time === START + 36000)?.open.toString());
    const file = JSON.parse(readFileSync(path.join(dir, 'api.wallex.ir', 'USDTTMN', '60.json'), 'utf8')) as { covered: number[][] };
    expect(file.covered).toEqual([[START, START + 199 * 3600]]);
  });

  it('never caches the period still forming: it is fetched again next time', async () => {
    const now = START + 5 * DAY + 1800; // half way through an hour
    const { clock, source, history } = setup(1000, now);
    const r1 = await history.fetch('BTCUSDT', '60', START + 5 * DAY - 3 * 3600, now + 3600);
    expect(r1.candles.at(-1)?.time).toBe(START + 5 * DAY);
    expect(r1.gaps.every((g) => g.to < START + 5 * DAY)).toBe(true);
    const r2 = await history.fetch('BTCUSDT', '60', START + 5 * DAY - 3 * 3600, START + 5 * DAY - 1);
    expect(r2.requests).toBe(0);
    const r3 = await history.fetch('BTCUSDT', '60', START + 5 * DAY, now + 3600);
    expect(r3.requests).toBe(1);
    expect(source.queries.at(-1)?.from).toBe(START + 5 * DAY);
    clock.advance(3600 * 1000);
    const r4 = await history.fetch('BTCUSDT', '60', START + 5 * DAY, START + 5 * DAY + 3599);
    expect(r4.requests).toBe(1);
    const r5 = await history.fetch('BTCUSDT', '60', START + 5 * DAY, START + 5 * DAY + 3599);
    expect(r5.requests).toBe(0);
  });

  it('handles both resolution sets and refuses bad arguments', async () => {
    const { history, source } = setup(1000, START + 400 * DAY);
    for (const res of ['D', '1D', '3D', '180', '240'] as Resolution[]) {
      const r = await history.fetch('ETHTMN', res, START, START + 300 * DAY - 1);
      const sec = resolutionSeconds(res);
      expect(r.candles.every((c) => c.time % sec === 0)).toBe(true);
      const to = START + 300 * DAY - 1;
      const periods = Math.floor(to / sec) - Math.ceil(START / sec) + 1;
      expect(r.candles.length + r.gaps.reduce((n, g) => n + g.count, 0)).toBe(periods);
      expect(r.gaps.length).toBeGreaterThan(0);
    }
    expect(source.queries.filter((q) => q.resolution === '240').length).toBe(2);
    expect(() => history.fetch('ETHTMN', '7' as Resolution, 0, 1)).toThrow(/resolution/);
    expect(() => history.fetch('ETHTMN', '60', 10, 5)).toThrow(/from\/to/);
    await expect(history.fetch('../etc', '60', 0, 10)).rejects.toThrow(/symbol/);
  });
});
