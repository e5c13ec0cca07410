/** The walk's progress callback: every `progressEvery`-th candle, and once at the end. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBacktest } from '../../src/backtest/run.js';
import { parseConfig } from '../../src/config/load.js';
import { scripted, T0 } from './helpers.js';

/** 30 one-minute candles from T0, the run over all of them. */
function config() {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bt-progress-'));
  const file = join(dir, 'candles.csv');
  writeFileSync(file, ['time,open,high,low,close,volume', ...Array.from({ length: 30 }, (_, m) => `${T0 + m * 60},100,101,99,100,5`)].join('\n') + '\n');
  return parseConfig(
    `mode: backtest
strategies:
  - { name: s, strategy: sma-cross, markets: [BTCUSDT], resolution: "60s" }
backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(file)} } ]
  from: ${T0}
  to: ${T0 + 30 * 60}
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
`,
    { baseDir: dir },
  );
}

async function calls(progressEvery: number): Promise<number[]> {
  const done: number[] = [];
  await runBacktest(config(), {
    instances: [scripted({})],
    progressEvery,
    onProgress: (n, total) => {
      expect(total).toBe(30);
      done.push(n);
    },
  });
  return done;
}

describe('backtest progress', () => {
  it('reports every progressEvery-th candle, then the end', async () => {
    expect(await calls(7)).toEqual([7, 14, 21, 28, 30]);
    expect(await calls(10)).toEqual([10, 20, 30, 30]);
    expect(await calls(1)).toEqual([...Array.from({ length: 30 }, (_, i) => i + 1), 30]);
  });

  it('a progressEvery that is not a positive integer reports where the remainder is zero, as before', async () => {
    expect(await calls(2.5)).toEqual([5, 10, 15, 20, 25, 30, 30]);
    expect(await calls(-12)).toEqual([12, 24, 30]);
  });
});
