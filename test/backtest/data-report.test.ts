/** The data report of a backtest: what is missing is reported before the first candle, never skipped. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BacktestDataError, runBacktest } from '../../src/backtest/run.js';
import type { DataReport } from '../../src/backtest/data.js';
import { parseConfig } from '../../src/config/load.js';
import { scripted, T0 } from './helpers.js';

/** One-minute candles at the given minute offsets from T0 (others missing), and a config over [from, to) minutes. */
function setup(minutes: number[], fromMin: number, toMin: number) {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bt-report-'));
  const file = join(dir, 'candles.csv');
  writeFileSync(file, ['time,open,high,low,close,volume', ...minutes.map((m) => `${T0 + m * 60},100,101,99,100,5`)].join('\n') + '\n');
  return parseConfig(
    `mode: backtest
strategies:
  - { name: s, strategy: sma-cross, markets: [BTCUSDT], resolution: "60s" }
backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(file)} } ]
  from: ${T0 + fromMin * 60}
  to: ${T0 + toMin * 60}
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
`,
    { baseDir: dir },
  );
}

describe('backtest data report', () => {
  it('reports a late start, a gap and an early end before the strategies see the first candle', async () => {
    // Range minutes 0..30; data from minute 3, minutes 10-14 missing, ends after minute 24.
    const minutes = Array.from({ length: 22 }, (_, i) => i + 3).filter((m) => m < 10 || m > 14);
    const events: string[] = [];
    let report: DataReport | undefined;
    const inst = scripted({ at: Object.fromEntries(Array.from({ length: 30 }, (_, k) => [k, () => void events.push(`candle ${k}`)])) });
    await runBacktest(setup(minutes, 0, 30), {
      instances: [inst],
      onDataReport: (r) => {
        report = r;
        events.push('report');
      },
    });
    expect(events[0]).toBe('report');
    expect(events).toContain('candle 3');
    expect(events).not.toContain('candle 10');
    expect(report!.ok).toBe(true);
    const s = report!.series[0]!;
    expect(s.missingStart).toEqual({ from: new Date(T0 * 1000).toISOString(), to: new Date((T0 + 180) * 1000).toISOString() });
    expect(s.missingEnd).toEqual({ from: new Date((T0 + 25 * 60) * 1000).toISOString(), to: new Date((T0 + 30 * 60) * 1000).toISOString() });
    expect(s.gaps).toEqual([{ from: new Date((T0 + 10 * 60) * 1000).toISOString(), to: new Date((T0 + 14 * 60) * 1000).toISOString(), missing: 5 }]);
    expect(s.missingBars).toBe(5);
    expect(report!.problems).toHaveLength(3);
    expect(report!.problems.join('\n')).toMatch(/the data starts later[\s\S]*the data ends earlier[\s\S]*1 gap\(s\), 5 missing candle\(s\)/);
  });

  it('stops before any candle when a market has no candle in the range', async () => {
    const events: string[] = [];
    const inst = scripted({ at: { 0: () => void events.push('candle') } });
    const run = runBacktest(setup([100, 101, 102], 0, 30), { instances: [inst] });
    await expect(run).rejects.toBeInstanceOf(BacktestDataError);
    await expect(run).rejects.toThrow(/BTCUSDT: no candle in the requested range/);
    expect(events).toEqual([]);
  });
});
