/**
 * The simulated exchange on 127.0.0.1 (what `mizan sim` starts, and what tests, the paper bot's
 * built-in simulator and `mizan record --sim` start in process): the simulator with its wire server,
 * replaying the bundled market data (or the data folder given), a funded test account, and the banner
 * that tells a user where it listens. The `mizan sim` command itself is in cli-command.ts.
 */
import { randomUUID } from 'node:crypto';
import { SystemClock, type Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/logger.js';
import { createDefaultSimulator, createTestAccount, TEST_BALANCES, type TestAccount } from './default.js';
import type { SimulatedExchange } from './exchange.js';
import type { FaultConfig } from './faults.js';
import type { PublicRateLimit, WireServer } from './wire/server.js';
import type { Route } from './wire/route.js';
import type { StreamServeOptions } from './wire/stream.js';

export interface RunSimOptions {
  port?: number;
  host?: string;
  /** Folder of replay data (default: the bundled `backtest/data`). */
  data?: string;
  /** Replay speed: 1 real time, N times faster, 0 as fast as possible. */
  speed?: number;
  seed?: number;
  /** Replay at all (default true). Without it the books keep their seeded starting state. */
  replay?: boolean;
  /** Fixed API key of the test account (default: drawn from the seed). */
  apiKey?: string;
  /** Fixed stream key of the test account's private channel (default: random). */
  streamKey?: string;
  clock?: Clock;
  logger?: Logger;
  /** More routes, or a factory given the simulator (added after the desks' routes). */
  routes?: Route[] | ((sim: SimulatedExchange) => Route[]);
  /** Serve margin, instant, trading credit, withdrawals and profile through their desks (default true). */
  desks?: boolean;
  faults?: FaultConfig;
  /** The stream's routes and limits (`ws: false` serves socket.io only). */
  stream?: StreamServeOptions;
  /** Limit on public market-data calls per caller IP (default: none). */
  publicRateLimit?: PublicRateLimit;
}

export interface RunningSim {
  sim: SimulatedExchange;
  server: WireServer;
  account: TestAccount;
  /** The test account's private-channel key (the real exchange's web-login `stream_key`). */
  streamKey: string;
  /** How the books are fed: a description for the banner. */
  feed: string;
  stop(): Promise<void>;
}

export async function runSim(opts: RunSimOptions = {}): Promise<RunningSim> {
  const clock = opts.clock ?? new SystemClock();
  const logger = opts.logger ?? silentLogger;
  const seed = opts.seed ?? 1;
  const wantReplay = opts.replay ?? true;
  let stopReplay: (() => void) | undefined;
  let feed = 'no replay: the books keep their seeded starting state';
  let sim: SimulatedExchange | undefined;
  if (wantReplay) {
    try {
      const replay = await import('./replay/index.js');
      const sources = replay.defaultReplaySources(opts.data, { seed });
      sim = createDefaultSimulator({ clock, seed, logger, seedBooks: false });
      const handle = replay.startReplay({ sim, sources, speed: opts.speed ?? 1, clock, loop: true, timeBase: 'clock', prime: true, logger });
      handle.done.catch((err: unknown) => logger.error({ err }, 'replay stopped'));
      stopReplay = () => handle.stop();
      feed = `replaying ${opts.data ?? 'the bundled data'} at speed ${opts.speed ?? 1} (looping)`;
    } catch (err) {
      logger.warn({ err }, 'replay data could not be loaded; serving the seeded starting books');
      feed = `replay unavailable (${err instanceof Error ? err.message : String(err)}): the books keep their seeded starting state`;
      sim = undefined;
    }
  }
  sim ??= createDefaultSimulator({ clock, seed, logger });
  const account = createTestAccount(sim, opts.apiKey ? { apiKey: opts.apiKey } : {});
  const routes: Route[] = [];
  const adminRoutes: Route[] = [];
  let detachDesks: (() => void) | undefined;
  let resolveSubAccount: ((a: string, c: string) => string) | undefined;
  if (opts.desks ?? true) {
    try {
      const wiring = await import('./margin/wiring.js');
      // Instant order ids unique to this process: two `mizan sim` runs never make the same one.
      const desks = wiring.createSimDesks(sim, { logger, idNonce: randomUUID() });
      routes.push(...desks.routes);
      adminRoutes.push(...desks.adminRoutes);
      detachDesks = () => desks.detach();
      resolveSubAccount = desks.resolveSubAccount;
    } catch (err) {
      logger.warn({ err }, 'margin / instant / trading-credit / withdrawal desks could not be loaded; their endpoints answer 501');
    }
  }
  if (opts.routes) routes.push(...(typeof opts.routes === 'function' ? opts.routes(sim) : opts.routes));
  // The HTTP and socket.io server is loaded here, not when `mizan` starts (mizan --help stays quick).
  const { createWireServer } = await import('./wire/server.js');
  const server = await createWireServer({
    sim,
    port: opts.port ?? 0,
    logger,
    routes,
    adminRoutes,
    ...(resolveSubAccount ? { resolveSubAccount } : {}),
    ...(opts.host ? { host: opts.host } : {}),
    ...(opts.faults ? { faults: opts.faults } : {}),
    ...(opts.stream ? { stream: opts.stream } : {}),
    ...(opts.publicRateLimit ? { publicRateLimit: opts.publicRateLimit } : {}),
  });
  const streamKey = server.streamKeys.issue(account.accountId, opts.streamKey);
  return {
    sim,
    server,
    account,
    streamKey,
    feed,
    async stop() {
      stopReplay?.();
      detachDesks?.();
      await server.close();
    },
  };
}

export function banner(r: RunningSim): string {
  const funds = Object.entries(TEST_BALANCES)
    .map(([a, v]) => `${v} ${a}`)
    .join(', ');
  return [
    'mizan sim: a simulated Wallex exchange on this machine (no real exchange is contacted)',
    `  REST     ${r.server.url}`,
    `  stream   ${r.server.streamUrl}  (socket.io, path /socket.io, protocols 3 and 4)`,
    r.server.wsUrl ? `  ws       ${r.server.wsUrl}  (plain WebSocket, JSON array frames)` : '  ws       not served (--no-ws)',
    `  API key  ${r.account.apiKey}  (account "${r.account.accountId}", read + trade: ${funds})`,
    `  private  stream key ${r.streamKey}  (channels <key> and <key>@tradeDetails; POST /__sim/stream-key for other accounts)`,
    `  markets  ${r.sim
      .markets()
      .map((m) => m.symbol)
      .join(', ')}`,
    `  data     ${r.feed}`,
    `  faults   POST ${r.server.url}/__sim/faults`,
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
