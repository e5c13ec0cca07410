/**
 * A book backtest as a user runs it: `mizan record` (a child process) records the simulator's
 * replay of the bundled capture over HTTP and the WebSocket on 127.0.0.1, is killed, and records
 * again (a `killed` gap); `mizan backtest` (a child process) replays the recording through the
 * market-data engine with the market maker. The run trades, reports the gap, places no order while
 * the book was unhealthy, and two runs write byte-identical result.json files. The bundled
 * hftbacktest capture is backtested the same way (config/book-backtest.yaml).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { readGaps } from '../../src/record/reader.js';
import type { BacktestResult } from '../../src/backtest/result.js';
import { mizan, recordYaml, REPO, startRun, tempDir } from './cli.js';

const tmp = tempDir('mizan-book-bt-');
let sim: RunningSim;
beforeAll(async () => {
  sim = await runSim({ port: 0 });
});
afterAll(async () => {
  await sim.stop();
  tmp.remove();
});

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('mizan backtest on a recording (backtest.data kind: book)', { timeout: 300_000 }, () => {
  it('replays a recording with a killed gap: trades, reports the gap, no order while unhealthy, the same result twice', async () => {
    const recConfig = tmp.file('record.yaml', recordYaml(sim.server.url, { strategy: 'market-maker' }));
    const rec = join(tmp.dir, 'rec');
    // A first session killed after some seconds of events, a second one that ends by itself.
    const first = startRun(['record', recConfig, '--out', rec]);
    try {
      await first.waitFor(/record: progress/, 120_000);
      await first.waitFor(/record: progress/, 60_000, first.output().length);
    } finally {
      first.kill();
    }
    await first.exited;
    const second = await mizan(['record', recConfig, '--out', rec, '--duration', '12s'], { timeoutMs: 120_000 });
    expect(second.code, second.all).toBe(0);
    const gaps = await readGaps(rec);
    expect(gaps.map((g) => g.cause)).toEqual(['killed']);

    const btConfig = tmp.file(
      'book.yaml',
      [
        'mode: backtest',
        'strategies:',
        '  - name: mm',
        '    strategy: market-maker',
        '    markets: [BTCUSDT]',
        "    resolution: '1'",
        '    params: { orderQuote: 200, minSpreadBps: 3, requoteBps: 1, maxInventoryQuote: 2000, refreshMs: 2000 }',
        'backtest:',
        `  data: [{ kind: book, dir: ${JSON.stringify(rec)} }]`,
        `  from: ${day(-1)}`,
        `  to: ${day(2)}`,
        '  balances: { USDT: 10000 }',
        '  book: { entryLatencyMs: 40, cancelLatencyMs: 40 }',
        '',
      ].join('\n'),
    );
    const out1 = join(tmp.dir, 'out1');
    const out2 = join(tmp.dir, 'out2');
    const r1 = await mizan(['backtest', btConfig, '--out', out1], { timeoutMs: 120_000 });
    expect(r1.code, r1.all).toBe(0);
    expect(r1.stdout).toMatch(/^events \d+, orders [1-9]\d* \(\d+ \w+(, \d+ \w+)*\), trades \d+/m);
    expect(r1.stdout).toMatch(/data: BTCUSDT: gap .* \(killed\): no data/);
    const r2 = await mizan(['backtest', btConfig, '--out', out2], { timeoutMs: 120_000 });
    expect(r2.code, r2.all).toBe(0);
    expect(sha(join(out2, 'result.json'))).toBe(sha(join(out1, 'result.json')));
    expect(existsSync(join(out1, 'report.html'))).toBe(true);

    const result = JSON.parse(readFileSync(join(out1, 'result.json'), 'utf8')) as BacktestResult;
    expect(result.run.fillModel.book).toEqual({ queueModel: 'risk-averse', queuePower: 1, entryLatencyMs: 40, cancelLatencyMs: 40 });
    expect(result.orders.length).toBeGreaterThan(0);
    // The market maker pulls its quotes when the book turns unhealthy: none is placed inside the gap.
    const [gap] = gaps;
    expect(result.orders.filter((o) => o.createdAt > gap!.start && o.createdAt < gap!.end)).toEqual([]);
    // Orders both before and after the gap: the run went on after the book was whole again.
    expect(result.orders.some((o) => o.createdAt <= gap!.start)).toBe(true);
    expect(result.orders.some((o) => o.createdAt >= gap!.end)).toBe(true);
  });

  it('the bundled hftbacktest capture (config/book-backtest.yaml): trades through the engine, the same result.json twice', async () => {
    const outs = [join(tmp.dir, 'hft1'), join(tmp.dir, 'hft2')];
    for (const out of outs) {
      const r = await mizan(['backtest', join(REPO, 'config/book-backtest.yaml'), '--out', out], { timeoutMs: 120_000 });
      expect(r.code, r.all).toBe(0);
      expect(r.stdout).toMatch(/^events \d{5,}, orders [1-9]\d* \(\d+ \w+(, \d+ \w+)*\), trades \d+/m);
      expect(r.stdout).toMatch(/^book fills [1-9]\d* \(maker \d+, taker \d+\)$/m);
      expect(r.stdout).toMatch(/^ {2}BTCUSDT: \d+ of \d+ orders filled/m);
      expect(r.stdout).toMatch(/data note: hftbacktest capture .*spot \(2 file\(s\)\): \d+ events of BTCUSDT replayed/);
    }
    expect(sha(join(outs[1]!, 'result.json'))).toBe(sha(join(outs[0]!, 'result.json')));
  });
});
