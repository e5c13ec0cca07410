/**
 * `mizan sim [--port] [--data] [--speed] [--seed]`: the simulated exchange on 127.0.0.1 with its
 * wire server, replaying the bundled market data (or the data folder given), and a funded test
 * account. Prints the REST and stream addresses and the test account's API key, runs until Ctrl-C.
 */
import type { Command } from 'commander';
import type { Logger } from '../core/logger.js';
import { banner, runSim, type RunSimOptions } from './run-sim.js';
import type { PublicRateLimit } from './wire/server.js';

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
