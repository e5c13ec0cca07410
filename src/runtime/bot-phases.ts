/**
 * The phases of a live or paper start (bot.ts startBot runs them in this order): the config and
 * strategies checked before anything connects; the exchange and its markets; the parts the kernel is
 * built on and the kernel; the recovery of the journal's orders and the first account read; then the
 * strategies and the market data, last, so no event reaches a strategy before it exists. Each part
 * that must be ended is declared to the start's Lifecycle as it starts (the shutdown order).
 */
import { SystemClock, type Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { ConfigError } from '../config/issues.js';
import type { MizanConfig } from '../config/schema.js';
import { StreamClient } from '../exchange/stream/client.js';
import type { Venue } from '../execution/venue.js';
import { MarketDataEngine } from '../market/engine.js';
import { MarketCatalog } from '../market/market-catalog.js';
import { PlotRing } from './plot-ring.js';
import { journalRiskSink } from '../risk/sinks.js';
import { journalLocationMessage, journalLocationProblem } from '../store/location.js';
import type { Journal } from '../store/journal.js';
import { recordInstruments } from '../store/instruments.js';
import { JournalExecutionAdapter, journalKv, journalMargin } from './journal-adapters.js';
import type { MarginPosition } from '../core/types/margin.js';
import { loggerFromConfig } from './logger.js';
import { logFills } from './fill-log.js';
import { journalBracketStore } from './bracket-store.js';
import { checkApiKey } from './key-check.js';
import { recoverOrders, type RecoveryReport } from './recovery.js';
import { startSchedules } from './schedules.js';
import { candlesPerMarket, loadStrategyInstances } from './strategy-loader.js';
import type { StrategyInstance } from '../kernel/trading-core.js';
import { TradingKernel } from '../kernel/kernel.js';
import { referenceAsset } from '../kernel/reference.js';
import { BotLoop, type BotLoopDeps } from './bot-loop.js';
import { startRiskWatches } from './risk-watches.js';
import { startPrivateStream, type PrivateStreamWiring } from './private-stream.js';
import { Lifecycle } from './lifecycle.js';
import { type AssemblyOptions, type ExchangeConnection, type MarketPorts, buildVenues, connectExchange, marketPorts, openBotJournal } from './bot-parts.js';
import { wireMarketEvents } from './market-events.js';
import { reconcileMarginOpens } from '../kernel/margin-opens.js';
import type { PaperVenue } from './paper.js';
import { StartupRetry, startupKeyClient, startupVenues } from './startup-retry.js';
import { WarmUp } from './warm-up.js';

/** What the phases read of the caller's choices (bot.ts BotOptions has them all). */
export interface PhaseOptions extends AssemblyOptions {
  logger?: Logger;
  clock?: Clock;
  signal?: AbortSignal;
  out?: NodeJS.WritableStream;
  intervals?: BotLoopDeps['intervals'];
}

/** What every phase of one start shares. */
export interface StartScope {
  config: MizanConfig;
  opts: PhaseOptions;
  clock: Clock;
  logger: Logger;
  /** Every part is added as it starts; a failed start and the bot's stop() end them the same way, last first. */
  life: Lifecycle;
  /** The start's reads ride out a rate-limited or slow exchange (exchange.startupRetryMs). */
  startup: StartupRetry;
}

/** The mode, the journal's directory and the strategies, before connecting to anything. */
export async function checkBeforeConnecting(config: MizanConfig, live: boolean | undefined): Promise<StrategyInstance[]> {
  if (config.mode === 'backtest') throw new ConfigError([{ path: 'mode', message: '"backtest" runs with `mizan backtest <config>`, not `mizan run`' }]);
  if (config.mode === 'live' && !live) {
    throw new ConfigError([{ path: 'mode', message: '"live" trades real money: confirm with --live on the command line' }]);
  }
  // The journal's directory, before connecting to anything (store/location.ts: no recursive mkdir that can hang).
  const journalProblem = journalLocationProblem(config.journal.file, { probe: false });
  if (journalProblem)
    throw new ConfigError([{ path: 'journal.file', message: journalLocationMessage(config.journal.file, journalProblem), value: config.journal.file }]);
  return loadStrategyInstances(config);
}

/** The clock, the logger, the lifecycle and the start-up retry of one start. */
export function startScope(config: MizanConfig, opts: PhaseOptions): StartScope {
  const clock = opts.clock ?? new SystemClock();
  const logger = opts.logger ?? loggerFromConfig(config);
  const life = new Lifecycle(logger.child({ component: 'stop' }));
  const startup = new StartupRetry({
    budgetMs: config.exchange.startupRetryMs,
    logger: logger.child({ component: 'start' }),
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return { config, opts, clock, logger, life, startup };
}

export interface Connection {
  x: ExchangeConnection;
  catalog: MarketCatalog;
  /** The markets the strategies trade. */
  symbols: string[];
}

/** The exchange, its market catalog (every strategy market must be one of it) and, live, the API keys. */
export async function connect(s: StartScope, instances: StrategyInstance[]): Promise<Connection> {
  const { config, logger, life, startup } = s;
  const x = await connectExchange(config, s.opts, logger, life);
  const catalog = life.add(
    'market catalog',
    new MarketCatalog({ source: startup.wrap(x.rest, ['getMarkets', 'getActiveMarkets', 'getFees', 'getMarginMarkets', 'getOtcMarkets']), logger }),
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
      startupKeyClient(startup, x.rest),
      instances.map((i) => i.account),
      (account) => config.accounts[account]?.apiKey,
    );
  return { x, catalog, symbols };
}

export interface Assembly {
  stream: StreamClient;
  market: MarketDataEngine;
  journal: Journal;
  ports: MarketPorts;
  reference: string;
  paper?: PaperVenue;
  plots: PlotRing;
  kernel: TradingKernel;
  /** The strategies' warm-up on the exchange's candle history (begin), and its gate in the kernel. */
  warm: WarmUp;
}

/** The public stream, the market data, the journal, the venues, the plots and the kernel over them. */
export function assemble(s: StartScope, instances: StrategyInstance[], c: Connection): Assembly {
  const { config, clock, logger, life } = s;
  const { x, catalog, symbols } = c;
  const stream = new StreamClient({
    url: config.exchange.stream?.url ?? x.baseUrl,
    transport: config.exchange.stream?.transport ?? 'auto',
    protocol: config.exchange.stream?.protocol ?? 4,
    maxChannelsPerConnection: config.exchange.stream.maxChannelsPerConnection,
    logger: logger.child({ component: 'stream' }),
  });
  // Per market, the resolutions of the strategies trading it and the others they declared (`candles:`), built from the trade stream.
  const market = new MarketDataEngine({
    stream,
    depth: { getDepth: (s) => x.rest.getDepth(s), getAllDepths: () => x.rest.getAllDepth() },
    // The first candle of each series, cut short by the start, is taken from the exchange's history.
    history: (q) => x.rest.getCandles(q),
    clock,
    logger,
    options: { candleResolutions: [], marketCandles: candlesPerMarket(instances), book: { crossedGraceMs: config.exchange.stream.crossedGraceMs } },
  });

  const journal = openBotJournal(config, s.opts, x, clock, logger, life);
  const ports = marketPorts(config, catalog, market, symbols);
  // The kernel's one reference rule (kernel/reference.ts) over the catalog's instruments; the
  // journal keeps them too, for offline readers (`mizan journal pnl`).
  const reference = referenceAsset(config.reference, symbols, ports.split);
  recordInstruments(
    journal,
    symbols.map((s) => {
      const min = ports.minSellable(s);
      return [s, { ...ports.split(s), ...(min ? { minSellable: min } : {}) }] as const;
    }),
  );
  // A paper run's fresh exchange numbers its margin positions past the journal's: no two runs share an id.
  const { venue, venueFor, paper } = buildVenues(config, x, catalog, market, clock, logger, life, journal.maxPositionId() + 1);
  const plots = new PlotRing(() => clock.now());
  for (const i of instances) plots.declare(i.name, i.definition.plots, i.markets);
  const warm = new WarmUp();
  const kernel = botKernel(s, instances, symbols, { journal, ports, reference, venue, venueFor, plots, warm, ...(paper ? { paper } : {}) });
  return { stream, market, journal, ports, reference, paper, plots, kernel, warm };
}

/**
 * The same kernel as a backtest; live and paper supply the exchange's venues, the local books, the
 * journal, and balances synced from the venue (their `locked` is as old as the last sync).
 */
function botKernel(
  s: StartScope,
  instances: StrategyInstance[],
  symbols: string[],
  p: {
    journal: Journal;
    ports: MarketPorts;
    reference: string;
    venue: Venue;
    venueFor(account: string): Venue;
    plots: PlotRing;
    warm: WarmUp;
    paper?: PaperVenue;
  },
): TradingKernel {
  const paper = p.paper;
  const { config, clock, logger, life } = s;
  const { journal, ports, plots } = p;
  const kernel = new TradingKernel(
    {
      clock,
      logger,
      venueFor: p.venueFor,
      market: ports.market,
      book: ports.book,
      symbols,
      split: ports.split,
      reference: p.reference,
      minSellable: ports.minSellable,
      kv: (s) => journalKv(journal, s),
      riskSink: journalRiskSink(journal, journal),
      executionJournal: new JournalExecutionAdapter(journal, p.venue.kind),
      // Margin positions carry no strategy: which strategy opened which is kept in the journal.
      ownerStore: { get: (k) => journal.kvGet('__risk', k), set: (k, v) => journal.kvSet('__risk', k, v) },
      marginWatchMs: 5_000,
      // Margin positions' rows and trades (kernel/margin-book.ts). Live: the rows of earlier runs say
      // what is booked; paper: a fresh exchange, whose positions' costs are its desk's own record.
      margin: {
        journal: journalMargin(journal),
        restore: config.mode === 'live',
        // (Every account of a paper bot is the one paper account.)
        ...(paper ? { costs: (_account: string, pos: MarginPosition) => paper.marginCosts(pos.id) } : {}),
      },
      // Brackets are kept in the journal; final orders too, so memory stays flat over weeks.
      bracketStore: journalBracketStore(journal),
      retainFinal: 1_000,
      plot: (strategy, symbol, name) => plots.open(strategy, symbol, name),
      gate: (intent) => p.warm.gate(intent),
    },
    { config, instances },
  );
  life.add('execution engine', kernel.engine);
  life.add('kernel', kernel);
  logFills(kernel, kernel.engine, logger);
  return kernel;
}

export interface Recovered {
  recovery: RecoveryReport;
  loop: BotLoop;
  privateStream?: PrivateStreamWiring;
}

/** Brackets, the private stream, the journal's orders recovered, risk watches, market events, the loop and its first account read. */
export async function recover(s: StartScope, c: Connection, a: Assembly): Promise<Recovered> {
  const { config, clock, logger, life, startup } = s;
  const { kernel, market, journal } = a;
  const { engine, portfolio } = kernel;
  const venueFor = (account: string) => kernel.venueFor(account);
  // Brackets are loaded before recovery, whose fills they must see. A paper run starts a fresh
  // exchange, where the old brackets' children do not exist.
  if (config.mode === 'paper') kernel.brackets.reset();
  // Live mode with a stream key: order updates and fills by the private stream, polling as a safety net.
  const privateStream = startPrivateStream({ config, baseUrl: c.x.baseUrl, engine, portfolio, clock, logger });
  if (privateStream) life.add('private stream', privateStream);
  const recovery = await recoverOrders({
    journal,
    engine,
    clock,
    venueFor: startupVenues(startup, venueFor, ['getOrder', 'openOrders']),
    logger,
    prefixes: config.strategies.map((s) => s.clientIdPrefix),
    strategyOfPrefix: (p) => config.strategies.find((s) => s.clientIdPrefix === p)?.name,
    // Live: positions are rebuilt from the journal's fills. Paper starts a fresh paper exchange, so
    // restored positions would not match its balances.
    ...(config.mode === 'live' ? { portfolio, orderHistory: (q: { page: number; perPage: number }) => startup.call(() => c.x.rest.getOrderHistory(q)) } : {}),
  });
  kernel.brackets.resume();
  // Margin opens of an earlier run left without their answer: matched to the exchange's positions
  // before the first account read, so the strategies see the positions they opened as theirs.
  await reconcileMarginOpens(kernel.owners, startupVenues(startup, venueFor, ['positions']), logger);
  // And while it runs: an open whose answer is lost is its strategy's once an account read shows it.
  kernel.portfolio.onMarginSync((positions, account) => kernel.owners.matchSynced(account, positions));
  life.add('risk watches', { stop: startRiskWatches({ logger, kernel, market, journal, symbols: c.symbols }) });
  wireMarketEvents(market, kernel, a.ports.book);

  const loop = new BotLoop({
    config,
    clock,
    logger,
    core: kernel.core,
    engine,
    risk: kernel.risk,
    portfolio,
    market,
    journal,
    // The first balance sync is a start-up read; the later ones call the venue directly.
    venueFor: startupVenues(startup, venueFor, ['balances', 'positions']),
    symbols: c.symbols,
    reference: a.reference,
    split: a.ports.split,
    mark: (s) => kernel.prices.mark(s),
    equity: () => kernel.equity.sample(),
    value: () => kernel.equity.value(),
    accounts: kernel.accounts,
    priceOf: (asset, ref) => kernel.valuation.price(asset, ref),
    margin: kernel.marginBook,
    brackets: kernel.brackets,
    ...(s.opts.out ? { out: s.opts.out } : {}),
    ...(s.opts.intervals ? { intervals: s.opts.intervals } : {}),
  });
  await loop.syncAccount();
  return { recovery, loop, ...(privateStream ? { privateStream } : {}) };
}

/** How long the stop waits for ended margin positions to be read back before it writes the summary. */
const MARGIN_READ_BACK_MS = 15_000;

/** What the bot's stop() asks of the strategies' stop (unset: a start that failed, nothing cancelled). */
export interface StopRequest {
  asked?: { cancelOrders: boolean; summary: string };
}

/** The declared stops, then the strategies, the market data, the stream, the schedules and the loop. */
export async function begin(s: StartScope, c: Connection, a: Assembly, loop: BotLoop): Promise<StopRequest> {
  const { config, logger, life, startup } = s;
  const { stream, market, kernel } = a;
  const { core, engine } = kernel;
  // Declared before the strategies: they stop after them (a strategy's onStop may still trade on
  // the books and the loop's balances).
  life.add('stream', { stop: () => stream.close() });
  life.add('market data', market);
  life.add('loop', loop);
  // The strategies stop first of the running parts: no new intents, their orders cancelled when
  // asked, the account read once more for the summary.
  // (A start that fails after this point only stops them: no orders cancelled, no account read.)
  const request: StopRequest = {};
  life.add('strategies', {
    stop: async () => {
      // Live: a bracket whose leg the stop cancels (the strategies' onStop or the cancel below) is
      // kept, suspended, and placed again at the next start. A paper run's next start is a fresh
      // exchange that forgets its brackets: they end as any cancel ends them.
      if (request.asked?.cancelOrders && config.mode === 'live') kernel.brackets.stopping();
      await core.stop({ keepOrders: request.asked ? !request.asked.cancelOrders : false });
      await core.idle();
      const stopping = request.asked;
      if (!stopping) return;
      if (stopping.cancelOrders) {
        for (const s of c.symbols) await engine.cancelAll(s);
        await kernel.cancelPendingMargin().catch((err: unknown) => logger.warn({ err }, 'stop: the pending margin openings could not be read or cancelled'));
      }
      await loop.syncAccount().catch(() => undefined);
      // A margin position that ended is read back and booked before the summary lists the trades.
      await kernel.marginBook.idle(MARGIN_READ_BACK_MS);
      stopping.summary = loop.summary();
    },
  });
  await core.start();
  await a.warm.run(core.instances, {
    clock: s.clock,
    logger,
    history: (q) => c.x.rest.getCandles(q),
    onBar: (symbol, bar) => core.onBar(symbol, bar),
  });
  await market.start(c.symbols);
  await stream.connect();
  // The schedules start strategies' handlers: they end before the strategies do.
  life.add('schedules', { stop: startSchedules(config, core, logger) });
  loop.start();
  startup.finish();
  return request;
}
