/**
 * `mizan sim [--port] [--data] [--speed] [--seed]`: the simulated exchange on 127.0.0.1 with its
 * wire server, replaying the bundled market data (or the data folder given), and a funded test
 * account. Prints the REST and stream addresses and the test account's API key, runs until Ctrl-C.
 */
import type { Command } from 'commander';
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
      const desks = wiring.createSimDesks(sim, { logger });
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

function intOption(name: string, min: number, max: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    return n;
  };
}

/** `--public-rate-limit <calls>/<seconds>`, e.g. `10/1`. */
function publicRateOption(raw: string): PublicRateLimit {
  const m = /^(\d+)\/(\d+(?:\.\d+)?)$/.exec(raw.trim());
  const limit = m ? Number(m[1]) : NaN;
  const seconds = m ? Number(m[2]) : NaN;
  if (!m || !Number.isInteger(limit) || limit < 1 || !(seconds > 0)) {
    throw new Error(`--public-rate-limit must be <calls>/<seconds> with calls >= 1 and seconds > 0 (e.g. 10/1), got ${JSON.stringify(raw)}`);
  }
  return { limit, windowMs: seconds * 1000 };
}

function speedOption(raw: string): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`--speed must be a number >= 0 (0: as fast as possible), got ${JSON.stringify(raw)}`);
  return n;
}

export interface SimCommandDeps {
  write?: (s: string) => void;
  logger?: Logger;
  /** Extra routes for the wire server (e.g. modules added later). */
  routes?: RunSimOptions['routes'];
}

export function registerSimCommand(program: Command, deps: SimCommandDeps = {}): Command {
  const write = deps.write ?? ((s: string) => void process.stdout.write(s));
  return program
    .command('sim')
    .description(
      'run the simulated exchange (REST, and the stream on the plain WebSocket /ws and socket.io, on 127.0.0.1) with replayed market data and a funded test account',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', intOption('port', 0, 65535), 0)
    .option('--data <dir>', 'folder of replay data (default: the bundled backtest/data)')
    .option('--speed <factor>', 'replay speed: 1 real time, N times faster, 0 as fast as possible', speedOption, 1)
    .option('--seed <n>', 'seed of every id and random choice', intOption('seed', 0, 2 ** 31 - 1), 1)
    .option('--no-replay', 'serve the seeded starting books without replaying data')
    .option('--no-ws', 'serve the stream on socket.io only (no plain WebSocket at /ws)')
    .option('--max-channels <n>', "channels one stream connection may subscribe (the exchange's guidance: about 50)", intOption('max-channels', 1, 10_000), 50)
    .option(
      '--public-rate-limit <calls/seconds>',
      'limit public market-data calls per caller IP, e.g. 10/1 (default: no limit); over it: 429 with Retry-After',
      publicRateOption,
    )
    .action(
      async (o: {
        port: number;
        data?: string;
        speed: number;
        seed: number;
        replay: boolean;
        ws: boolean;
        maxChannels: number;
        publicRateLimit?: PublicRateLimit;
      }) => {
        const running = await runSim({
          port: o.port,
          stream: { ...(o.ws ? {} : { ws: false }), maxChannelsPerConnection: o.maxChannels },
          ...(o.publicRateLimit ? { publicRateLimit: o.publicRateLimit } : {}),
          speed: o.speed,
          seed: o.seed,
          replay: o.replay,
          ...(o.data ? { data: o.data } : {}),
          ...(deps.logger ? { logger: deps.logger } : {}),
          ...(deps.routes ? { routes: deps.routes } : {}),
        });
        write(banner(running));
        await new Promise<void>((resolve) => {
          const onSignal = () => {
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
            resolve();
          };
          process.on('SIGINT', onSignal);
          process.on('SIGTERM', onSignal);
        });
        await running.stop();
        write('mizan sim: stopped\n');
      },
    );
}
