/**
 * The composition root of live and paper trading: the one place that chooses their ports (the
 * exchange and its stream, the venues, the clock and the timers) and starts them, phase by phase
 * (bot-phases.ts): config and strategies are checked before anything connects; then the exchange
 * (embedded simulator or remote) and the market catalog; the journal, the venues and the kernel;
 * the recovery and the first account read; the strategies, and market data last, so no event
 * reaches a strategy before it exists.
 */
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { MizanConfig } from '../config/schema.js';
import type { StreamClient } from '../exchange/stream/client.js';
import type { ExecutionEngine } from '../execution/engine.js';
import type { Venue } from '../execution/venue.js';
import type { MarketDataEngine } from '../market/engine.js';
import type { MarketCatalog } from '../market/market-catalog.js';
import type { PlotRing } from './plot-ring.js';
import type { Portfolio } from '../portfolio/portfolio.js';
import type { RiskEngine } from '../risk/engine.js';
import type { Journal } from '../store/journal.js';
import type { RecoveryReport } from './recovery.js';
import type { TradingCore } from '../kernel/trading-core.js';
import type { TradingKernel } from '../kernel/kernel.js';
import type { BotLoop } from './bot-loop.js';
import type { PrivateStreamWiring } from './private-stream.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import type { AssemblyOptions } from './bot-parts.js';
import type { PaperVenue } from './paper.js';
import type { RunningSim } from '../sim/run-sim.js';
import {
  type Assembly,
  type Connection,
  type Recovered,
  type StartScope,
  type StopRequest,
  assemble,
  begin,
  checkBeforeConnecting,
  connect,
  recover,
  startScope,
} from './bot-phases.js';

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
  /** The balances of every account the bot trades, added up (the equity the protections watch). */
  balances: Record<string, { value: string; locked: string }>;
  /** Those accounts: the main one, then the strategies' trading-credit accounts. */
  accounts: readonly string[];
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
  const instances = await checkBeforeConnecting(config, opts.live);
  const s = startScope(config, opts);
  try {
    const c = await connect(s, instances);
    const a = assemble(s, instances, c);
    const r = await recover(s, c, a);
    s.startup.checkAborted();
    const { core, engine, risk } = a.kernel;
    opts.attach?.({ config, core, engine, risk, market: a.market, stream: a.stream, journal: a.journal, loop: r.loop });
    const { baseUrl, embedded } = c.x;
    await opts.beforeStart?.({
      mode: config.mode,
      exchange: embedded ? `embedded simulator at ${baseUrl} (${embedded.feed})` : baseUrl,
      strategies: instances.map((i) => ({ name: i.name, strategy: i.definition.name, markets: i.markets, account: i.account })),
      balances: a.kernel.equity.value().balances,
      accounts: a.kernel.accounts,
      recovery: r.recovery,
    });
    // A stop asked for from here on is the running bot's stop(): strategies may place orders in onStart.
    s.startup.checkAborted();
    return runningBot(s, c, a, r, await begin(s, c, a, r.loop));
  } catch (err) {
    await s.life.stop();
    throw err;
  }
}

/** The started bot: its parts, and a stop that ends them (and, when asked, the strategies' orders). */
function runningBot(s: StartScope, c: Connection, a: Assembly, r: Recovered, request: StopRequest): Bot {
  const { kernel } = a;
  const { embedded } = c.x;
  let stopped: Promise<string> | undefined;
  return {
    config: s.config,
    kernel,
    core: kernel.core,
    engine: kernel.engine,
    risk: kernel.risk,
    portfolio: kernel.portfolio,
    market: a.market,
    stream: a.stream,
    journal: a.journal,
    venue: kernel.venueFor(MAIN_ACCOUNT),
    loop: r.loop,
    recovery: r.recovery,
    catalog: c.catalog,
    plots: a.plots,
    ...(embedded ? { embedded } : {}),
    ...(a.paper ? { paper: a.paper } : {}),
    ...(r.privateStream ? { privateStream: r.privateStream } : {}),
    stop(o = {}) {
      // Every part, last declared first (lifecycle.ts): the schedules, the strategies (and their
      // orders), the loop, the market data, the stream, the kernel, the journal, the exchange.
      stopped ??= (async () => {
        const asked = (request.asked = { cancelOrders: o.cancelOrders ?? true, summary: '' });
        await s.life.stop();
        return asked.summary;
      })();
      return stopped;
    },
  };
}
