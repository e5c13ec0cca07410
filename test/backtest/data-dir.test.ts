/** `mizan backtest --data <dir>`: the config's relative data paths are read from that directory. */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerBacktestCommands } from '../../src/cli/backtest.js';
import { REPO } from './helpers.js';

const CONFIG = resolve(REPO, 'config/backtest.yaml');
const DATA = 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz';

interface Report {
  data: { series: { source: string; candles: number; missingEnd?: { from: string } }[] };
}

/** Runs the CLI's backtest command from `cwd`; the parsed result.json. */
async function backtest(cwd: string, args: string[]): Promise<Report> {
  const out = mkdtempSync(join(tmpdir(), 'mizan-bt-data-'));
  const program = new Command().exitOverride();
  registerBacktestCommands(program);
  const prev = process.cwd();
  const write = process.stdout.write.bind(process.stdout);
  const errWrite = process.stderr.write.bind(process.stderr);
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  process.chdir(cwd);
  try {
    await program.parseAsync(['node', 'mizan', 'backtest', CONFIG, '--out', out, ...args]);
  } finally {
    process.chdir(prev);
    process.stdout.write = write;
    process.stderr.write = errWrite;
  }
  return JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Report;
}

describe('backtest --data', () => {
  it('reads relative data paths from the given directory, and names them as the config wrote them', async () => {
    // From the repository: the bundled file, named as written (no checkout path in the result).
    const full = await backtest(REPO, []);
    expect(full.data.series[0]!.source).toBe(DATA);
    const all = full.data.series[0]!.candles;
    expect(all).toBeGreaterThan(10_000);

    // Another directory holding a shorter copy at the same relative path: --data reads that one.
    const dir = mkdtempSync(join(tmpdir(), 'mizan-data-dir-'));
    mkdirSync(join(dir, 'backtest/data'), { recursive: true });
    const lines = gunzipSync(readFileSync(join(REPO, DATA)))
      .toString('utf8')
      .trimEnd()
      .split('\n');
    writeFileSync(join(dir, DATA), lines.slice(0, 5_001).join('\n') + '\n');
    const cut = await backtest(dir, ['--data', dir]);
    expect(cut.data.series[0]!.source).toBe(join(dir, DATA));
    expect(cut.data.series[0]!.candles).toBeLessThan(5_000);
    expect(cut.data.series[0]!.missingEnd).toBeDefined();
  }, 60_000);

  it('names the file it could not read under --data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mizan-data-none-'));
    await expect(backtest(REPO, ['--data', dir])).rejects.toThrow(join(dir, DATA));
  }, 60_000);
});
