import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { hftSource, type BookEvent, type ReplayEvent } from '../../../src/sim/replay/index.js';
import { DATA } from './helpers.js';

const SPOT = ['hftbacktest/spot/btcusdt_20240808.gz', 'hftbacktest/spot/btcusdt_20240809.gz'].map((f) => join(DATA, f));

function all(it: Iterator<ReplayEvent>): ReplayEvent[] {
  const out: ReplayEvent[] = [];
  for (let r = it.next(); !r.done; r = it.next()) out.push(r.value);
  return out;
}

describe('hftbacktest spot captures -> real book and trades', () => {
  const src = hftSource(SPOT);
  const events = all(src.events());
  const books = events.filter((e): e is BookEvent => e.kind === 'book');

  it('applies every diff in sequence over both files (no gaps), drops the stale ones, never crosses', () => {
    expect(src.stats.gaps).toBe(0);
    expect(src.stats.diffsStale).toBeGreaterThan(0);
    // 3451 + 3044 diffs in the files, minus the stale ones before the snapshot
    expect(src.stats.diffsApplied + src.stats.diffsStale).toBe(3451 + 3044);
    expect(src.stats.crossed).toBe(0);
    expect(books).toHaveLength(src.stats.diffsApplied);
    const bad: string[] = [];
    for (const b of books) {
      if (b.bids.length !== 50 || b.asks.length !== 50) bad.push(`${b.time}: ${b.bids.length}/${b.asks.length} levels`);
      if (!(Number(b.bids[0]![0]) < Number(b.asks[0]![0]))) bad.push(`${b.time}: crossed`);
      for (let i = 1; i < b.bids.length; i++) if (!(Number(b.bids[i]![0]) < Number(b.bids[i - 1]![0]))) bad.push(`${b.time}: bid ${i}`);
      for (let i = 1; i < b.asks.length; i++) if (!(Number(b.asks[i]![0]) > Number(b.asks[i - 1]![0]))) bad.push(`${b.time}: ask ${i}`);
    }
    expect(bad).toEqual([]);
  });

  it('emits the 9757 + 10147 trades (less the one before the snapshot) in time order, m=true as taker sells', () => {
    const trades = events.filter((e) => e.kind === 'trade');
    expect(trades).toHaveLength(9757 + 10147 - 1);
    let back = 0;
    for (let i = 1; i < events.length; i++) if (events[i]!.time < events[i - 1]!.time) back++;
    expect(back).toBe(0);
    // the capture's second trade (line 58): T 1723161255617, p 61837.63, q 0.048, m true
    const t = trades.find((x) => x.time === 1723161255617)!;
    expect(t).toMatchObject({ price: '61837.63000000', quantity: '0.04800000', isBuyOrder: false });
    expect(trades.filter((x) => x.isBuyOrder).length).toBeGreaterThan(0);
  });

  it('a level of a raw diff shows in the book emitted at that diff', () => {
    const lines = gunzipSync(readFileSync(SPOT[1]!)).toString('utf8').split('\n');
    const diff = lines
      .map((l) => l.slice(l.indexOf(' ') + 1))
      .filter((l) => l.includes('@depth'))
      .map((l) => JSON.parse(l).data as { E: number; b: [string, string][]; a: [string, string][] })[100]!;
    const book = books.find((b) => b.time === diff.E)!;
    expect(book).toBeDefined();
    const [p, q] = diff.b.find(([, qty]) => Number(qty) > 0)!;
    const inTop = book.bids.find(([bp]) => bp === p);
    if (Number(p) >= Number(book.bids[49]![0])) expect(inTop?.[1]).toBe(q);
    const removed = diff.a.find(([, qty]) => Number(qty) === 0);
    if (removed) expect(book.asks.find(([ap]) => ap === removed[0])).toBeUndefined();
  });

  it("agrees with Binance's own best bid/ask (bookTicker) whenever both are at the same update id", () => {
    const ticker = new Map<number, [string, string]>();
    for (const f of SPOT) {
      for (const l of gunzipSync(readFileSync(f)).toString('utf8').split('\n')) {
        if (!l.includes('@bookTicker')) continue;
        const t = JSON.parse(l.slice(l.indexOf(' ') + 1)).data as { u: number; b: string; a: string };
        ticker.set(t.u, [t.b, t.a]);
      }
    }
    let compared = 0;
    const wrong: string[] = [];
    for (const b of books) {
      const t = b.updateId !== undefined ? ticker.get(b.updateId) : undefined;
      if (!t) continue;
      compared++;
      if (b.bids[0]![0] !== t[0] || b.asks[0]![0] !== t[1]) wrong.push(`${b.updateId}: ${b.bids[0]![0]}/${b.asks[0]![0]} vs ${t[0]}/${t[1]}`);
    }
    expect(wrong).toEqual([]);
    expect(compared).toBeGreaterThan(1000);
  });

  it('builds 1-minute candles from the trades', () => {
    const c = src.candles('BTCUSDT');
    expect(c).toHaveLength(12);
    expect(new Date(c[0]!.time * 1000).toISOString()).toBe('2024-08-08T23:54:00.000Z');
    expect(c[0]!.open.toFixed()).toBe('61837.63');
    expect(src.candles('ETHUSDT')).toEqual([]);
  });
});

describe('sequencing rules on a crafted capture', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-hft-'));
  const line = (ts: number, o: object) => `${ts}000000 ${JSON.stringify(o)}`;
  const depth = (E: number, U: number, u: number, b: [string, string][], a: [string, string][], pu?: number) =>
    line(E, { stream: 'x@depth@100ms', data: { e: 'depthUpdate', E, s: 'X', U, u, ...(pu !== undefined ? { pu } : {}), b, a } });

  it('spot: buffers diffs before the snapshot, drops stale ones, counts a gap', () => {
    const f = join(dir, 'spot.gz');
    writeFileSync(
      f,
      gzipSync(
        [
          depth(1000, 90, 99, [['10', '5']], []), // stale
          depth(1100, 100, 105, [['9', '2']], [['12', '0']]), // spans 101: applied after the snapshot
          line(1150, {
            lastUpdateId: 100,
            bids: [
              ['10', '1'],
              ['9', '1'],
            ],
            asks: [
              ['11', '1'],
              ['12', '3'],
            ],
          }),
          line(1200, { stream: 'x@trade', data: { e: 'trade', E: 1200, T: 1199, p: '11', q: '0.5', m: false } }),
          depth(1300, 106, 110, [['10', '0']], [['11', '4']]),
          depth(1400, 115, 120, [['8', '1']], []), // gap: 111..114 missing
        ].join('\n') + '\n',
      ),
    );
    const src = hftSource([f], { symbol: 'XUSDT', levels: 5 });
    const ev = all(src.events());
    expect(src.stats).toMatchObject({ diffsApplied: 3, diffsStale: 1, gaps: 1, trades: 1, crossed: 0 });
    const books = ev.filter((e): e is BookEvent => e.kind === 'book');
    expect(books[0]).toMatchObject({
      time: 1100,
      bids: [
        ['10', '1'],
        ['9', '2'],
      ],
      asks: [['11', '1']],
    });
    expect(books[1]).toMatchObject({ time: 1300, bids: [['9', '2']], asks: [['11', '4']] });
    expect(books[2]!.bids).toEqual([
      ['9', '2'],
      ['8', '1'],
    ]);
    expect(ev.find((e) => e.kind === 'trade')).toMatchObject({ time: 1199, isBuyOrder: true, symbol: 'XUSDT' });
  });

  it('futures: pu chaining, first diff must span lastUpdateId, only MARKET trades', () => {
    const f = join(dir, 'usdm.gz');
    writeFileSync(
      f,
      gzipSync(
        [
          line(990, { lastUpdateId: 50, E: 990, T: 990, bids: [['10', '1']], asks: [['11', '1']] }),
          depth(1000, 40, 49, [['10', '9']], [], 39), // stale
          depth(1010, 45, 55, [['10', '2']], [], 44), // U <= 50 <= u: first applied
          depth(1020, 56, 60, [['9.5', '1']], [], 55), // pu = previous u: fine
          depth(
            1030,
            61,
            62,
            [],
            [
              ['11', '0'],
              ['11.5', '2'],
            ],
            58,
          ), // pu != 60: gap
          line(1040, { stream: 'x@trade', data: { e: 'trade', E: 1040, T: 1040, p: '10', q: '1', m: true, X: 'MARKET' } }),
          line(1050, { stream: 'x@trade', data: { e: 'trade', E: 1050, T: 1050, p: '10', q: '1', m: true, X: 'INSURANCE_FUND' } }),
        ].join('\n'),
      ),
    );
    const src = hftSource([f]);
    const ev = all(src.events());
    expect(src.stats).toMatchObject({ diffsApplied: 3, diffsStale: 1, gaps: 1, trades: 1 });
    const last = ev.filter((e): e is BookEvent => e.kind === 'book').pop()!;
    expect(last.asks).toEqual([['11.5', '2']]);
    expect(ev.filter((e) => e.kind === 'trade')).toHaveLength(1);
  });

  it('names the file and line of a malformed line', () => {
    const f = join(dir, 'bad.gz');
    writeFileSync(f, gzipSync('123 {"lastUpdateId":1,"bids":[],"asks":[]}\nnot-a-line\n'));
    expect(() => all(hftSource([f]).events())).toThrow(`${f}, line 2`);
  });
});

describe('hftbacktest USD-M futures capture', () => {
  it('chains pu without gaps and never crosses', () => {
    const src = hftSource([join(DATA, 'hftbacktest/usdm/btcusdt_20240808.gz')]);
    const it = src.events();
    let books = 0;
    for (let r = it.next(); !r.done; r = it.next()) if (r.value.kind === 'book') books++;
    expect(src.stats.gaps).toBe(0);
    expect(src.stats.crossed).toBe(0);
    // one book after the snapshot for the diffs buffered before it, then one per diff
    expect(books).toBeLessThanOrEqual(src.stats.diffsApplied);
    expect(books).toBeGreaterThan(src.stats.diffsApplied - 5);
    expect(src.stats.diffsApplied + src.stats.diffsStale).toBe(6551);
    expect(src.stats.trades).toBeGreaterThan(0);
    expect(src.stats.trades).toBeLessThanOrEqual(21313);
  });
});
