/**
 * Late trades (issue 33.7): a trade whose candle period had closed when it arrived is left out of
 * the candles, counted per market, and logged at most once a minute per market, through the real
 * pino logger (src/runtime/logger.ts) writing to a stream read here. Before: one info line per
 * trade, market and resolution (2,019 lines in 5 s after dropped connections).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import type { PublicTrade } from '../../src/core/types/market.js';
import { MarketDataEngine } from '../../src/market/engine.js';
import { createLogger } from '../../src/runtime/logger.js';
import { statusLine } from '../../src/runtime/status.js';
import { FakeDepthSource, FakeStream, ManualTimers, depth } from './support/fakes.js';

const T0 = Date.UTC(2025, 5, 1, 9, 0, 0);

function logLines() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: createLogger({ pretty: false, destination: stream, level: 'info' }) };
}

const trade = (symbol: string, ms: number, price = '100'): PublicTrade => ({ symbol, price: d(price), quantity: d('1'), timestamp: ms, isBuyOrder: true });

describe('late trades', () => {
  it('are counted per market, left out of the candles, and logged once a minute per market', async () => {
    const clock = new ManualClock(T0);
    const timers = new ManualTimers(clock);
    const stream = new FakeStream();
    const source = new FakeDepthSource(true);
    for (const s of ['AAA', 'BBB']) source.books.set(s, depth(99, 101));
    const { lines, logger } = logLines();
    const engine = new MarketDataEngine({ stream, depth: source, clock, timers, logger, options: { candleResolutions: [60, 300] } });
    await engine.start(['AAA', 'BBB']);
    const late = () => lines.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('late trades left out of candles'));

    for (const s of ['AAA', 'BBB']) {
      stream.emit('trade', trade(s, T0 + 1_000));
      stream.emit('trade', trade(s, T0 + 61_000)); // closes the first minute
    }
    clock.advance(62_000 - (clock.now() - T0));
    // A burst after a reconnect: 500 trades per market from the closed minute (still open at 300 s).
    for (let i = 0; i < 500; i++) for (const s of ['AAA', 'BBB']) stream.emit('trade', trade(s, T0 + 30_000 + i, '250'));

    expect(engine.lateTradeCount('AAA')).toBe(500);
    expect(engine.lateTradeCount()).toBe(1000);
    expect(engine.lateTrades('AAA', 60)).toBe(500);
    expect(engine.lateTrades('AAA', 300)).toBe(0);
    // None in the closed 60 s candle; the open 300 s period takes them (it is not closed yet).
    expect(engine.candles('AAA', 60)[0]).toMatchObject({ tradeCount: 1 });
    expect(engine.candles('AAA', 60)[0]!.high.toString()).toBe('100');
    expect(engine.currentCandle('AAA', 300)!.tradeCount).toBe(502);

    // The first late trade of each market is logged at once; the other 499 only counted.
    expect(late().map((l) => [l.symbol, l.late])).toEqual([
      ['AAA', 1],
      ['BBB', 1],
    ]);
    expect(late()[0]).toMatchObject({ level: 30, total: 1, resolutions: [60] });

    // Within the minute: nothing more, however many ticks pass.
    await timers.advance(50_000);
    expect(late().length).toBe(2);
    // A minute after each market's line: one line per market with the count since.
    await timers.advance(10_500);
    expect(late().map((l) => [l.symbol, l.late, l.total])).toEqual([
      ['AAA', 1, 1],
      ['BBB', 1, 1],
      ['AAA', 499, 500],
      ['BBB', 499, 500],
    ]);
    expect(late()[2]!.msg).toBe('late trades left out of candles (their period had closed): 499 on AAA in the last 60 s');
    // Nothing late since: no line in the next minutes.
    await timers.advance(180_000);
    expect(late().length).toBe(4);
    // The only lines of the whole burst: no line per trade anywhere.
    expect(lines.length).toBeLessThan(20);

    const status = statusLine(
      {
        elapsedMs: 1,
        mode: 'live',
        reference: 'USDT',
        equity: d(1),
        startEquity: d(1),
        realized: d(0),
        unrealized: d(0),
        openOrders: 0,
        fills: 0,
        denials: 0,
        books: { healthy: 2, total: 2, unhealthy: [] },
        tradingState: 'active',
        lateTrades: engine.lateTradeCount(),
      },
      false,
    );
    expect(status).toContain('late trades 1000');
    engine.stop();
  });

  it('builds per market only the resolutions given for it', async () => {
    const clock = new ManualClock(T0);
    const timers = new ManualTimers(clock);
    const stream = new FakeStream();
    const source = new FakeDepthSource(true);
    for (const s of ['AAA', 'BBB']) source.books.set(s, depth(99, 101));
    const engine = new MarketDataEngine({
      stream,
      depth: source,
      clock,
      timers,
      options: { candleResolutions: [], marketCandles: { AAA: [60], BBB: [5, 900] } },
    });
    await engine.start(['AAA', 'BBB']);
    expect(engine.candleResolutions('AAA')).toEqual([60]);
    expect(engine.candleResolutions('BBB')).toEqual([5, 900]);
    expect(() => engine.candles('AAA', 900)).toThrow('no live candles of AAA at resolution 900s (built: 60)');
    expect(() => engine.candles('BBB', 60)).toThrow(RangeError);
    stream.emit('trade', trade('BBB', T0 + 1_000));
    stream.emit('trade', trade('BBB', T0 + 6_000));
    expect(engine.candles('BBB', 5).length).toBe(1);
    engine.stop();
  });
});
