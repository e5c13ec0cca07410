/**
 * `runBookBacktest(config, options)`: a backtest on a recording of the exchange's streams
 * (`backtest.data` entries of kind `book`, written by `mizan record`). The same kernel as every mode;
 * the ports are those of a paper bot with the exchange replaced by the recording:
 *  - market data: the market-data engine of live trading (its book tracker, health, resyncs, the
 *    candles it builds from trades), fed by the recording (recording-ports.ts) on a simulated clock
 *    (virtual-time.ts), so strategies get onBook, onBookHealth, onTrade, onStats and onCandle exactly
 *    as they did live;
 *  - the venue: the recorded book with the queue-position fill model and the order-entry and cancel
 *    latencies of `backtest.book` (book-venue.ts, fill-engine.ts), the simulator's ledger and fees;
 *  - the equity, every simulated second, through the kernel's one equity feed (the protections see it).
 * The replay loop is replay.ts. Intents before `from` are denied (rule `warmup`), as in candle runs.
 */
import { ManualClock } from '../../core/clock.js';
import { Decimal, incrementFromDecimals } from '../../core/decimal.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { BookView, MarketView } from '../../core/views.js';
import type { MizanConfig } from '../../config/schema.js';
import { TradingKernel } from '../../kernel/kernel.js';
import type { StrategyInstance } from '../../kernel/trading-core.js';
import { referenceAsset } from '../../kernel/reference.js';
import { MarketDataEngine } from '../../market/engine.js';
import type { GapRecord, RecordedEvent } from '../../record/format.js';
import { bookSource, type BookSource } from './sources.js';
import { wireMarketEvents } from '../../runtime/market-events.js';
import { bookView } from '../../runtime/views.js';
import { candlesPerMarket, loadStrategyInstances } from '../../runtime/strategy-loader.js';
import type { MarketSpec } from '../../sim/markets.js';
import { MAIN_ACCOUNT } from '../../core/account.js';
import { BACKTEST_RETAINED_ORDERS, runFeeOverride, runMarketSpecs } from '../backtest-exchange.js';
import { buildResult, type BacktestResult, type RunRecord } from '../result.js';
import { memoryKv, warmupGate } from '../setup.js';
import { PlotBook } from '../plots.js';
import { SpotOrderLog } from '../spot-order-log.js';
import { orderEndingsOf } from '../order-endings.js';
import { marketView } from '../views.js';
import { BacktestSchedules } from '../schedules.js';
import { withParams } from '../params-override.js';
import type { BacktestOptions } from '../options.js';
import type { DataReport, Series } from '../data.js';
import { BookVenue } from './book-venue.js';
import { RecordingDepth, RecordingStream } from './recording-ports.js';
import { replay, runUntil, scheduleGaps, settle, type ReplayPorts } from './replay.js';
import { VirtualTime } from './virtual-time.js';
import { CandleSeriesRecorder } from './candle-series.js';
import { BookStats } from './book-stats.js';
import { UnhealthyBooks } from './book-unhealthy.js';
import { BookChartRecorder } from './book-chart.js';
import { recordOf } from '../equity-record.js';

/** How often the equity is sampled, simulated milliseconds. */
const EQUITY_EVERY_MS = 1_000;
/** After the last event, how long (simulated) the run waits for answers still under way before it stops. */
const DRAIN_MS = 60_000;

export interface BookRun {
  result: BacktestResult;
  /** The candles the engine built from the recorded trades, per market (the report's price chart). */
  series: Series[];
  /** Recorded events replayed. */
  events: number;
}

/** The markets of the run: every strategy's, each in one of the recordings. */
function recordingFor(config: MizanConfig, symbols: readonly string[]): { dir: string; markets: string[]; source: BookSource } {
  const recs = config.backtest!.recordings;
  if (recs.length !== 1) throw new Error(`backtest.data: a book backtest replays one recording (kind: book), got ${recs.length}`);
  const rec = recs[0]!;
  const markets = rec.markets ?? [...symbols];
  const missing = symbols.filter((s) => !markets.includes(s));
  if (missing.length > 0)
    throw new Error(`backtest.data[0].markets: ${missing.join(', ')} traded by the strategies but not replayed (markets: ${markets.join(', ')})`);
  return { dir: rec.dir, markets, source: bookSource(rec.format, rec.dir, markets) };
}

export async function runBookBacktest(config: MizanConfig, opts: BacktestOptions = {}): Promise<BookRun> {
  const bt = config.backtest;
  if (!bt) throw new Error('the config has no backtest section (data, from, to)');
  const fromMs = opts.from ?? bt.from;
  const toMs = opts.to ?? bt.to;
  if (!(fromMs < toMs)) throw new Error(`backtest range is empty: from ${new Date(fromMs).toISOString()} is not before to ${new Date(toMs).toISOString()}`);
  const logger = opts.logger ?? silentLogger;
  const instances = opts.instances ?? (await loadStrategyInstances(withParams(config, opts.params)));
  const traded = [...new Set(instances.flatMap((i) => i.markets))];
  const { markets, source } = recordingFor(config, traded);
  const specs = new Map(runMarketSpecs(bt).map((m) => [m.symbol, m]));
  for (const s of markets) if (!specs.has(s)) throw new Error(`backtest.data[0].markets: ${s} is not a known market (declare it under backtest.markets)`);

  // The first event's time starts the clock (a recording may begin long before `from`: warm-up). It
  // is read ahead on the replay's own pass, so the recording is read once.
  const events = source.events(toMs)[Symbol.asyncIterator]();
  try {
    const head = await events.next();
    if (head.done === true) throw new Error(`${source.description}: no event of ${markets.join(', ')} before ${new Date(toMs).toISOString()}`);
    return await replayRecording({ config, opts, bt, fromMs, toMs, logger, instances, markets, source, specs }, head.value, events);
  } finally {
    await events.return?.();
  }
}

interface RunSetup {
  config: MizanConfig;
  opts: BacktestOptions;
  bt: NonNullable<MizanConfig['backtest']>;
  fromMs: number;
  toMs: number;
  logger: Logger;
  instances: StrategyInstance[];
  markets: string[];
  source: BookSource;
  specs: Map<string, MarketSpec>;
}

/** The run from the recording's first event (`head`, read ahead) on; `rest`: the events after it. */
async function replayRecording(run: RunSetup, head: RecordedEvent, rest: AsyncIterator<RecordedEvent>): Promise<BookRun> {
  const { config, opts, bt, fromMs, toMs, logger, instances, markets, source, specs } = run;
  const first = head.t;
  const clock = new ManualClock(first);
  opts.onClock?.(clock);
  const time = new VirtualTime(clock);
  const stream = new RecordingStream(logger.child({ component: 'replay' }));
  const depth = new RecordingDepth();
  const engine = new MarketDataEngine({
    stream,
    depth,
    clock,
    timers: time,
    logger,
    options: { candleResolutions: [], marketCandles: candlesPerMarket(instances), book: { crossedGraceMs: config.exchange.stream.crossedGraceMs } },
  });
  const spec = (s: string): MarketSpec => specs.get(s)!;
  const fees = (s: string) => runFeeOverride(bt, s) ?? { makerFee: spec(s).makerFee, takerFee: spec(s).takerFee };
  const venue = new BookVenue({
    clock,
    at: (ms) => time.at(ms),
    markets: markets.map(spec),
    balances: Object.fromEntries(Object.entries(bt.balances).map(([a, v]) => [a, new Decimal(v)])),
    fees,
    fill: { queueModel: bt.book.queueModel, queuePower: bt.book.queuePower, entryLatencyMs: bt.book.entryLatencyMs, cancelLatencyMs: bt.book.cancelLatencyMs },
  });
  // The exchange's side of each trade: the venue's prints (before the engine sees the trade). Its
  // book takes each depth frame after the engine (below, once the engine listens).
  stream.on('trade', (t) => venue.trade(t.symbol, clock.now(), t.price, t.quantity, t.isBuyOrder));

  const views = new Map<string, MarketView>(markets.map((s) => [s, marketView(spec(s), fees(s))]));
  const books = new Map<string, BookView>();
  // One view per local book (it reads the live book): what the strategies and risk see.
  const bookOf = (s: string): BookView | undefined => {
    let v = books.get(s);
    if (!v && engine.symbols().includes(s)) books.set(s, (v = bookView(s, engine.book(s), () => engine.health(s))));
    return v;
  };
  const split = (s: string) => ({ base: spec(s).baseAsset, quote: spec(s).quoteAsset });
  const reference = referenceAsset(config.reference, markets, split);
  const plots = new PlotBook(() => clock.now(), fromMs, Math.ceil((toMs - Math.max(fromMs, first)) / 1000) + 1);
  const kernel = new TradingKernel(
    {
      clock,
      logger,
      venueFor: (account) => {
        if (account !== MAIN_ACCOUNT) throw new Error(`backtests trade the main account only, not ${account}`);
        return venue;
      },
      market: (s) => views.get(s),
      book: bookOf,
      // The venue's ledger is the run's balances: its locks count at once.
      ledger: {
        balance: (account, asset) => (account === MAIN_ACCOUNT ? venue.balance(asset) : undefined),
        assets: (account) => (account === MAIN_ACCOUNT ? venue.assets() : []),
      },
      symbols: markets,
      split,
      reference,
      minSellable: (s) => Decimal.max(spec(s).minQty, incrementFromDecimals(spec(s).stepSize)),
      trades: { retain: true, fillTimes: true },
      idPrefix: 'bt',
      retainFinal: BACKTEST_RETAINED_ORDERS,
      keepRetiredOwners: true,
      keepOwners: true,
      plot: (strategy, symbol, name) => plots.open(strategy, symbol, name),
      gate: warmupGate(clock, fromMs),
      kv: memoryKv(),
      sleep: (ms) => time.sleep(ms),
    },
    { config, instances },
  );
  const trades = kernel.portfolio.trades;
  const spotLog = new SpotOrderLog({ reason: () => undefined, lastFill: (id, forget) => trades.lastFill(id, forget) });
  kernel.engine.on('submitted', (o) => spotLog.submitted(o));
  kernel.engine.on('final', (o) => spotLog.ended(o));
  wireMarketEvents(engine, kernel, bookOf);
  const candles = new CandleSeriesRecorder(engine, instances, fromMs);
  const bookStats = new BookStats(venue, time, (s) => engine.book(s).mid());
  const chart = new BookChartRecorder(
    markets.map((s) => ({ symbol: s, base: spec(s).baseAsset })),
    {
      mid: (s) => engine.book(s).mid(),
      openOrders: (s) => venue.restingOrders(s),
      held: (a) => venue.balance(a)?.value,
      fills: () => venue.fills(),
    },
    fromMs,
  );

  // The equity: the kernel's one feed (the protections), kept from `from` on for the result.
  const eqT: number[] = [];
  const eqV: number[] = [];
  const sample = () => {
    chart.sample(clock.now());
    const e = kernel.equity.sample();
    if (e.unpriced.length > 0 || e.time < fromMs) return;
    eqT.push(e.time);
    eqV.push(Number(e.equity.toSignificantDigits(15)));
  };
  const sampler = time.setInterval(sample, EQUITY_EVERY_MS);
  const gaps = await source.gaps();
  const drops = scheduleGaps(gaps, { clock, time, stream });
  const cron = new BacktestSchedules(config, instances, Math.max(fromMs, first));
  const ports: ReplayPorts = {
    clock,
    time,
    stream,
    depth,
    venue,
    drops,
    ...(cron.size > 0
      ? { schedules: { peek: () => cron.peek(), fire: (t: number) => cron.take(t).forEach((name) => void kernel.core.onSchedule(name, t)) } }
      : {}),
  };

  await kernel.core.start();
  // The cold start waits for the recording's first snapshots: it is not awaited here.
  const started = engine.start(markets);
  const unhealthy = new UnhealthyBooks(engine, markets, clock);
  // The exchange's side of each depth frame, as received (the venue reads only what its orders need,
  // no Decimal per level): after the engine's book took it, as the stream client's events come. A
  // frame whose values are not numbers is counted and skipped (the engine's book refused it too).
  stream.on('depthRaw', (symbol, side, levels) => {
    const refused = venue.side(symbol, clock.now(), side, levels);
    if (refused === undefined) unhealthy.depthFrame(symbol);
    else stream.refused(symbol, side, refused);
  });
  const counts = await replay(readAhead(head, rest), ports, (_ev, n) => {
    if (opts.onProgress && n % (opts.progressEvery ?? 10_000) === 0) opts.onProgress(Math.max(0, clock.now() - first), Math.max(1, toMs - first));
  });
  // The end: the last sample; answers still under way (a latency after the last event) arrive, the
  // strategies stop (their onStop may cancel and wait for the answer): simulated time runs on for
  // what they wait for, at most DRAIN_MS.
  const endT = counts.lastT;
  bookStats.end();
  unhealthy.end(endT);
  sample();
  time.clearInterval(sampler);
  engine.stop();
  depth.end();
  await started.catch(() => undefined);
  const until = async (done: () => boolean) => {
    await settle();
    while (!done() && time.nextAt() <= endT + DRAIN_MS) await runUntil(time.nextAt(), ports);
  };
  await until(() => !kernel.core.busy);
  let stopped = false;
  const stopping = kernel.core.stop().finally(() => (stopped = true));
  await until(() => stopped && !kernel.core.busy);
  if (!stopped) logger.warn({ waitedMs: DRAIN_MS }, 'book backtest: the strategies did not stop within the wait after the last event');
  else await stopping;
  time.clear();
  kernel.stop();
  const lastT = clock.now();
  trades.closeOpen(lastT, (s) => engine.book(s).mid() ?? kernel.prices.last(s));

  const series = candles.series();
  const report = bookReport(source.description, markets, counts.events, stream.malformed, gaps);
  const record: RunRecord = {
    reference,
    kernel,
    trades,
    plots,
    unpriced: new Set(),
    balances: () => Object.fromEntries(venue.assets().map((a) => [a, venue.balance(a)!])),
    market: (s) => specs.get(s),
    spotOrders: () => spotLog.all(),
    otherOrders: () => [],
    orderEndings: () => orderEndingsOf(spotLog.all()),
  };
  const main = series[0];
  const result = buildResult({
    config,
    instances,
    fromMs,
    toMs,
    h: record,
    symbols: markets,
    candles: counts.events,
    ...(main && main.length > 0 ? { benchmark: { firstPrice: main.open[main.firstIndex] ?? main.open[0]!, lastPrice: main.close[main.length - 1]! } } : {}),
    report,
    bookFill: bt.book,
    book: { ...bookStats.result(), unhealthy: unhealthy.result() },
    bookChart: chart.result(opts.equityPoints ?? 2000),
    equity: recordOf(eqT, eqV, opts.equityPoints ?? 2000),
    detail: opts.detail ?? 'full',
  });
  return { result, series, events: counts.events };
}

/** The events of a pass whose first one was read ahead: that one, then the rest (the caller closes `rest`). */
function readAhead(head: RecordedEvent, rest: AsyncIterator<RecordedEvent>): AsyncIterable<RecordedEvent> {
  let first = true;
  const next = (): Promise<IteratorResult<RecordedEvent>> => {
    if (!first) return rest.next();
    first = false;
    return Promise.resolve({ done: false, value: head });
  };
  return { [Symbol.asyncIterator]: () => ({ next }) };
}

/** The data report of a book run: the recording, its events and its gaps (each a stretch the books were unhealthy). */
function bookReport(description: string, markets: string[], events: number, malformed: number, gaps: readonly GapRecord[]): DataReport {
  const notes = [`${description}: ${events} events of ${markets.join(', ')} replayed`];
  const problems: string[] = [];
  for (const g of gaps)
    problems.push(
      `${g.market}: gap ${new Date(g.start).toISOString()} .. ${new Date(g.end).toISOString()} (${g.cause}): no data; the book was unhealthy until the next snapshot`,
    );
  if (malformed > 0) problems.push(`${malformed} recorded frame(s) did not parse and were skipped (logged)`);
  return { ok: true, series: [], problems, notes };
}
