/**
 * Issue 36: a recording cut by a dropped connection and by rotations, then backtested, as a user
 * runs both. The simulator (real HTTP and WebSocket on 127.0.0.1) cuts every stream connection 10 s
 * after it opened, as the exchange does after 30 minutes; `mizan record --rotate-after 3s` (a child
 * process) replaces its connection make-before-break well before that, and the simulator's fault
 * route (`POST /__sim/faults {"dropConnections": true}`) drops every stream connection once.
 *  - the recording: one `reconnect` gap (from the drop to the reconnect), a REST depth snapshot after
 *    it, and no gap at the rotations (the simulator never had to cut a connection);
 *  - `mizan backtest` of it (kind book, a child process): the summary and result.json report the gap
 *    and the stretches the book was unhealthy; a probe strategy never got a book that claimed to be
 *    healthy from the drop until both sides were fresh again;
 *  - two markets on two connections (maxChannelsPerConnection 4): the gap lasts until both
 *    connections are back, and the snapshots are taken after that.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { readGaps, readRecording } from '../../src/record/reader.js';
import type { RecordedEvent } from '../../src/record/format.js';
import type { BacktestResult } from '../../src/backtest/result.js';
import { mizan, recordYaml, REPO, startRun, tempDir } from './cli.js';

const tmp = tempDir('mizan-record-drop-');
let sim: RunningSim;
beforeAll(async () => {
  // The exchange's 30-minute cut, shortened: every connection is cut 10 s after it opened.
  sim = await runSim({ port: 0, stream: { lifetime: { cutAfterMs: 10_000, extendMs: 0, maxExtensions: 0 } } });
});
afterAll(async () => {
  await sim.stop();
  tmp.remove();
});

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const ROTATED = /"replaced":true[^\n]*"msg":"stream connection rotated"/;

async function events(dir: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const ev of readRecording(dir)) out.push(ev);
  return out;
}

interface ProbeLine {
  k: 'book' | 'health';
  t: number;
  healthy: boolean;
  reasons: string[];
}

/** A strategy that writes down every book and health change it is given, with what the view says. */
function probeStrategy(out: string): string {
  return `import { appendFileSync } from 'node:fs';
import { defineStrategy } from 'mizan';

const OUT = ${JSON.stringify(out)};
export default defineStrategy({
  name: 'book-probe',
  description: 'test: notes each book and book health it is given',
  params: {},
  create(ctx) {
    const note = (o: object) => appendFileSync(OUT, JSON.stringify(o) + '\\n');
    return {
      onBook(_symbol, book) {
        const h = book.health();
        note({ k: 'book', t: ctx.now(), healthy: h.healthy, reasons: h.reasons });
      },
      onBookHealth(_symbol, h) {
        note({ k: 'health', t: ctx.now(), healthy: h.healthy, reasons: h.reasons });
      },
    };
  },
});
`;
}

describe('a recording cut by a dropped connection and rotations (issue 36)', { timeout: 300_000 }, () => {
  it('records a reconnect gap and a snapshot after it, no gap at rotations; the backtest reports the gap and shows no stale book', async () => {
    const recConfig = tmp.file('record.yaml', recordYaml(sim.server.url));
    const rec = join(tmp.dir, 'rec');
    const recorder = startRun(['record', recConfig, '--out', rec, '--rotate-after', '3s']);
    let dropAt = 0;
    let droppedBy = 0;
    try {
      await recorder.waitFor(/record: progress/, 120_000);
      // Right after a rotation, so the drop does not meet the next one (a replacement already up
      // when the old connection drops takes over: that would leave no gap, rightly).
      await recorder.waitFor(ROTATED, 60_000, recorder.output().length);
      const mark = recorder.output().length;
      dropAt = Date.now();
      const res = await fetch(`${sim.server.url}/__sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ dropConnections: true }),
      });
      droppedBy = Date.now();
      expect(res.status).toBe(200);
      await recorder.waitFor(/record: stream connection down/, 60_000, mark);
      await recorder.waitFor(/"reconnect":true[^\n]*"msg":"stream connection up"/, 60_000, mark);
      // A rotation after the reconnect too, then a few more seconds of data.
      const back = recorder.output().length;
      await recorder.waitFor(ROTATED, 60_000, back);
      await recorder.waitFor(/record: progress/, 60_000, recorder.output().length);
    } finally {
      recorder.interrupt();
    }
    const r = await recorder.exited;
    expect(r.code, r.all).toBe(0);
    expect(r.all.match(new RegExp(ROTATED, 'g'))!.length).toBeGreaterThanOrEqual(2);
    // Every rotation came before the simulator's cut: it never had to cut a connection.
    expect(sim.server.streamStats().lifetimeCuts).toBe(0);

    // The recording: the drop is one reconnect gap; the rotations left none.
    const gaps = await readGaps(rec);
    expect(gaps).toHaveLength(1);
    const gap = gaps[0]!;
    expect(gap).toMatchObject({ market: 'BTCUSDT', cause: 'reconnect' });
    expect(gap.start).toBeGreaterThanOrEqual(dropAt);
    expect(gap.start).toBeLessThanOrEqual(droppedBy + 5_000);
    expect(gap.end).toBeGreaterThanOrEqual(gap.start);
    const evs = await events(rec);
    expect(evs.filter((e) => e.t > gap.start && e.t < gap.end)).toEqual([]);
    const snapshots = evs.filter((e) => e.k === 'snapshot');
    expect(snapshots).toHaveLength(2); // at the start and after the reconnect
    expect(snapshots[1]!.t).toBeGreaterThanOrEqual(gap.end);
    const gapLine = evs.findIndex((e) => e.k === 'gap');
    expect(evs[gapLine]).toMatchObject({ t: gap.end, start: gap.start, end: gap.end, cause: 'reconnect' });
    expect(evs.slice(gapLine).some((e) => e.k === 'depth')).toBe(true);

    // The backtest of it, with the probe.
    const probeOut = join(tmp.dir, 'probe.jsonl');
    const probe = tmp.file('probe.ts', probeStrategy(probeOut));
    const btConfig = tmp.file(
      'book.yaml',
      [
        'mode: backtest',
        'strategies:',
        `  - { name: probe, strategy: ${JSON.stringify(probe)}, markets: [BTCUSDT], resolution: '1' }`,
        'backtest:',
        `  data: [{ kind: book, dir: ${JSON.stringify(rec)} }]`,
        `  from: ${day(-1)}`,
        `  to: ${day(2)}`,
        '  balances: { USDT: 10000 }',
        '',
      ].join('\n'),
    );
    const out = join(tmp.dir, 'bt');
    const bt = await mizan(['backtest', btConfig, '--out', out], { timeoutMs: 180_000 });
    expect(bt.code, bt.all).toBe(0);
    expect(bt.stdout).toMatch(/data: BTCUSDT: gap .* \(reconnect\): no data/);
    expect(bt.stdout).toMatch(/^ {2}BTCUSDT: book unhealthy \d+ time\(s\), [\d.]+ s in all, \d+ depth frame\(s\) left it so$/m);
    const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as BacktestResult;
    const unhealthy = result.book!.unhealthy.BTCUSDT!;
    // Unhealthy from the start until the first snapshot, and from the drop until the book was whole
    // again: both sides replaced by frames after the reconnect, or the snapshot taken after it.
    expect(unhealthy.list[0]).toMatchObject({ from: evs[0]!.t, to: snapshots[0]!.t, reasons: ['initializing'] });
    const stretch = unhealthy.list.find((u) => u.reasons.includes('stream_down'))!;
    expect(stretch.from).toBe(gap.start);
    expect(stretch.to).toBeGreaterThanOrEqual(gap.end);
    const firstAfter = (side: 'buy' | 'sell') => evs.find((e) => e.k === 'depth' && e.side === side && e.t >= gap.end)!.t;
    expect(stretch.to).toBeLessThanOrEqual(Math.min(snapshots[1]!.t, Math.max(firstAfter('buy'), firstAfter('sell'))));
    expect(unhealthy.stretches).toBe(unhealthy.list.length);
    expect(unhealthy.totalMs).toBe(unhealthy.list.reduce((a, u) => a + u.to - u.from, 0));

    // What the probe strategy was given: told at the drop, told when whole again, and no book that
    // claimed to be healthy in between (nothing at all while the connection was down).
    const seen = readFileSync(probeOut, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ProbeLine);
    const health = seen.filter((s) => s.k === 'health');
    const down = health.findIndex((h) => h.t === gap.start && !h.healthy);
    expect(health[down]!.reasons).toContain('stream_down');
    expect(health[down + 1]).toMatchObject({ t: stretch.to, healthy: true });
    const books = seen.filter((s) => s.k === 'book');
    expect(books.filter((b) => b.t > gap.start && b.t < gap.end)).toEqual([]);
    for (const u of unhealthy.list) expect(books.filter((b) => b.t > u.from && b.t < u.to && b.healthy)).toEqual([]);
    expect(books.some((b) => b.t >= stretch.to && b.healthy)).toBe(true);
  });

  it('two markets on two connections: the gap lasts until both are back, the snapshots come after', async () => {
    // Four channels a market, four a connection: BTCUSDT and ETHUSDT on a connection each.
    const recConfig = tmp.file('record2.yaml', recordYaml(sim.server.url, { markets: ['BTCUSDT', 'ETHUSDT'], stream: 'maxChannelsPerConnection: 4' }));
    const rec = join(tmp.dir, 'rec2');
    const recorder = startRun(['record', recConfig, '--out', rec]);
    const UP_AGAIN = /"reconnect":true,"msg":"stream connection up"/;
    try {
      await recorder.waitFor(/"conn":1,"channels":4,"reconnect":false,"msg":"stream connection up"/, 120_000);
      await recorder.waitFor(/record: progress/, 60_000);
      const mark = recorder.output().length;
      const res = await fetch(`${sim.server.url}/__sim/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ dropConnections: true }),
      });
      expect(res.status).toBe(200);
      await recorder.waitFor(/"conn":0,"channels":4,"reconnect":true,"msg":"stream connection up"/, 60_000, mark);
      await recorder.waitFor(/"conn":1,"channels":4,"reconnect":true,"msg":"stream connection up"/, 60_000, mark);
      await recorder.waitFor(/record: progress/, 60_000, recorder.output().length);
    } finally {
      recorder.interrupt();
    }
    const r = await recorder.exited;
    expect(r.code, r.all).toBe(0);
    // When each connection was back (pino's time of its log line).
    const ups = r.all
      .split('\n')
      .filter((l) => UP_AGAIN.test(l))
      .map((l) => (JSON.parse(l) as { time: number }).time);
    expect(ups).toHaveLength(2);
    const gaps = await readGaps(rec);
    expect(gaps.map((g) => [g.market, g.cause])).toEqual([
      ['BTCUSDT', 'reconnect'],
      ['ETHUSDT', 'reconnect'],
    ]);
    for (const g of gaps) expect(g.end).toBeGreaterThanOrEqual(Math.max(...ups));
    const evs = await events(rec);
    for (const m of ['BTCUSDT', 'ETHUSDT']) {
      const snaps = evs.filter((e) => e.market === m && e.k === 'snapshot');
      expect(snaps).toHaveLength(2);
      expect(snaps[1]!.t).toBeGreaterThanOrEqual(Math.max(...ups));
    }
  });

  it('--rotate-after refuses a duration that is not positive, naming the flag and the value', async () => {
    const r = await mizan(['record', join(REPO, 'config/default.yaml'), '--out', join(tmp.dir, 'never'), '--rotate-after', '0s']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--rotate-after: "0s" is not a positive duration');
    expect(existsSync(join(tmp.dir, 'never'))).toBe(false);
  });
});
