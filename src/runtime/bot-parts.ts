/**
 * The parts `startBot` (bot.ts) assembles, one function per choice a mode makes: where the exchange
 * is (the embedded simulator or a remote one), which venue trades (paper or the REST API, per
 * account), the journal bound to this account, and the market views and events the kernel reads.
 * Each part that must be ended is added to the bot's Lifecycle as it starts.
 */
import type { Clock } from '../core/clock.js';
import { Decimal } from '../core/decimal.js';
import type { Logger } from '../core/logger.js';
import type { BookView, MarketView } from '../core/views.js';
import type { MizanConfig } from '../config/schema.js';
import { WallexRestClient } from '../exchange/rest/client.js';
import type { Venue } from '../execution/venue.js';
import type { MarketDataEngine } from '../market/engine.js';
import type { MarketCatalog } from '../market/market-catalog.js';
import { runSim, type RunningSim } from '../sim/run-sim.js';
import { Journal } from '../store/journal.js';
import { bindJournal, exchangeIdentity, keyFingerprint } from '../store/binding.js';
import { RestVenue } from '../venues/rest-venue.js';
import { MAIN_ACCOUNT, subAccountId } from '../core/account.js';
import { configSecrets } from './secrets.js';
import type { Lifecycle } from './lifecycle.js';
import { createPaperVenue, type PaperVenue } from './paper.js';
import { marketFees } from './market-fees.js';
import { bookView, marketView } from './views.js';

/** What the caller of startBot chooses about these parts (bot.ts BotOptions extends it). */
export interface AssemblyOptions {
  /** Embedded simulator overrides (tests): port, fixed API key, replay on or off. */
  sim?: { port?: number; apiKey?: string; replay?: boolean };
  /** Secrets of this process beyond the config's (generated API tokens): never written to the journal. */
  secrets?: readonly string[];
  /** `--adopt-journal`: a journal bound to another account is bound to this one (logged) instead of refused. */
  adoptJournal?: boolean;
}

export interface ExchangeConnection {
  rest: WallexRestClient;
  baseUrl: string;
  apiKey: string | undefined;
  embedded?: RunningSim;
}

/** The exchange: the embedded simulator (`exchange.simulator`) or the configured one, and its REST client. */
export async function connectExchange(config: MizanConfig, opts: AssemblyOptions, logger: Logger, life: Lifecycle): Promise<ExchangeConnection> {
  let embedded: RunningSim | undefined;
  let baseUrl = config.exchange.baseUrl;
  let apiKey = config.exchange.apiKey;
  if (config.exchange.simulator) {
    embedded = life.add(
      'embedded simulator',
      await runSim({
        seed: config.simulator.seed,
        speed: config.simulator.speed,
        ...(config.simulator.data ? { data: config.simulator.data } : {}),
        logger: logger.child({ component: 'sim' }),
        ...(opts.sim?.port !== undefined ? { port: opts.sim.port } : {}),
        ...(opts.sim?.apiKey ? { apiKey: opts.sim.apiKey } : {}),
        ...(opts.sim?.replay !== undefined ? { replay: opts.sim.replay } : {}),
      }),
    );
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
  return { rest, baseUrl, apiKey, ...(embedded ? { embedded } : {}) };
}

/** The journal, bound to this exchange and key: another account's journal is refused (store/binding.ts). */
export function openBotJournal(config: MizanConfig, opts: AssemblyOptions, x: ExchangeConnection, clock: Clock, logger: Logger, life: Lifecycle): Journal {
  const journal = Journal.open(config.journal.file, {
    clock,
    logger,
    checkpoint: 'background',
    secrets: configSecrets(config, [...(opts.secrets ?? []), x.embedded?.account.apiKey]),
  });
  life.add('journal', { stop: () => journal.close() });
  const identity =
    config.mode === 'paper'
      ? { exchange: 'paper' }
      : { exchange: exchangeIdentity(x.baseUrl), ...(x.apiKey ? { keyFingerprint: keyFingerprint(x.apiKey) } : {}) };
  bindJournal(journal, identity, { adopt: opts.adoptJournal === true, logger, now: clock.now() });
  return journal;
}

export interface BotVenues {
  /** The main account's venue. */
  venue: Venue;
  /** The venue of an account: the main one, or a trading-credit account's own (its key, its header). */
  venueFor(account: string): Venue;
  paper?: PaperVenue;
}

/** Paper: one simulated account following the market; live: the REST API, one venue per account. */
export function buildVenues(
  config: MizanConfig,
  x: ExchangeConnection,
  catalog: MarketCatalog,
  market: MarketDataEngine,
  clock: Clock,
  logger: Logger,
  life: Lifecycle,
  firstMarginId?: number,
): BotVenues {
  if (config.mode === 'paper') {
    const paper = createPaperVenue({
      clock,
      logger,
      ...(firstMarginId !== undefined ? { firstMarginId } : {}),
      markets: catalog.list(),
      balances: config.paper.balances,
      ...(config.paper.fees ? { fees: config.paper.fees } : {}),
      seed: config.simulator.seed,
    });
    paper.follow(market);
    life.add('paper venue', { stop: () => paper.detach() });
    return { venue: paper.venue, venueFor: () => paper.venue, paper };
  }
  const venue = new RestVenue(x.rest);
  const subVenues = new Map<string, Venue>();
  return {
    venue,
    venueFor: (account) => {
      if (account === MAIN_ACCOUNT) return venue;
      let v = subVenues.get(account);
      if (!v) {
        v = new RestVenue(x.rest.withSubAccount(subAccountId(account)!, config.accounts[account]?.apiKey));
        subVenues.set(account, v);
      }
      return v;
    },
  };
}

export interface MarketPorts {
  split(symbol: string): { base: string; quote: string };
  market(symbol: string): MarketView | undefined;
  book(symbol: string): BookView | undefined;
  minSellable(symbol: string): Decimal | undefined;
}

/**
 * What the kernel reads of the markets: instruments from the catalog only (never a symbol's
 * suffix), limits with the exchange's fees (or paper.fees: a traded market without one stops the
 * start, runtime/market-fees.ts), and one view per local book (it reads the live book, so it is
 * built once, not per event).
 */
export function marketPorts(config: MizanConfig, catalog: MarketCatalog, market: MarketDataEngine, symbols: readonly string[]): MarketPorts {
  const feesOf = marketFees(config, catalog, [...symbols]);
  const views = new Map<string, BookView>();
  return {
    split: (s) => {
      const m = catalog.get(s);
      return { base: m.baseAsset, quote: m.quoteAsset };
    },
    market: (s) => {
      if (!catalog.has(s)) return undefined;
      const f = feesOf(s);
      return f ? marketView(catalog.get(s), f) : undefined;
    },
    book: (s) => {
      let v = views.get(s);
      if (!v && market.symbols().includes(s)) {
        v = bookView(s, market.book(s), () => market.health(s));
        views.set(s, v);
      }
      return v;
    },
    minSellable: (s) => (catalog.has(s) ? Decimal.max(catalog.get(s).minQty, catalog.get(s).qtyStep) : undefined),
  };
}
