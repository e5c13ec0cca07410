/**
 * A looping replay runs an hftbacktest capture again every pass (~12 minutes for the bundled one in
 * `npm start`'s paper bot). Each pass used to read and gunzip every file anew (an 11-15 MB buffer
 * and a string as large per file), and the bot's memory outside the JS heap grew with every pass
 * (issue #33 item 6, bench/soak.ts). A source reads each file once: later passes replay the same
 * events without touching the file (here it is overwritten after the first pass to prove it).
 */
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { hftSource, type ReplayEvent } from '../../../src/sim/replay/index.js';
import { DATA } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-hft-once-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function all(it: Iterator<ReplayEvent>): ReplayEvent[] {
  const out: ReplayEvent[] = [];
  for (let r = it.next(); !r.done; r = it.next()) out.push(r.value);
  return out;
}

describe('hftSource reads each capture file once', () => {
  it('a second pass replays the same events after the file on disk changed', () => {
    const file = join(dir, 'btcusdt_20240808.gz');
    copyFileSync(join(DATA, 'hftbacktest/spot/btcusdt_20240808.gz'), file);
    const src = hftSource([file], { levels: 5 });
    const first = all(src.events());
    const stats = { ...src.stats };
    expect(first.length).toBeGreaterThan(10_000);
    writeFileSync(file, gzipSync('this is no capture\n'));
    const second = all(src.events());
    expect(second).toEqual(first);
    expect(src.stats).toEqual(stats);
  });

  it('a new source reads the file as it is now (nothing is shared between sources)', () => {
    const file = join(dir, 'changed.gz');
    copyFileSync(join(DATA, 'hftbacktest/spot/btcusdt_20240808.gz'), file);
    expect(all(hftSource([file], { levels: 5 }).events()).length).toBeGreaterThan(10_000);
    writeFileSync(file, gzipSync('this is no capture\n'));
    expect(() => all(hftSource([file], { levels: 5 }).events())).toThrow(/changed\.gz/);
  });
});
