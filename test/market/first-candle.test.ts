/**
 * The first live candle of a series whose market data started mid-period (src/market/first-candle.ts):
 * it is taken from the exchange's candle history when the period closes, not built from the few
 * trades since the start; the later candles wait behind it; a history that does not serve it leaves
 * the candle from the trades, with a warning. Before, a strategy acted on a candle of 4 s of trades
 * as on a whole minute.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import type { Candle, PublicTrade } from '../../src/core/types/market.js';
import { MarketDataEngine } from '../../src/market/engine.js';
import type { CandleHistory } from '../../src/market/first-candle.js';
import { FakeDepthSource, FakeStream, ManualTimers, depth } from './support/fakes.js';
import { captureLogger } from '../exchange/stream/capture-logger.js';

const T0 = Date.UTC(2025, 5, 1, 9, 0, 0);
const S0 = T0 / 1000;

async function setup(startAtMs: number, history?: CandleHistory, resolutions = [60]) {
  const clock = new ManualClock(startAtMs);
  const timers = new ManualTimers(clock);
  const stream = new FakeStream();
  const source = new FakeDepthSource(true);
  source.books.set('X', depth(10, 11));
  const logger = captureLogger();
  const lines = () => logger.entries.map((e) => `${e.level} ${e.msg ?? ''}`);
  const engine = new MarketDataEngine({
    stream,
    depth: source,
    clock,
    timers,
    logger,
    options: { candleResolutions: resolutions },
    ...(history ? { history } : {}),
  });
  await engine.start(['X']);
  const got: string[] = [];
  engine.on('candleClosed', (_s, res, c) => got.push(`${res} ${c.time - S0} ${c.open} ${c.high} ${c.low} ${c.close} ${c.volume}`));
  const trade = (ms: number, p: string) =>
    stream.emit('trade', { symbol: 'X', price: d(p), quantity: d(1), isBuyOrder: false, timestamp: T0 + ms } satisfies PublicTrade);
  return { clock, timers, engine, got, trade, lines };
}

const whole: Candle = { time: S0, open: d(9), high: d(14), low: d(8), close: d(12), volume: d(40) };

describe('the first live candle of a start in mid-period', () => {
  it('is the exchange history candle of its period, and the next candles wait behind it', async () => {
    const asked: string[] = [];
    const history: CandleHistory = (q) => {
      asked.push(`${q.symbol} ${q.resolution} ${q.from - S0}..${q.to - S0}`);
      return Promise.resolve([whole]);
    };
    const { timers, engine, got, trade, lines } = await setup(T0 + 25_000, history);
    trade(30_000, '11');
    trade(40_000, '12');
    trade(61_000, '13'); // closes the period the start cut short
    trade(185_000, '13'); // closes the next one and an empty one while the first is asked for
    expect(got).toEqual([]);
    await timers.advance(0);
    expect(asked).toEqual(['X 1 0..60']);
    expect(got).toEqual(['60 0 9 14 8 12 40', '60 60 13 13 13 13 1', '60 120 13 13 13 13 0']);
    expect(engine.candles('X', 60).map((c) => c.high.toString())).toEqual(['14', '13', '13']);
    expect(lines().join('\n')).toMatch(/first live candle: X 60s at 2025-06-01T09:00:00.000Z from the exchange's history/);
  });

  it('asks again when the period just closed is not served yet', async () => {
    let n = 0;
    const history: CandleHistory = () => Promise.resolve(++n < 2 ? [] : [whole]);
    const { timers, got, trade } = await setup(T0 + 25_000, history);
    trade(30_000, '11');
    trade(61_000, '13');
    await timers.advance(0);
    expect(got).toEqual([]);
    await timers.advance(2_000);
    expect(n).toBe(2);
    expect(got).toEqual(['60 0 9 14 8 12 40']);
  });

  it('keeps the candle from the trades, and says so, when the history does not answer', async () => {
    const history: CandleHistory = () => Promise.reject(new Error('HTTP 503'));
    const { timers, got, trade, lines } = await setup(T0 + 25_000, history);
    trade(30_000, '11');
    trade(61_000, '13');
    await timers.advance(0);
    expect(got).toEqual(['60 0 11 11 11 11 1']);
    expect(lines().join('\n')).toMatch(
      /first live candle: X 60s at \S+ is built from the trades since the start at 2025-06-01T09:00:25.000Z only \(35 s of 60 s\): the history could not be read: HTTP 503/,
    );
  });

  it('asks for a start on a period boundary too (the stream connects after the books are read); asks nothing at a resolution the history does not serve', async () => {
    let asks = 0;
    const history: CandleHistory = () => (asks++, Promise.resolve([whole]));
    const a = await setup(T0, history);
    a.trade(30_000, '11');
    a.trade(61_000, '13');
    await a.timers.advance(0);
    expect(a.got).toEqual(['60 0 9 14 8 12 40']);
    expect(asks).toBe(1);
    const b = await setup(T0 + 25_000, history, [300]);
    b.trade(30_000, '11');
    b.trade(301_000, '13');
    expect(b.got).toEqual(['300 0 11 11 11 11 1']);
    expect(b.lines().join('\n')).toMatch(/history does not serve 300 s candles/);
    expect(asks).toBe(1);
  });

  it('asks again when the history candle lacks trades the bot saw (not caught up yet)', async () => {
    let n = 0;
    const stale: Candle = { time: S0, open: d(9), high: d(10.5), low: d(8), close: d(10), volume: d(30) };
    const history: CandleHistory = () => Promise.resolve([++n < 2 ? stale : whole]);
    const { timers, got, trade } = await setup(T0 + 25_000, history);
    trade(30_000, '11'); // above the stale candle's high
    trade(61_000, '13');
    await timers.advance(0);
    expect(got).toEqual([]);
    await timers.advance(2_000);
    expect(got).toEqual(['60 0 9 14 8 12 40']);
  });
});
