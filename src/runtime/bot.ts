/**
 * The composition root of live and paper trading: the one place that builds adapters and wires a
 * mode. Order of start: config and strategies are checked before anything connects; then the
 * exchange (embedded simulator or remote), the market catalog, the journal with recovery, risk,
 * execution and the strategies; market data last, so no event reaches a strategy before it exists.
 */
import { SystemClock, type Clock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { Logger } from '../core/logger.js';
import { ConfigError } from '../config/issues.js';
import type { MizanConfig } from '../config/schema.js';
import { WallexRestClient } from '../exchange/rest/client.js';
import { StreamClient } from '../exchange/stream/client.js';
import type { ExecutionEngine } from '../execution/engine.js';
import { RestVenue } from '../venues/rest-venue.js';
import type { Venue } from '../execution/venue.js';
import { MarketDataEngine } from '../market/engine.js';
import { MarketCatalog } from '../market/market-catalog.js';
import { PlotRing } from './plot-ring.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import { journalRiskSink } from '../risk/sinks.js';
import { runSim, type RunningSim } from '../sim/cli-command.js';
import { journalLocationMessage, journalLocationProblem } from '../store/location.js';
import { Journal } from '../store/journal.js';
import { recordInstruments } from '../store/instruments.js';
import { bindJournal, exchangeIdentity, keyFingerprint } from '../store/binding.js';
import { configSecrets } from './secrets.js';
import { JournalExecutionAdapter, journalKv } from './journal-adapters.js';
import { loggerFromConfig } from './logger.js';
import { logFills } from './fill-log.js';
import { journalBracketStore } from './bracket-store.js';
import { checkApiKey } from './key-check.js';
import { createPaperVenue, type PaperVenue } from './paper.js';
import { marketFees } from './market-fees.js';
import { recoverOrders, type RecoveryReport } from './recovery.js';
import { startSchedules } from './schedules.js';
import { candlesPerMarket, loadStrategyInstances } from './strategy-loader.js';
import type { TradingCore } from '../kernel/trading-core.js';
import { TradingKernel } from '../kernel/kernel.js';
import { referenceAsset } from '../kernel/reference.js';
import { bookView, healthView, marketView } from './views.js';
import type { BookView } from '../core/views.js';
import { BotLoop } from './bot-loop.js';
import { Bar } from '../strategy/bar.js';
import { startRiskWatches } from './risk-watches.js';
import { startPrivateStream, type PrivateStreamWiring } from './private-stream.js';
import { MAIN_ACCOUNT, subAccountId } from '../core/account.js';
import { StartupRetry, startupKeyClient, startupVenues } from './startup-retry.js';

export interface BotOptions {
  /** The `--live` confirmation; live mode needs it and `mode: live` in the file. */
  live?: boolean;
  logger?: Logger;
  clock?: Clock;
  /** Embedded simulator overrides (tests): port, fixed API key, replay on or off. */
  sim?: { port?: number; apiKey?: string; replay?: boolean };
  /** Called once the bot is assembled, before any strategy starts: listeners that must see every event (notifications). */
  attach?: (parts: BotParts) => void;
  /** Called after the account was read and before any strategy starts (the run command's banner). */
  beforeStart?: (info: StartInfo) => void | Promise<void>;
  /** Status line target and intervals (tests turn the status line off with statusEveryMs: 0). */
  out?: NodeJS.WritableStream;
  intervals?: Partial<{ pollMs: number; syncMs: number; equityMs: number; statusEveryMs: number }>;
  /** Secrets of this process beyond the config's (generated API tokens): never written to the journal. */
  secrets?: readonly string[];
  /** `--adopt-journal`: a journal bound to another account is bound to this one (logged) instead of refused. */
  adoptJournal?: boolean;
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
  if (journalProblem) throw new ConfigError([{ path: 'journal.file', message: journalLocationMessage(config.journal.file, journalProblem), value: config.journal.file }]);
  const instances = await loadStrategyInstances(config);
  const clock = opts.clock ?? new SystemClock();
  const apiKeySecret = config.exchange.apiKey;
  const logger = opts.logger ?? loggerFromConfig(config);

  // ---------------------------------------------------------------------------- the exchange
  let embedded: RunningSim | undefined;
  let baseUrl = config.exchange.baseUrl;
  let apiKey = apiKeySecret;
  if (config.exchange.simulator) {
    embedded = await runSim({
      seed: config.simulator.seed,
      speed: config.simulator.speed,
      ...(config.simulator.data ? { data: config.simulator.data } : {}),
      logger: logger.child({ component: 'sim' }),
      ...(opts.sim?.port !== undefined ? { port: opts.sim.port } : {}),
      ...(opts.sim?.apiKey ? { apiKey: opts.sim.apiKey } : {}),
      ...(opts.sim?.replay !== undefined ? { replay: opts.sim.replay } : {}),
    });
    baseUrl = embedded.server.url;
    apiKey = embedded.account.apiKey;
  }
  const rest = new WallexRestClient({
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    timeoutMs: config.exchange.timeoutMs,
    orderRateLimit: config.exchange.orderRateLimit,
    logger: logger.child({ component: 'rest' }),
  });
  const cleanups: (() => Promise<void> | void)[] = [];
  if (embedded) cleanups.push(() => embedded.stop());
  // The start's reads ride out a rate-limited or slow exchange (exchange.startupRetryMs).
  const startup = new StartupRetry({ budgetMs: config.exchange.startupRetryMs, logger: logger.child({ component: 'start' }), ...(opts.signal ? { signal: opts.signal } : {}) });
  try {
    // --------------------------------------------------------------------------- markets
    const catalog = new MarketCatalog({ source: startup.wrap(rest, ['getMarkets', 'getActiveMarkets', 'getFees', 'getMarginMarkets']), logger });
    await catalog.start();
    cleanups.push(() => catalog.stop());
    const symbols = [...new Set(instances.flatMap((i) => i.markets))];
    const unknown = instances.flatMap((inst, i) => inst.markets.filter((s) => !catalog.has(s)).map((s) => ({ i, s })));
    if (unknown.length) {
      throw new ConfigError(unknown.map(({ i, s }) => ({ path: `strategies[${i}].markets`, message: `"${s}" is not a market of the exchange`, value: s })));
    }
    // Live: refuse to start with an API key the exchange refuses (401/403), before anything is written.
    // A trading-credit account trades with its own key (config `accounts:`), never the main one.
    const accountKey = (account: string) => config.accounts[account]?.apiKey;
    if (config.mode === 'live') await checkApiKey(startupKeyClient(startup, rest), instances.map((i) => i.account), accountKey);
    const stream = new StreamClient({ url: config.exchange.stream?.url ?? baseUrl, transport: config.exchange.stream?.transport ?? 'auto', protocol: config.exchange.stream?.protocol ?? 4, maxChannelsPerConnection: config.exchange.stream.maxChannelsPerConnection, logger: logger.child({ component: 'stream' }) });
    // Per market, the resolutions of the strategies trading it and the others they declared (`candles:`), built from the trade stream.
    const marketCandles = candlesPerMarket(instances);
    const market = new MarketDataEngine({ stream, depth: { getDepth: (s) => rest.getDepth(s), getAllDepths: () => rest.getAllDepth() }, clock, logger, options: { candleResolutions: [], marketCandles, book: { crossedGraceMs: config.exchange.stream.crossedGraceMs } } });

    // ------------------------------------------------------------------ journal, portfolio
    const journal = Journal.open(config.journal.file, { clock, logger, checkpoint: 'background', secrets: configSecrets(config, [...(opts.secrets ?? []), embedded?.account.apiKey]) });
    cleanups.push(() => journal.close());
    // Another account's journal is refused before recovery or any order acts on it (store/binding.ts).
    const identity = config.mode === 'paper' ? { exchange: 'paper' } : { exchange: exchangeIdentity(baseUrl), ...(apiKey ? { keyFingerprint: keyFingerprint(apiKey) } : {}) };
    bindJournal(journal, identity, { adopt: opts.adoptJournal === true, logger, now: clock.now() });
    // Instruments from the market catalog only (never a symbol's suffix), and the kernel's one
    // reference rule (kernel/reference.ts) over them.
    const split = (s: string) => {
      const m = catalog.get(s);
      return { base: m.baseAsset, quote: m.quoteAsset };
    };
    const reference = referenceAsset(config.reference, symbols, split);
    // The journal keeps them too, for offline readers (`mizan journal pnl`).
    recordInstruments(journal, symbols.map((s) => [s, split(s)] as const));

    // ------------------------------------------------------------------------------ venue
    let paper: PaperVenue | undefined;
    let venue: Venue;
    const subVenues = new Map<string, Venue>();
    if (config.mode === 'paper') {
      paper = createPaperVenue({ clock, logger, markets: catalog.list(), balances: config.paper.balances, ...(config.paper.fees ? { fees: config.paper.fees } : {}), seed: config.simulator.seed });
      paper.follow(market);
      cleanups.push(() => paper?.detach());
      venue = paper.venue;
    } else {
      venue = new RestVenue(rest);
    }
    const rawVenueFor = (account: string): Venue => {
      if (account === MAIN_ACCOUNT || config.mode === 'paper') return venue;
      let v = subVenues.get(account);
      if (!v) {
        v = new RestVenue(rest.withSubAccount(subAccountId(account)!, accountKey(account)));
        subVenues.set(account, v);
      }
      return v;
    };
    // Fees: the exchange's (or paper.fees); a traded market without one stops the start (runtime/market-fees.ts).
    const feesOf = marketFees(config, catalog, symbols);
    const markets = (s: string) => {
      if (!catalog.has(s)) return undefined;
      const f = feesOf(s);
      return f ? marketView(catalog.get(s), f) : undefined;
    };
    // One view per market: it reads the live book, so it is built once, not per event.
    const views = new Map<string, BookView>();
    const books = (s: string): BookView | undefined => {
      let v = views.get(s);
      if (!v && market.symbols().includes(s)) {
        v = bookView(s, market.book(s), () => market.health(s));
        views.set(s, v);
      }
      return v;
    };

    // ------------------------------------------------------------- the kernel: risk, execution, strategies
    // The same kernel as a backtest; live and paper supply the exchange's venues, the local books, the
    // journal, and balances synced from the venue (their `locked` is as old as the last sync).
    const execJournal = new JournalExecutionAdapter(journal, venue.kind);
    const plots = new PlotRing(() => clock.now());
    for (const i of instances) plots.declare(i.name, i.definition.plots, i.markets);
    const kernel = new TradingKernel(
      {
        clock,
        logger,
        venueFor: rawVenueFor,
        market: markets,
        book: books,
        liveLocked: false,
        symbols,
        split,
        reference,
        minSellable: (s) => (catalog.has(s) ? Decimal.max(catalog.get(s).minQty, catalog.get(s).qtyStep) : undefined),
        kv: (s) => journalKv(journal, s),
        riskSink: journalRiskSink(journal, journal),
        executionJournal: execJournal,
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
    cleanups.push(() => engine.close());
    cleanups.push(() => kernel.close());
    logFills(kernel, engine, logger);
    // Brackets are loaded before recovery, whose fills they must see. A paper run starts a fresh
    // exchange, where the old brackets' children do not exist.
    const brackets = kernel.brackets;
    if (config.mode === 'paper') brackets.reset();
    // Live mode with a stream key: order updates and fills by the private stream, polling as a safety net.
    const privateStream = startPrivateStream({ config, baseUrl, engine, portfolio, clock, logger });
    if (privateStream) cleanups.push(() => privateStream.stop());
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
    brackets.resume();

    cleanups.push(startRiskWatches({ logger, kernel, market, journal, symbols }));

    // ----------------------------------------------------------------------- market events
    const lastHealthy = new Map<string, boolean>();
    market.on('book', (symbol, _book, health) => {
      if (lastHealthy.get(symbol) !== health.healthy) {
        lastHealthy.set(symbol, health.healthy);
        core.onBookHealth(symbol, healthView(health));
      }
      const view = books(symbol);
      if (view) core.onBook(symbol, view);
    });
    market.on('health', (symbol, health) => {
      if (lastHealthy.get(symbol) === health.healthy) return;
      lastHealthy.set(symbol, health.healthy);
      core.onBookHealth(symbol, healthView(health));
    });
    // The last price, the brackets' take-profit watch, then the strategies (kernel.onTrade).
    market.on('trade', (t) => kernel.onTrade(t));
    market.on('stats', (s, st) => core.onStats(s, st));
    // Through the kernel: after the strategies handled the candle, the equity goes to the protections.
    market.on('candleClosed', (symbol, res, c) => void kernel.onBar(symbol, Bar.fromCandle(c, res)));

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
      split,
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
    await core.start();
    await market.start(symbols);
    await stream.connect();
    const stopSchedules = startSchedules(config, core, logger);
    cleanups.push(stopSchedules);
    loop.start();
    startup.finish();

    let stopped: Promise<string> | undefined;
    const bot: Bot = {
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
        stopped ??= (async () => {
          stopSchedules();
          await core.stop();
          await core.idle();
          if (o.cancelOrders ?? true) {
            for (const s of symbols) await engine.cancelAll(s);
          }
          await loop.syncAccount().catch(() => undefined);
          const text = loop.summary();
          loop.stop();
          market.stop();
          stream.close();
          for (const c of cleanups.reverse()) await c();
          return text;
        })();
        return stopped;
      },
    };
    return bot;
  } catch (err) {
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
    throw err;
  }
}
