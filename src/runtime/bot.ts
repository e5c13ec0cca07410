/**
 * The composition root of live and paper trading: the one place that builds adapters and wires a
 * mode. Order of start: config and strategies are checked before anything connects; then the
 * exchange (embedded simulator or remote), the market catalog, the journal with recovery, risk,
 * execution and the strategies; market data last, so no event reaches a strategy before it exists.
 */
import { SystemClock, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { ConfigError } from '../config/issues.js';
import type { MizanConfig } from '../config/schema.js';
import { StreamClient } from '../exchange/stream/client.js';
import type { ExecutionEngine } from '../execution/engine.js';
import type { Venue } from '../execution/venue.js';
import { MarketDataEngine } from '../market/engine.js';
import { MarketCatalog } from '../market/market-catalog.js';
import { PlotRing } from './plot-ring.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import { journalRiskSink } from '../risk/sinks.js';
import { journalLocationMessage, journalLocationProblem } from '../store/location.js';
import type { Journal } from '../store/journal.js';
import { recordInstruments } from '../store/instruments.js';
import { JournalExecutionAdapter, journalKv } from './journal-adapters.js';
import { loggerFromConfig } from './logger.js';
import { logFills } from './fill-log.js';
import { journalBracketStore } from './bracket-store.js';
import { checkApiKey } from './key-check.js';
import { recoverOrders, type RecoveryReport } from './recovery.js';
import { startSchedules } from './schedules.js';
import { candlesPerMarket, loadStrategyInstances } from './strategy-loader.js';
import type { TradingCore } from '../kernel/trading-core.js';
import { TradingKernel } from '../kernel/kernel.js';
import { referenceAsset } from '../kernel/reference.js';
import { BotLoop } from './bot-loop.js';
import { startRiskWatches } from './risk-watches.js';
import { startPrivateStream, type PrivateStreamWiring } from './private-stream.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { Lifecycle } from './lifecycle.js';
import { type AssemblyOptions, buildVenues, connectExchange, marketPorts, openBotJournal, wireMarketEvents } from './bot-parts.js';
import type { PaperVenue } from './paper.js';
import type { RunningSim } from '../sim/cli-command.js';
import { StartupRetry, startupKeyClient, startupVenues } from './startup-retry.js';

export interface BotOptions extends AssemblyOptions {
  /** The `--live` confirmation; live mode needs it and `mode: live` in the file. */
  live?: boolean;
  logger?: Logger;
  clock?: Clock;
  /** Called once the bot is assembled, before any strategy starts: listeners that must see every event (notifications). */
  attach?: (parts: BotParts) => void;
  /** Called after the account was read and before any strategy starts (the run command's banner). */
  beforeStart?: (info: StartInfo) => void | Promise<void>;
  /** Status line target and intervals (tests turn the status line off with statusEveryMs: 0). */
  out?: NodeJS.WritableStream;
  intervals?: Partial<{ pollMs: number; syncMs: number; equityMs: number; statusEveryMs: number }>;
  /**
   * Aborted when a stop is asked for during the start (Ctrl-C): before any strategy starts, the start
   * ends with StartAbortedError and closes what it built; after, the caller stops the returned bot.
   */
  signal?: AbortSignal;
}

export interface StartInfo {
  mode: string;
  exchange: string;
  strategies: { name: string; strategy: string; markets: string[]; account: string }[];
  balances: Record<string, { value: string; locked: string }>;
  recovery: RecoveryReport;
}

export interface Bot {
  config: MizanConfig;
  /** The trading kernel (its prices, equity feed, risk, execution, portfolio and strategies). */
  kernel: TradingKernel;
  core: TradingCore;
  engine: ExecutionEngine;
  risk: RiskEngine;
  portfolio: Portfolio;
  market: MarketDataEngine;
  /** The public stream (its connectionDown / connectionUp events: notifications). */
  stream: StreamClient;
  journal: Journal;
  venue: Venue;
  loop: BotLoop;
  recovery: RecoveryReport;
  /** The market catalog (precisions, for the API). */
  catalog: MarketCatalog;
  /** The strategies' `ctx.plot` points (the API's and the dashboard's). */
  plots: PlotRing;
  /** The embedded simulator serving market data (and the venue of `live` runs pointed at it). */
  embedded?: RunningSim;
  paper?: PaperVenue;
  /** The private stream (live mode with `exchange.stream.privateKey`). */
  privateStream?: PrivateStreamWiring;
  /** Stop strategies, optionally cancel their orders, flush the journal; resolves to the summary text. */
  stop(opts?: { cancelOrders?: boolean }): Promise<string>;
}

/** What `attach` gets: the running parts, before any strategy starts. */
export type BotParts = Pick<Bot, 'config' | 'core' | 'engine' | 'risk' | 'market' | 'stream' | 'journal' | 'loop'>;

export async function startBot(config: MizanConfig, opts: BotOptions = {}): Promise<Bot> {
  if (config.mode === 'backtest') throw new ConfigError([{ path: 'mode', message: '"backtest" runs with `mizan backtest <config>`, not `mizan run`' }]);
  if (config.mode === 'live' && !opts.live) {
    throw new ConfigError([{ path: 'mode', message: '"live" trades real money: confirm with --live on the command line' }]);
  }
  // The journal's directory, before connecting to anything (store/location.ts: no recursive mkdir that can hang).
  const journalProblem = journalLocationProblem(config.journal.file, { probe: false });
  if (journalProblem)
    throw new ConfigError([{ path: 'journal.file', message: journalLocationMessage(config.journal.file, journalProblem), value: config.journal.file }]);
  const instances = await loadStrategyInstances(config);
  const clock = opts.clock ?? new SystemClock();
  const logger = opts.logger ?? loggerFromConfig(config);
  // Every part is added as it starts; a failed start and the bot's stop() end them the same way, last first.
  const life = new Lifecycle(logger.child({ component: 'stop' }));
  // The start's reads ride out a rate-limited or slow exchange (exchange.startupRetryMs).
  const startup = new StartupRetry({
    budgetMs: config.exchange.startupRetryMs,
    logger: logger.child({ component: 'start' }),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  try {
    const x = await connectExchange(config, opts, logger, life);
    const { rest, baseUrl, embedded } = x;
    const catalog = life.add(
      'market catalog',
      new MarketCatalog({ source: startup.wrap(rest, ['getMarkets', 'getActiveMarkets', 'getFees', 'getMarginMarkets']), logger }),
    );
    await catalog.start();
    const symbols = [...new Set(instances.flatMap((i) => i.markets))];
    const unknown = instances.flatMap((inst, i) => inst.markets.filter((s) => !catalog.has(s)).map((s) => ({ i, s })));
    if (unknown.length) {
      throw new ConfigError(unknown.map(({ i, s }) => ({ path: `strategies[${i}].markets`, message: `"${s}" is not a market of the exchange`, value: s })));
    }
    // Live: refuse to start with an API key the exchange refuses (401/403), before anything is written.
    // A trading-credit account trades with its own key (config `accounts:`), never the main one.
    if (config.mode === 'live')
      await checkApiKey(
        startupKeyClient(startup, rest),
        instances.map((i) => i.account),
        (account) => config.accounts[account]?.apiKey,
      );
    const stream = new StreamClient({
      url: config.exchange.stream?.url ?? baseUrl,
      transport: config.exchange.stream?.transport ?? 'auto',
      protocol: config.exchange.stream?.protocol ?? 4,
      maxChannelsPerConnection: config.exchange.stream.maxChannelsPerConnection,
      logger: logger.child({ component: 'stream' }),
    });
    // Per market, the resolutions of the strategies trading it and the others they declared (`candles:`), built from the trade stream.
    const market = new MarketDataEngine({
      stream,
      depth: { getDepth: (s) => rest.getDepth(s), getAllDepths: () => rest.getAllDepth() },
      clock,
      logger,
      options: { candleResolutions: [], marketCandles: candlesPerMarket(instances), book: { crossedGraceMs: config.exchange.stream.crossedGraceMs } },
    });

    const journal = openBotJournal(config, opts, x, clock, logger, life);
    const ports = marketPorts(config, catalog, market, symbols);
    // The kernel's one reference rule (kernel/reference.ts) over the catalog's instruments; the
    // journal keeps them too, for offline readers (`mizan journal pnl`).
    const reference = referenceAsset(config.reference, symbols, ports.split);
    recordInstruments(
      journal,
      symbols.map((s) => [s, ports.split(s)] as const),
    );
    const { venue, venueFor: rawVenueFor, paper } = buildVenues(config, x, catalog, market, clock, logger, life);

    // The same kernel as a backtest; live and paper supply the exchange's venues, the local books, the
    // journal, and balances synced from the venue (their `locked` is as old as the last sync).
    const plots = new PlotRing(() => clock.now());
    for (const i of instances) plots.declare(i.name, i.definition.plots, i.markets);
    const kernel = new TradingKernel(
      {
        clock,
        logger,
        venueFor: rawVenueFor,
        market: ports.market,
        book: ports.book,
        liveLocked: false,
        symbols,
        split: ports.split,
        reference,
        minSellable: ports.minSellable,
        kv: (s) => journalKv(journal, s),
        riskSink: journalRiskSink(journal, journal),
        executionJournal: new JournalExecutionAdapter(journal, venue.kind),
        // Margin positions carry no strategy: which strategy opened which is kept in the journal.
        ownerStore: { get: (k) => journal.kvGet('__risk', k), set: (k, v) => journal.kvSet('__risk', k, v) },
        marginWatchMs: 5_000,
        // Brackets are kept in the journal; final orders too, so memory stays flat over weeks.
        bracketStore: journalBracketStore(journal),
        retainFinal: 1_000,
        plot: (strategy, symbol, name, value) => plots.add(strategy, symbol, name, value),
      },
      { config, instances },
    );
    const { engine, risk, portfolio, core } = kernel;
    const venueFor = (account: string) => kernel.venueFor(account);
    life.add('execution engine', engine);
    life.add('kernel', kernel);
    logFills(kernel, engine, logger);
    // Brackets are loaded before recovery, whose fills they must see. A paper run starts a fresh
    // exchange, where the old brackets' children do not exist.
    if (config.mode === 'paper') kernel.brackets.reset();
    // Live mode with a stream key: order updates and fills by the private stream, polling as a safety net.
    const privateStream = startPrivateStream({ config, baseUrl, engine, portfolio, clock, logger });
    if (privateStream) life.add('private stream', privateStream);
    const recovery = await recoverOrders({
      journal,
      engine,
      venueFor: startupVenues(startup, venueFor, ['getOrder', 'openOrders']),
      logger,
      prefixes: config.strategies.map((s) => s.clientIdPrefix),
      strategyOfPrefix: (p) => config.strategies.find((s) => s.clientIdPrefix === p)?.name,
      // Live: positions are rebuilt from the journal's fills. Paper starts a fresh paper exchange, so
      // restored positions would not match its balances.
      ...(config.mode === 'live' ? { portfolio, orderHistory: (q: { page: number; perPage: number }) => startup.call(() => rest.getOrderHistory(q)) } : {}),
    });
    kernel.brackets.resume();
    life.add('risk watches', { stop: startRiskWatches({ logger, kernel, market, journal, symbols }) });
    wireMarketEvents(market, kernel, ports.book);

    const loop = new BotLoop({
      config,
      clock,
      logger,
      core,
      engine,
      risk,
      portfolio,
      market,
      journal,
      // The first balance sync is a start-up read; the later ones call the venue directly.
      venueFor: startupVenues(startup, venueFor, ['balances', 'positions']),
      symbols,
      reference,
      split: ports.split,
      mark: (s) => kernel.prices.mark(s),
      equity: () => kernel.sampleEquity(),
      priceOf: (asset, ref) => kernel.valuation.price(asset, ref),
      ...(opts.out ? { out: opts.out } : {}),
      ...(opts.intervals ? { intervals: opts.intervals } : {}),
    });
    await loop.syncAccount();
    startup.checkAborted();
    opts.attach?.({ config, core, engine, risk, market, stream, journal, loop });
    await opts.beforeStart?.({
      mode: config.mode,
      exchange: embedded ? `embedded simulator at ${baseUrl} (${embedded.feed})` : baseUrl,
      strategies: instances.map((i) => ({ name: i.name, strategy: i.definition.name, markets: i.markets, account: i.account })),
      balances: portfolio.equity(clock.now()).balances,
      recovery,
    });
    // A stop asked for from here on is the running bot's stop(): strategies may place orders in onStart.
    startup.checkAborted();
    // Declared before the strategies: they stop after them (a strategy's onStop may still trade on
    // the books and the loop's balances).
    life.add('stream', { stop: () => stream.close() });
    life.add('market data', market);
    life.add('loop', loop);
    // The strategies stop first of the running parts: no new intents, their orders cancelled when
    // asked, the account read once more for the summary.
    // (A start that fails after this point only stops them: no orders cancelled, no account read.)
    let stopping: { cancelOrders: boolean; summary: string } | undefined;
    life.add('strategies', {
      stop: async () => {
        await core.stop();
        await core.idle();
        if (!stopping) return;
        if (stopping.cancelOrders) for (const s of symbols) await engine.cancelAll(s);
        await loop.syncAccount().catch(() => undefined);
        stopping.summary = loop.summary();
      },
    });
    await core.start();
    await market.start(symbols);
    await stream.connect();
    // The schedules start strategies' handlers: they end before the strategies do.
    life.add('schedules', { stop: startSchedules(config, core, logger) });
    loop.start();
    startup.finish();

    let stopped: Promise<string> | undefined;
    return {
      config,
      kernel,
      core,
      engine,
      risk,
      portfolio,
      market,
      stream,
      journal,
      venue: kernel.venueFor(MAIN_ACCOUNT),
      loop,
      recovery,
      catalog,
      plots,
      ...(embedded ? { embedded } : {}),
      ...(paper ? { paper } : {}),
      ...(privateStream ? { privateStream } : {}),
      stop(o = {}) {
        // Every part, last declared first (lifecycle.ts): the schedules, the strategies (and their
        // orders), the loop, the market data, the stream, the kernel, the journal, the exchange.
        stopped ??= (async () => {
          const asked = (stopping = { cancelOrders: o.cancelOrders ?? true, summary: '' });
          await life.stop();
          return asked.summary;
        })();
        return stopped;
      },
    };
  } catch (err) {
    await life.stop();
    throw err;
  }
}
