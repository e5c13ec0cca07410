/**
 * `mizan analyze warmup` as a user runs it (child process, the bundled real BTC/USDT 5-minute data):
 * a strategy whose declared warm-up covers its indicator decides the same with 2× and 4× the history
 * (exit 0); one whose EMA is longer than its declared warm-up decides differently with more history:
 * the first differing decision and the likely cause are printed, exit code 1.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatWarmupAnalysis, warmupPlans } from '../../../src/backtest/warmup-analysis.js';
import { REPO } from '../helpers.js';
import { runCli, tempDir, writeFile } from './run-cli.js';

const DATA = join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz');

/** An EMA(60) trend follower that declares only 5 candles of warm-up (`warmup` given as a param to vary it). */
const EMA_STRATEGY = `import { defineStrategy, Ema, fraction, market, qty } from 'mizan';

export default defineStrategy({
  name: 'ema-trend',
  description: 'Buys when the close rises above its EMA, sells when it falls below.',
  params: {
    period: { type: 'int', default: 60, min: 2, max: 500 },
    warmup: { type: 'int', default: 5, min: 0, max: 5000 },
  },
  warmup: (p) => p.warmup,
  create(ctx) {
    const ema = new Ema(ctx.params.period);
    let above: boolean | undefined;
    return {
      onCandle(symbol, bar) {
        const e = ema.update(bar.c);
        if (Number.isNaN(e)) return;
        const now = bar.c > e;
        const was = above;
        above = now;
        if (was === undefined || was === now) return;
        const held = ctx.position(symbol)?.quantity;
        if (now && (!held || held.isZero())) return market('BUY', symbol, fraction(0.5));
        if (!now && held?.gt(0)) return market('SELL', symbol, qty(held));
      },
    };
  },
});
`;

function config(dir: string, strategies: string): string {
  return writeFile(
    dir,
    'warmup.yaml',
    `mode: backtest
strategies:
${strategies}
backtest:
  data: [ { symbol: BTCUSDT, file: ${DATA} } ]
  from: 2023-01-06
  to: 2023-01-09
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
logging: { level: warn }
`,
  );
}

describe('mizan analyze warmup', { timeout: 180_000 }, () => {
  it('a FAIL report never says the warm-up may be more than needed (the half run unchanged beside a ×2 that changed)', () => {
    const run = (label: string, n: number, longer: boolean) => ({ label, warmup: { lie: n }, available: { BTCUSDT: n }, decisions: [], longer });
    const d = { strategy: 'lie', time: Date.UTC(2023, 0, 3), kind: 'order', symbol: 'BTCUSDT', side: 'BUY', type: 'MARKET' };
    const report = (changedX2: number) =>
      formatWarmupAnalysis({
        declared: run('declared', 10, false),
        comparisons: [
          {
            run: run('×2', 20, true),
            changed: changedX2,
            strategies: changedX2 ? ['lie'] : [],
            sameHistory: false,
            ...(changedX2 ? { first: { declared: d, other: d } } : {}),
          },
          { run: run('half', 5, false), changed: 0, strategies: [], sameHistory: false },
        ],
        ok: changedX2 === 0,
      });
    expect(report(2)).toContain('FAIL: decisions change with more history than declared');
    expect(report(2)).not.toContain('may be more than the strategy needs');
    expect(report(0)).toContain('note: half: no decision changed with less history either: the declared warm-up may be more than the strategy needs');
  });

  it('plans the declared, ×2, ×4, +extra and half runs, each warm-up once', () => {
    expect(warmupPlans({ a: 30, b: 10 }, undefined).map((p) => [p.label, p.warmup, p.longer])).toEqual([
      ['declared', { a: 30, b: 10 }, false],
      ['×2', { a: 60, b: 20 }, true],
      ['×4', { a: 120, b: 40 }, true],
      ['half', { a: 15, b: 5 }, false],
    ]);
    expect(warmupPlans({ a: 30 }, 50).map((p) => p.label)).toEqual(['declared', '×2', '×4', '+50', 'half']);
    // No warm-up declared: ×2 and ×4 are the same run; 100 more candles are tried instead.
    expect(warmupPlans({ a: 0 }, undefined).map((p) => [p.label, p.warmup])).toEqual([
      ['declared', { a: 0 }],
      ['+100', { a: 100 }],
    ]);
  });

  it('reports no change for sma-cross, whose warm-up covers its slow SMA (exit 0)', async () => {
    const dir = tempDir();
    const file = config(dir, `  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "300s", params: { fast: 10, slow: 30, fraction: 0.5 } }`);
    const r = await runCli(['analyze', 'warmup', file], { cwd: dir, timeoutMs: 170_000 });
    expect(r.stderr).toContain('warm-up run 1/4: declared');
    expect(r.stdout).toContain('declared warm-up: sma 30 candle(s)');
    expect(r.stdout).toMatch(/^×2\s+60\s+BTCUSDT 60\s+\d+\s+0$/m);
    expect(r.stdout).toMatch(/^×4\s+120\s+BTCUSDT 120\s+\d+\s+0$/m);
    expect(r.stdout).toContain('ok: no decision changed with more history than declared');
    expect(r.code).toBe(0);
  });

  it('reports the first changed decision of an EMA(60) declared with 5 candles of warm-up (exit 1), and none once it declares 300', async () => {
    const dir = tempDir();
    writeFile(dir, 'ema-trend.ts', EMA_STRATEGY);
    const short = config(dir, `  - { name: ema, strategy: ./ema-trend.ts, markets: [BTCUSDT], resolution: "300s" }`);
    const r = await runCli(['analyze', 'warmup', short, '--extra', '200'], { cwd: dir, timeoutMs: 170_000 });
    expect(r.stdout).toContain('declared warm-up: ema 5 candle(s)');
    expect(r.stdout).toMatch(/^\+200\s+205\s+BTCUSDT 205\s+\d+\s+[1-9]\d*$/m);
    expect(r.stdout).toMatch(
      /\+200: [1-9]\d* decision\(s\) differ from the declared run \(ema\); the first:\n {2}declared: 2023-01-0\d \d\d:\d\d UTC ema BUY MARKET BTCUSDT\n {2}\+200 {4}: 2023-01-0\d \d\d:\d\d UTC ema BUY MARKET BTCUSDT/,
    );
    expect(r.stdout).toContain('likely cause: an indicator of ema needs more than its declared 5 candle(s) of warm-up');
    expect(r.stdout).toContain('FAIL: decisions change with more history than declared');
    // Never beside a FAIL: "the declared warm-up may be more than the strategy needs" (audit8).
    expect(r.stdout).not.toContain('may be more than the strategy needs');
    expect(r.code).toBe(1);

    // The same strategy declaring 300 candles (5× its period): more history changes nothing.
    const long = config(dir, `  - { name: ema, strategy: ./ema-trend.ts, markets: [BTCUSDT], resolution: "300s", params: { warmup: 300 } }`);
    const ok = await runCli(['analyze', 'warmup', long], { cwd: dir, timeoutMs: 170_000 });
    expect(ok.stdout).toContain('ok: no decision changed with more history than declared');
    expect(ok.code).toBe(0);
  });

  it('refuses a bad --extra naming it', async () => {
    const dir = tempDir();
    const file = config(dir, `  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "300s" }`);
    const r = await runCli(['analyze', 'warmup', file, '--extra', 'lots'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--extra "lots": expected a whole number of candles above 0');
  });
});
