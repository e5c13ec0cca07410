/**
 * Market-data commands of `mizan`:
 *   mizan book <symbol> [--url] [--depth N] [--transport ws|socketio|auto] [--protocol 3|4] [--once] [--timeout S]
 *   mizan candles <symbol> --resolution R --from F --to T [--out file.csv] [--url] [--cache dir]
 *   mizan markets [--url] [--filter TEXT]
 * Every command talks to the exchange given by `--url` (default https://api.wallex.ir; the
 * simulator of `mizan sim` is e.g. http://127.0.0.1:PORT).
 */
import type { Command } from 'commander';
import type { Resolution } from '../core/types/market.js';
import { resolveDeps, type MarketCommandDeps } from './market/deps.js';
import { DEFAULT_EXCHANGE_URL, intOption, protocolOption, resolutionOption, transportOption, symbolArgument, timeOption, urlOption } from './market/options.js';

export type { MarketCommandDeps } from './market/deps.js';

export function registerMarketCommands(program: Command, deps: MarketCommandDeps = {}): Command {
  const d = () => resolveDeps(deps);

  program
    .command('book')
    .description('live top-of-book view of one market (REST snapshot + stream, with book health)')
    .argument('<symbol>', 'market, e.g. BTCTMN', symbolArgument)
    .option('--url <url>', 'exchange or simulator address', urlOption, DEFAULT_EXCHANGE_URL)
    .option('--depth <n>', 'levels shown per side', intOption('depth', 1, 50), 10)
    .option(
      '--transport <ws|socketio|auto>',
      'stream route: the plain WebSocket at /ws, socket.io, or auto (ws, socket.io when /ws cannot connect)',
      transportOption,
      'auto' as const,
    )
    .option('--protocol <3|4>', 'socket.io protocol of the stream', protocolOption, 4 as 3 | 4)
    .option('--once', 'print one snapshot (once the book is healthy) and exit', false)
    .option('--timeout <seconds>', 'with --once: longest wait for a healthy book', intOption('timeout', 1, 600), 15)
    .action(
      async (symbol: string, o: { url: string; depth: number; transport: 'ws' | 'socketio' | 'auto'; protocol: 3 | 4; once: boolean; timeout: number }) => {
        // Each command's code is loaded when it runs, not when `mizan` starts (mizan --help stays quick).
        const { runBook } = await import('./market/book-command.js');
        await runBook({ symbol, url: o.url, depth: o.depth, transport: o.transport, protocol: o.protocol, once: o.once, timeoutSec: o.timeout }, d());
      },
    );

  program
    .command('candles')
    .description('download candle history to CSV (time,open,high,low,close,volume), cached on disk')
    .argument('<symbol>', 'market, e.g. BTCTMN', symbolArgument)
    .requiredOption('--resolution <r>', 'candle length: minutes (1, 15, 60, 180, 240, ...) or D, 1D, 2D, 3D', resolutionOption)
    .requiredOption('--from <time>', 'start, inclusive: Unix seconds or ISO 8601 (UTC unless zoned)', timeOption('from'))
    .requiredOption('--to <time>', 'end, exclusive (the candles before it): Unix seconds or ISO 8601', timeOption('to'))
    .option('--out <file>', 'CSV file to write (default: standard output)')
    .option('--url <url>', 'exchange or simulator address', urlOption, DEFAULT_EXCHANGE_URL)
    .option('--cache <dir>', 'candle cache directory (default backtest/data/cache)')
    .action(async (symbol: string, o: { resolution: Resolution; from: number; to: number; out?: string; url: string; cache?: string }) => {
      const { runCandles } = await import('./market/candles-command.js');
      await runCandles(
        { symbol, url: o.url, resolution: o.resolution, from: o.from, to: o.to, ...(o.out ? { out: o.out } : {}), ...(o.cache ? { cacheDir: o.cache } : {}) },
        d(),
      );
    });

  program
    .command('markets')
    .description('markets with their limits (step, tick, min/max quantity, min notional) and fees (WALLEX_API_KEY)')
    .option('--url <url>', 'exchange or simulator address', urlOption, DEFAULT_EXCHANGE_URL)
    .option('--filter <text>', 'only symbols containing this text')
    .action(async (o: { url: string; filter?: string }) => {
      const { runMarkets } = await import('./market/markets-command.js');
      await runMarkets({ url: o.url, ...(o.filter ? { filter: o.filter } : {}) }, d());
    });

  return program;
}
