/**
 * Candle data a backtest refuses or reports, through `mizan backtest` in a child process.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import type { Candle } from '../../../src/core/types/market.js';
import { runSim, type RunningSim } from '../../../src/sim/run-sim.js';
import { T0 } from '../helpers.js';
import { runCli, tempDir, writeFile } from './run-cli.js';

function candles(dir: string, rows: string[], resSec = 60): string {
  return writeFile(dir, 'candles.csv', ['time,open,high,low,close,volume', ...rows.map((r, i) => `${T0 + i * resSec},${r}`)].join('\n') + '\n');
}

function configYaml(rows: number, resSec = 60, extra = ''): string {
  return `mode: backtest
strategies:
  - { name: s, strategy: sma-cross, markets: [BTCUSDT], resolution: "${resSec}s", params: { fast: 2, slow: 3 } }
backtest:
  data: [ { symbol: BTCUSDT, file: candles.csv } ]
  from: ${T0}
  to: ${T0 + rows * resSec}
  balances: { USDT: 10000 }
${extra}journal: { file: ":memory:" }
`;
}

describe('mizan backtest: candle rows that cannot be prices', () => {
  const rows = Array.from({ length: 10 }, () => '100,101,99,100,5');
  for (const [field, row] of [
    ['open', '0,0,0,0,5'],
    ['open', '-1,101,-2,100,5'],
    ['low', '100,101,-3,100,5'],
    ['close', '1,2,1,0,5'],
  ] as const) {
    it(`refuses a row with ${row} naming file, line and field ${field}`, async () => {
      const dir = tempDir();
      const bad = [...rows];
      bad[3] = row;
      candles(dir, bad);
      writeFile(dir, 'bt.yaml', configYaml(bad.length));
      const r = await runCli(['backtest', join(dir, 'bt.yaml')], { cwd: dir });
      expect(r.code).not.toBe(0);
      // Header is line 1, row index 3 is line 5.
      expect(r.stderr).toContain(`candles.csv, line 5, field ${field}`);
      expect(r.stderr).toMatch(/is not a positive price/);
      expect(r.stdout).not.toContain('equity');
    }, 60_000);
  }

  it('refuses high below low', async () => {
    const dir = tempDir();
    const bad = [...rows];
    bad[6] = '100,98,99,100,5';
    candles(dir, bad);
    writeFile(dir, 'bt.yaml', configYaml(bad.length));
    const r = await runCli(['backtest', join(dir, 'bt.yaml')], { cwd: dir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('candles.csv, line 8, field low');
  }, 60_000);
});

describe('mizan backtest: fetched candles get the same checks', () => {
  let running: RunningSim;
  beforeAll(async () => {
    running = await runSim({ port: 0, replay: false });
    const candles: Candle[] = [];
    for (let i = 0; i < 30; i++) {
      const o = new Decimal(i === 7 ? 0 : 60000 + i);
      candles.push({ time: T0 + i * 60, open: o, high: o.plus(5), low: i === 7 ? o : o.minus(5), close: o.plus(1), volume: new Decimal(2) });
    }
    running.sim.setCandles('BTCUSDT', candles, 60);
  });
  afterAll(async () => {
    await running.stop();
  });

  it('refuses a fetched candle with a zero price, naming the source, the row and the field', async () => {
    const dir = tempDir();
    writeFile(
      dir,
      'bt.yaml',
      `mode: backtest
exchange: { baseUrl: ${JSON.stringify(running.server.url)} }
strategies:
  - { name: s, strategy: sma-cross, markets: [BTCUSDT], resolution: "60s", params: { fast: 2, slow: 3 } }
backtest:
  data: [ { symbol: BTCUSDT, fetch: true } ]
  from: ${T0 + 300}
  to: ${T0 + 30 * 60}
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
`,
    );
    const r = await runCli(['backtest', join(dir, 'bt.yaml')], { cwd: dir });
    expect(r.code).not.toBe(0);
    // Warm-up of 3 candles: the fetch starts at candle 2, so candle 7 is row 6 (index 5).
    expect(r.stderr).toContain('/v1/udf/history BTCUSDT, row 6 (index 5), field open: open 0 is not a positive price');
  }, 60_000);
});
