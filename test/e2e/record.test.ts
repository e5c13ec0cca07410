/**
 * `mizan record` as a user runs it: a child process against the simulator (replaying the bundled
 * capture) over HTTP and the WebSocket on 127.0.0.1; chunk files, the snapshot at start, events in
 * order; SIGKILL and a restart append to the chunk and leave a `killed` gap; Ctrl-C writes `close`.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { readGaps, readRecording } from '../../src/record/reader.js';
import type { RecordedEvent } from '../../src/record/format.js';
import { mizan, recordYaml, startRun, tempDir } from './cli.js';

const tmp = tempDir('mizan-record-');
let sim: RunningSim;
beforeAll(async () => {
  sim = await runSim({ port: 0 });
});
afterAll(async () => {
  await sim.stop();
  tmp.remove();
});

async function events(dir: string): Promise<RecordedEvent[]> {
  const out: RecordedEvent[] = [];
  for await (const ev of readRecording(dir)) out.push(ev);
  return out;
}

describe('mizan record', { timeout: 240_000 }, () => {
  it('records, survives SIGKILL by appending with a killed gap, and closes on Ctrl-C', async () => {
    const config = tmp.file('record.yaml', recordYaml(sim.server.url));
    const out = join(tmp.dir, 'rec');
    const first = startRun(['record', config, '--out', out]);
    try {
      await first.waitFor(/record: progress/, 120_000);
    } finally {
      first.kill();
    }
    await first.exited;
    const files = readdirSync(join(out, 'BTCUSDT'));
    expect(files.every((f) => /^\d{4}-\d{2}-\d{2}T\d{2}\.jsonl\.gz$/.test(f))).toBe(true);
    const chunk = join(out, 'BTCUSDT', files.sort().at(-1)!);
    const before = readFileSync(chunk);
    const evs1 = await events(out);
    expect(evs1[0]!.k).toBe('open');
    expect(evs1[1]!.k).toBe('snapshot');
    expect(evs1.some((e) => e.k === 'depth' && e.side === 'buy')).toBe(true);
    expect(evs1.some((e) => e.k === 'depth' && e.side === 'sell')).toBe(true);
    expect(evs1.at(-1)!.k).not.toBe('close');

    const second = startRun(['record', config, '--out', out]);
    await second.waitFor(/record: progress/, 120_000);
    second.interrupt();
    const r = await second.exited;
    expect(r.code).toBe(0);
    const after = readFileSync(
      readdirSync(join(out, 'BTCUSDT'))
        .sort()
        .map((f) => join(out, 'BTCUSDT', f))
        .find((f) => f === chunk)!,
    );
    expect(after.subarray(0, before.length).equals(before)).toBe(true); // appended, not rewritten
    const evs = await events(out);
    for (let i = 1; i < evs.length; i++) expect(evs[i]!.t).toBeGreaterThanOrEqual(evs[i - 1]!.t);
    expect(evs.at(-1)!.k).toBe('close');
    const gaps = await readGaps(out);
    expect(gaps).toHaveLength(1);
    expect(gaps[0]).toMatchObject({ market: 'BTCUSDT', cause: 'killed', start: evs1.at(-1)!.t });
    const i = evs.findIndex((e) => e.k === 'gap');
    expect(evs.slice(i, i + 3).map((e) => e.k)).toEqual(['gap', 'open', 'snapshot']);
  });

  it('with exchange.simulator: true records the embedded simulator, as mizan run would trade it', async () => {
    const config = tmp.file(
      'record-sim.yaml',
      [
        'mode: paper',
        'exchange: { simulator: true, stream: { transport: ws } }',
        'strategies:',
        '  - { name: s, strategy: sma-cross, markets: [ETHUSDT] }',
        '',
      ].join('\n'),
    );
    const out = join(tmp.dir, 'rec-sim');
    const r = await mizan(['record', config, '--out', out, '--duration', '6s'], { timeoutMs: 120_000 });
    expect(r.code, r.all).toBe(0);
    expect(r.all).toMatch(/recording the embedded simulator \(exchange\.simulator: true\), not the exchange/);
    expect(r.all).toMatch(/"url":"http:\/\/127\.0\.0\.1:\d+"/);
    const evs = await events(out);
    expect(evs.filter((e) => e.k === 'snapshot')).toHaveLength(1);
    expect(evs.some((e) => e.k === 'depth' && e.market === 'ETHUSDT')).toBe(true);
    expect(evs.at(-1)!.k).toBe('close');
  });
});
