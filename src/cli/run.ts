/**
 * `mizan run <config> [--duration] [--live] [--keep-orders] [--adopt-journal] [--serve [--port N]]`: load and check the
 * config, start the bot, print a status line every few seconds, stop cleanly on Ctrl-C (or SIGTERM,
 * or after --duration) with a summary. A second Ctrl-C forces the exit. With --serve (or a `server:`
 * section in the config) the HTTP + WebSocket API of src/server/ runs in the same process.
 */
import v8 from 'node:v8';
import type { Command } from 'commander';
import { loadChecked } from './check.js';
import type { BotParts, StartInfo } from '../runtime/bot.js';
import type { Notifier } from '../notify/notifier.js';
import { DEFAULT_SERVER_PORT } from '../config/defaults.js';
import type { RunningServer } from '../server/server.js';
import type { BotControlAdapter, DenialLog } from '../server/bot-adapter.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { setProcessLogger } from './process-guard.js';
import { StartAbortedError } from '../runtime/startup-retry.js';

function banner(info: StartInfo): string {
  const lines = [`mizan ${info.mode}: ${info.exchange}`];
  for (const s of info.strategies)
    lines.push(`  strategy ${s.name} (${s.strategy}) on ${s.markets.join(', ')}${s.account !== MAIN_ACCOUNT ? ` [${s.account}]` : ''}`);
  const bal = Object.entries(info.balances)
    .filter(([, b]) => b.value !== '0')
    .map(([a, b]) => `${b.value} ${a}${b.locked !== '0' ? ` (${b.locked} locked)` : ''}`);
  const of = info.accounts.length > 1 ? ` (${info.accounts.join(' + ')})` : '';
  lines.push(`  balances${of} ${bal.join(', ') || 'none'}`);
  const r = info.recovery;
  if (r.closedFromEarlierPaperRun.length) {
    lines.push(`  journal: ${r.closedFromEarlierPaperRun.length} open order(s) of an earlier paper run closed (the paper exchange starts empty each run)`);
  } else if (r.fromJournal || r.orphans.length) {
    lines.push(
      `  recovered ${r.fromJournal} open order(s) from the journal: ${r.resolved} found, ${r.missing.length} missing, ${r.unknown.length} unknown; ${r.orphans.length} orphan(s) adopted`,
    );
  }
  return lines.join('\n') + '\n';
}

export function registerRunCommand(program: Command): void {
  program
    .command('run')
    .description('run the strategies of a config file (paper on the embedded simulator by default)')
    .argument('<config>', 'YAML config file')
    .option('--duration <seconds>', 'stop by itself after this many seconds', (v) => {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new Error(`--duration: "${v}" is not a positive number of seconds`);
      return n;
    })
    .option('--live', 'confirm live trading (the config must also say mode: live)')
    .option('--keep-orders', 'leave open orders on the exchange when stopping')
    .option('--adopt-journal', "bind a journal written with another account (exchange URL or API key) to this run's account instead of refusing to start")
    .option('--serve', `serve the HTTP + WebSocket API (on 127.0.0.1:${DEFAULT_SERVER_PORT} unless the config's server: says otherwise)`)
    .option('--port <port>', 'port of the API (0: any free port); with --serve or a server: section', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--port: "${v}" is not a port number (0 to 65535)`);
      return n;
    })
    .action(async (file: string, o: { duration?: number; live?: boolean; keepOrders?: boolean; serve?: boolean; port?: number; adoptJournal?: boolean }) => {
      // Every problem of the file, its strategies and their parameters at once, before anything starts.
      const { config } = await loadChecked(file);
      // --live confirms a file that says mode: live; on any other file it would be ignored, and a
      // user who typed it believes real orders are going out. Refuse before anything starts.
      if (o.live && config.mode !== 'live') {
        const instead = config.mode === 'backtest' ? `\`mizan backtest ${file}\` runs it` : `drop --live to run it in ${config.mode} mode`;
        throw new Error(
          `--live: ${file} says mode: ${config.mode}, so this run would not trade live. Live trading needs mode: live in the file (with exchange.simulator: false and an API key) and --live on the command line; ${instead}`,
        );
      }
      tuneGcForLongRuns();
      // The bot, the logger and the server are loaded when the command runs, not when `mizan` starts (mizan --help stays quick).
      const [{ startBot }, { loggerFromConfig }, { configSecrets }] = await Promise.all([
        import('../runtime/bot.js'),
        import('../runtime/logger.js'),
        import('../runtime/secrets.js'),
      ]);
      const serve = o.serve === true || config.server !== undefined;
      if (o.port !== undefined && !serve) throw new Error(`--port: the API is not served; add --serve (or a server: section to ${file})`);
      const api = serve
        ? await Promise.all([import('../server/auth.js'), import('../server/log-ring.js'), import('../server/bot-adapter.js'), import('../server/server.js')])
        : undefined;
      // The tokens before the logger: they are secrets it removes from every line.
      const tokens = api ? api[0].resolveTokens(config.server ?? {}, process.env) : undefined;
      const logs = api ? new api[1].LogRing() : undefined;
      const host = config.server?.host ?? '127.0.0.1';
      const port = o.port ?? config.server?.port ?? DEFAULT_SERVER_PORT;
      if (api) {
        await api[3].probeListen(host, port).catch((err: Error) => {
          throw new Error(`server: cannot listen on ${host}:${port} (${err.message}); nothing was started`);
        });
      }
      // Error lines reach the notifier (created after the bot) through the same tap as the API's logs tail.
      let notifyTap: ((line: string) => void) | undefined;
      const tap = logs || config.notifications ? (line: string) => (logs?.push(line), notifyTap?.(line)) : undefined;
      const logger = loggerFromConfig(config, { ...(tokens ? { secrets: [tokens.read, tokens.control] } : {}), ...(tap ? { tap } : {}) });
      // A crash or an exit of the bot's process is logged through it (secrets removed).
      setProcessLogger(logger);
      // Notifications (src/notify/): attached before any strategy starts; background delivery, the trading path only queues.
      const notify = config.notifications ? await import('../notify/notifier.js') : undefined;
      let notifier: Notifier | undefined;
      // The API's list of denials starts with the bot's parts, before any strategy starts (an intent
      // denied in onStart or on the first candle is listed too).
      let early: DenialLog | undefined;
      // Ctrl-C or SIGTERM during the start: before any strategy starts the start ends and closes what
      // it built; after, the bot it returns is stopped as usual (strategies may have placed orders).
      const starting = new AbortController();
      let stopRunning: ((why: string) => Promise<void>) | undefined;
      const onSignal = (why: string) => {
        if (stopRunning) return void stopRunning(why);
        if (starting.signal.aborted) {
          process.stderr.write('\nmizan: second signal, exiting now\n');
          process.exit(130);
        }
        process.stdout.write(`\nmizan: stopping (${why}) once the start-up step under way ends…\n`);
        starting.abort(why);
      };
      process.on('SIGINT', () => onSignal('Ctrl-C'));
      process.on('SIGTERM', () => onSignal('SIGTERM'));
      const bot = await startBot(config, {
        signal: starting.signal,
        live: o.live === true,
        logger,
        adoptJournal: o.adoptJournal === true,
        ...(tokens ? { secrets: [tokens.read, tokens.control] } : {}),
        ...(api || (notify && config.notifications)
          ? {
              attach: (parts: BotParts) => {
                if (api) early = new api[2].DenialLog(parts);
                if (notify && config.notifications) {
                  notifier = notify.startNotifier(parts, config.notifications, { logger, secrets: configSecrets(config, [tokens?.read, tokens?.control]) });
                  notifyTap = (line) => notifier?.onLogLine(line);
                }
              },
            }
          : {}),
        beforeStart: async (info) => {
          process.stdout.write(banner(info));
          if (info.mode === 'live') process.stdout.write('  LIVE: orders go to the exchange with real money. Ctrl-C stops.\n');
        },
      }).catch(async (err: unknown) => {
        await notifier?.close(0);
        if (err instanceof StartAbortedError) {
          process.stdout.write(`mizan: ${err.message}\n`);
          process.exit(0);
        }
        throw err;
      });
      let server: RunningServer | undefined;
      let control: BotControlAdapter | undefined;
      if (api && tokens && logs) {
        control = api[2].botControl(bot, logs, undefined, early);
        try {
          server = await api[3].startServer({
            control,
            tokens,
            host,
            port,
            origins: config.server?.origins ?? [],
            ...(config.server
              ? {
                  trustProxy: config.server.trustProxy,
                  maxWebSocketClients: config.server.maxWebSocketClients,
                  headersTimeoutMs: config.server.headersTimeoutMs,
                  requestTimeoutMs: config.server.requestTimeoutMs,
                }
              : {}),
            logger,
            secrets: configSecrets(config, [bot.embedded?.account.apiKey]),
          });
        } catch (err) {
          control.close();
          await bot.stop({ cancelOrders: !o.keepOrders });
          await notifier?.close(0);
          throw new Error(`server: cannot listen on ${host}:${port} (${(err as Error).message}); the bot was stopped`);
        }
        // Printed here once, never logged: the logger removes the tokens from every line.
        const lines = [
          `  dashboard: ${server.url}/ (open it in a browser; it asks for a token below)`,
          `  API on ${server.url}/api/v1/ (Authorization: Bearer <token>)`,
        ];
        if (tokens.generated.includes('read'))
          lines.push(`  read-only token (generated, shown once; set ${api[0].TOKEN_ENV.read} to choose one): ${tokens.read}`);
        if (tokens.generated.includes('control'))
          lines.push(`  control token (generated, shown once; set ${api[0].TOKEN_ENV.control} to choose one): ${tokens.control}`);
        process.stdout.write(lines.join('\n') + '\n');
        logger.info({ url: server.url }, 'api: listening');
        if (!['127.0.0.1', '::1', 'localhost'].includes(host))
          logger.warn(
            { host },
            'api: listening beyond this machine without TLS: tokens cross the network in clear; put a TLS reverse proxy in front (see docs/api-and-dashboard.md)',
          );
      }
      let stopping = false;
      const stop = async (why: string) => {
        if (stopping) {
          process.stderr.write('\nmizan: second signal, exiting now\n');
          process.exit(130);
        }
        stopping = true;
        process.stdout.write(`\nmizan: stopping (${why})…\n`);
        await server?.close().catch(() => undefined);
        control?.close();
        const text = await bot.stop({ cancelOrders: !o.keepOrders });
        await notifier?.close();
        process.stdout.write(text);
        process.exit(0);
      };
      stopRunning = stop;
      if (starting.signal.aborted) void stop(String(starting.signal.reason));
      // The kill switch as a signal: halt (only cancels pass; open orders are cancelled).
      process.on('SIGUSR2', () => bot.risk.halt('kill switch (SIGUSR2)'));
      if (o.duration) setTimeout(() => void stop(`--duration ${o.duration}s`), o.duration * 1000);
      await new Promise<never>(() => {});
    });
}

/** The old generation may grow to its live size × (1 + this / 100) before a full collection. */
const RUN_HEAP_GROWING_PERCENT = 20;

/**
 * A running bot promotes ~1 MB/s of short-lived objects (the replay's book events live ~1 s in its
 * time-ordering window, and young collections come every ~0.65 s at ~20 MB/s allocated), and V8 let
 * the old generation grow to ~4× its ~50 MB live size before a full collection: RSS swung between
 * ~190 and ~340 MB (bench/soak.ts measures it). With growth capped at 20 % the full
 * collections come every few seconds instead and RSS stays near its start. Set for `mizan run`
 * only: a backtest, which lives for seconds, keeps V8's default (fewer full collections).
 */
function tuneGcForLongRuns(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${RUN_HEAP_GROWING_PERCENT}`);
}
