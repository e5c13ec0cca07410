/**
 * A book backtest on a recording holding a depth frame whose level price is not a number: the run
 * counts it and skips it (data report, and a warning naming the channel and the value) and goes on.
 * The exchange's side reads frames unparsed (src/backtest/book/venue-side.ts) and refuses this one
 * itself: nothing else parses the frame's values to Decimals any more.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import type { Logger, LogFn } from '../../../src/core/logger.js';
import { parseConfig } from '../../../src/config/load.js';
import { runBookBacktest } from '../../../src/backtest/book/run.js';
import type { RecordedLine } from '../../../src/record/format.js';
import { RecordingWriter } from '../../../src/record/writer.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 10, 28, 5, 0, 0);
const level = (price: string, quantity: string) => ({ price, quantity, sum: '0' });
const depth = (t: number, side: 'buy' | 'sell', levels: { price: string; quantity: string }[]): RecordedLine => ({ t, k: 'depth', src: 'ws', side, d: levels });
const trade = (t: number, price: string, quantity: string, isBuyOrder: boolean): RecordedLine => ({
  t,
  k: 'trade',
  src: 'ws',
  d: { isBuyOrder, quantity, price, timestamp: new Date(t).toISOString() },
});

/** Warnings logged, as `message err` lines. */
function capture(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const quiet: LogFn = () => {};
  const warn: LogFn = (a: object | string, msg?: string) => {
    warnings.push(typeof a === 'string' ? a : `${msg ?? ''} ${JSON.stringify(a)}`);
  };
  const logger: Logger = { trace: quiet, debug: quiet, info: quiet, warn, error: warn, fatal: warn, child: () => logger };
  return { logger, warnings };
}

it('a recorded frame with a price that is not a number is counted, named and skipped; the book keeps its side', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-book-bad-'));
  dirs.push(dir);
  const rec = join(dir, 'rec');
  const lines: RecordedLine[] = [
    { t: T0 + 100, k: 'snapshot', src: 'rest', d: { success: true, result: { bid: [level('100', '5')], ask: [level('101', '5')] } } },
  ];
  // A quote on both sides every second for a minute; at 20 s a bid frame whose second price is junk.
  for (let s = 1; s <= 60; s++) {
    const t = T0 + s * 1000;
    if (s === 20) lines.push(depth(t, 'buy', [level('100', '4'), level('not-a-price', '1')]));
    else lines.push(depth(t, 'buy', [level('100', '5'), level('99', '3')]));
    lines.push(depth(t + 1, 'sell', [level('101', '5'), level('102', '3')]));
    if (s % 5 === 0) lines.push(trade(t + 2, '100.5', '0.01', s % 10 === 0));
  }
  let now = T0;
  const w = await RecordingWriter.open(rec, ['BTCUSDT'], () => now);
  for (const l of lines) {
    now = l.t;
    w.write('BTCUSDT', l);
  }
  w.close();
  const file = join(dir, 'book.yaml');
  writeFileSync(
    file,
    [
      'mode: backtest',
      'strategies:',
      '  - { name: mm, strategy: market-maker, markets: [BTCUSDT], resolution: "1", params: { orderQuote: 20, minSpreadBps: 3, refreshMs: 2000 } }',
      'backtest:',
      `  data: [{ kind: book, dir: ${JSON.stringify(rec)} }]`,
      `  from: ${new Date(T0).toISOString()}`,
      `  to: ${new Date(T0 + 120_000).toISOString()}`,
      '  balances: { USDT: 1000 }',
      '',
    ].join('\n'),
  );
  const config = parseConfig(readFileSync(file, 'utf8'), { baseDir: dir });
  const { logger, warnings } = capture();
  const run = await runBookBacktest(config, { logger });
  expect(run.events).toBe(lines.length + 2); // and the recorder's open and close lines
  expect(run.result.data.problems).toContain('1 recorded frame(s) did not parse and were skipped (logged)');
  const bad = warnings.filter((w) => w.startsWith('recorded frame malformed: skipped'));
  expect(bad).toHaveLength(1);
  expect(bad[0]).toMatch(/BTCUSDT@buyDepth/);
  expect(bad[0]).toMatch(/depth\[1\]\.price/);
  expect(bad[0]).toMatch(/not-a-price/);
  // The run went on past the frame: the market maker quoted after it.
  expect(run.result.orders.some((o) => o.createdAt > T0 + 20_000)).toBe(true);
});
