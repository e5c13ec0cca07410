/**
 * `mizan backtest <config> [--from] [--to] [--data] [--out]` and
 * `mizan sweep <config> --param fast=5..30:5 [--param …] [--metric sharpe] [--workers N | --queue redis://…] [--out sweep.csv]`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { writePieces } from './write-pieces.js';
import type { Command } from 'commander';
import type { WallexRestClient } from '../exchange/rest/client.js';
import type { MizanConfig } from '../config/schema.js';
import type { MetricKey, MetricUnit } from '../backtest/metrics/index.js';

type StartModule = typeof import('./backtest-start.js');
/**
 * What `mizan backtest` needs before its first candle (backtest-start.ts): the config loader, the
 * logger, the run and the progress bar. The REST client (ky) only when the config fetches candles or
 * reads the account's fees; the report's code after the run, and only with --out (the time to the
 * first candle: docs/benchmarks.md, `e2e`).
 */
const importStart = (): Promise<StartModule> => import('./backtest-start.js');

/** The commands' code, loaded when a command runs, not when `mizan` starts (mizan --help stays quick). */
async function load(loadStart: () => Promise<StartModule>) {
  const [start, rest, metrics, report, result, sweep, breakdowns] = await Promise.all([
    loadStart(),
    import('../exchange/rest/client.js'),
    import('../backtest/metrics/index.js'),
    import('../backtest/report-html.js'),
    import('../backtest/result.js'),
    import('../backtest/sweep.js'),
    import('../backtest/breakdowns.js'),
  ]);
  const [objectives, constraint] = await Promise.all([import('../optimize/objectives.js'), import('../optimize/constraint.js')]);
  return {
    cliProgress: start.cliProgress,
    loadConfig: start.loadConfig,
    createLogger: start.createLogger,
    WallexRestClient: rest.WallexRestClient,
    ...start.feesModule,
    ...metrics,
    ...report,
    ...result,
    ...start.runModule,
    ...sweep,
    paintFor: breakdowns.paintFor,
    parseObjective: objectives.parseObjective,
    checkObjectiveSpan: objectives.checkObjectiveSpan,
    constrainCombos: constraint.constrainCombos,
  };
}

type Loaded = Awaited<ReturnType<typeof load>>;

export function parseTime(v: string, flag: string): number {
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (!Number.isFinite(ms)) throw new Error(`${flag} ${JSON.stringify(v)}: expected YYYY-MM-DD, an ISO time, or Unix seconds`);
  return ms;
}

/** The exchange's REST client with the config's key (for `fees: account`, an account endpoint). */
function restClientOf(m: Pick<Loaded, 'WallexRestClient'>, config: MizanConfig): WallexRestClient {
  return new m.WallexRestClient({
    baseUrl: config.exchange.baseUrl,
    timeoutMs: config.exchange.timeoutMs,
    ...(config.exchange.apiKey ? { apiKey: config.exchange.apiKey } : {}),
  });
}

/** Whether a backtest of this config talks to the exchange (candles to fetch, or the account's fee rates to read). */
function needsExchange(config: MizanConfig): boolean {
  const bt = config.backtest;
  return bt !== undefined && ((bt.fees === 'account' && !bt.accountFees) || bt.data.some((d) => d.fetch === true));
}

async function backtestConfig(m: Pick<Loaded, 'loadConfig'>, file: string): Promise<MizanConfig> {
  const config = await m.loadConfig(file);
  if (!config.backtest) throw new Error(`${file}: no backtest section (data, from, to)`);
  return config;
}

const METRIC_NAMES = 'sharpe, sortino, calmar, return, cagr, profit-factor, expectancy, sqn, win-rate, drawdown';

/**
 * `mizan backtest` and `mizan sweep` on `program`. `loadStart`: how the commands get backtest-start.ts
 * (by default a dynamic import when a command runs; the bundled `mizan backtest` hands over its
 * statically imported copy).
 */
export function registerBacktestCommands(program: Command, loadStart: () => Promise<StartModule> = importStart): void {
  program
    .command('backtest')
    .description('run the strategies of a config on historical candles')
    .argument('<config>', 'YAML config with a backtest section')
    .option('--from <time>', 'start (YYYY-MM-DD, ISO time or Unix seconds)')
    .option('--to <time>', 'end, exclusive')
    .option('--data <dir>', 'directory relative data paths are read from')
    .option('--out <dir>', 'write result.json and report.html here')
    .option('--allow-errors', 'exit with code 0 even when a strategy handler threw (backtest.allowErrors)')
    .action(async (file: string, o: { from?: string; to?: string; data?: string; out?: string; allowErrors?: boolean }) => {
      const m = await loadStart();
      const loaded = await backtestConfig(m, file);
      const rest = needsExchange(loaded) ? await import('../exchange/rest/client.js') : undefined;
      // fees: account: the account's rates, read once before the run (the key goes only into x-api-key).
      const config = await m.resolveAccountFees(loaded, () => restClientOf(rest!, loaded));
      // The real logger, as `mizan run` builds it (logging.level, logging.pretty, secrets redacted), on
      // stderr: stdout carries the summary. ctx.log, risk denials and handler errors reach it.
      // Each line carries the simulated time it was written at (`at`), once the run's clock exists.
      let simClock: { now(): number } | undefined;
      const { configSecrets, scrub } = m;
      const secrets = configSecrets(config);
      const logger = m.createLogger({
        mixin: () => (simClock ? { at: new Date(simClock.now()).toISOString() } : {}),
        level: config.logging.level,
        pretty: config.logging.pretty,
        destination: process.stderr,
        secrets,
      });
      const bar = new m.cliProgress.SingleBar(
        {
          // A recording's replay reports simulated time (ms), a candle run its candles.
          format: config.backtest!.recordings.length > 0 ? 'replay [{bar}] {percentage}%' : 'backtest [{bar}] {percentage}% {value}/{total} candles',
          clearOnComplete: true,
          stream: process.stderr,
        },
        m.cliProgress.Presets.shades_classic,
      );
      let started = false;
      const run = await m.runBacktest(config, {
        ...(o.from ? { from: parseTime(o.from, '--from') } : {}),
        ...(o.to ? { to: parseTime(o.to, '--to') } : {}),
        ...(o.data ? { dataDir: resolve(o.data) } : {}),
        ...(rest ? { candleSource: new rest.WallexRestClient({ baseUrl: config.exchange.baseUrl, timeoutMs: config.exchange.timeoutMs }) } : {}),
        logger,
        // Without --out only the summary is printed: no record per order, no plot series.
        ...(o.out ? {} : { detail: 'summary' as const }),
        onClock: (c) => (simClock = c),
        onProgress: (done, total) => {
          if (!started) bar.start(total, 0);
          started = true;
          bar.update(done);
        },
      });
      if (started) bar.stop();
      const [result, breakdowns] = await Promise.all([import('../backtest/result.js'), import('../backtest/breakdowns.js')]);
      // Colours on a terminal (none when stdout is a file or a pipe, or NO_COLOR is set).
      // The summary and the result files carry free text (denial reasons, errors): the secrets removed.
      process.stdout.write(scrub(result.formatSummary(run.result, breakdowns.paintFor(process.stdout)), secrets) + '\n');
      if (o.out) {
        const report = await import('../backtest/report-html.js');
        mkdirSync(o.out, { recursive: true });
        writePieces(join(o.out, 'result.json'), result.resultJsonPieces(run.result), secrets);
        writePieces(join(o.out, 'report.html'), report.htmlReportPieces(run.result, run.series), secrets);
        process.stdout.write(`wrote ${join(o.out, 'result.json')} and ${join(o.out, 'report.html')}\n`);
      }
      const errors = run.result.errors;
      if (errors.total > 0) {
        const allowed = o.allowErrors === true || config.backtest?.allowErrors === true;
        process.stderr.write(
          `mizan: the strategies' handlers threw ${errors.total} time(s) (${errors.kinds.length} kind(s), ${
            config.logging.level === 'fatal' || config.logging.level === 'silent'
              ? `logging.level ${config.logging.level} hides their stacks`
              : 'the first of each logged above with its stack'
          })` + (allowed ? ': allowed (--allow-errors / backtest.allowErrors)\n' : ': exit code 1 (--allow-errors or backtest.allowErrors accepts them)\n'),
        );
        if (!allowed) process.exitCode = 1;
      }
    });

  program
    .command('sweep')
    .description('run a backtest for every combination of parameter values on worker threads, ranked by a metric')
    .argument('<config>', 'YAML config with a backtest section')
    .option(
      '--param <range>',
      'name=from..to:step or name=a,b,c (instance.name with several strategies); repeatable',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--metric <name>', `rank by: ${METRIC_NAMES} (as optimize --objective; winrate and pf too) or a metric key`, 'sharpe')
    .option(
      '--constraint <expr>',
      'run only the combinations where it holds, e.g. "fast < slow" (parameters, numbers, + - * /, comparisons); repeatable',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--workers <n>', 'exactly this many worker threads (default: one, more up to the cores while the remaining work pays for their start-up)')
    .option(
      '--queue <url>',
      'run the trials on `mizan worker` processes through this Redis server (redis://[user:password@]host:port[/db], rediss://… for TLS) instead of threads of this process',
    )
    .option('--out <file>', 'CSV of every run', 'sweep.csv')
    .action(async (file: string, o: { param: string[]; metric: string; constraint: string[]; workers?: string; queue?: string; out: string }, cmd: Command) => {
      const m = await load(loadStart);
      const workers = o.workers === undefined ? undefined : m.parseWorkers(o.workers);
      if (workers !== undefined && o.queue !== undefined)
        throw new Error('--workers and --queue: choose one (with --queue, each `mizan worker` has its own --concurrency)');
      const queue =
        o.queue === undefined
          ? undefined
          : await import('../queue/index.js').then(({ parseQueueUrl, queueExecutor }) => ({ queueExecutor, url: parseQueueUrl(o.queue!) }));
      let resumed = 0;
      const loaded = await backtestConfig(m, file);
      // fees: account: read once here; the workers get the rates with the candles.
      const config = await m.resolveAccountFees(loaded, () => restClientOf(m, loaded));
      if (o.param.length === 0) throw new Error('sweep needs at least one --param');
      const objective = m.parseObjective(o.metric, '--metric');
      const metric = objective.metric;
      // A metric the range is too short for (cagr, calmar under 90 days; sharpe, sortino under 30
      // daily returns) is n/a in every run: a --metric given is refused before anything runs, with
      // optimize's reason; the default (sharpe) only warns, so a sweep without --metric still runs.
      try {
        m.checkObjectiveSpan(objective, config.backtest!, undefined, undefined, '--metric', 'a metric');
      } catch (err) {
        if (cmd.getOptionValueSource('metric') !== 'default') throw err;
        process.stderr.write(
          `mizan: warning: ${(err as Error).message.replace(/; train on .*$/, '')} (the default --metric: give one with no minimum to rank the runs)\n`,
        );
      }
      const all = await m.expandSweep(config, o.param.map(m.parseParamRange));
      const combos = m.constrainCombos(all, o.constraint);
      if (o.constraint.length)
        process.stderr.write(
          `constraints: ${combos.length} of ${all.length} combination(s) satisfy ${o.constraint.map((c) => JSON.stringify(c)).join(' and ')}\n`,
        );
      if (combos.length === 0) throw new Error(`--constraint: no combination satisfies ${o.constraint.map((c) => JSON.stringify(c)).join(' and ')}`);
      const bar = new m.cliProgress.SingleBar({ format: 'sweep [{bar}] {value}/{total} runs', stream: process.stderr }, m.cliProgress.Presets.shades_classic);
      let started = false;
      let threads = 0;
      // Trials a queue worker refused (its code differs): rows marked so, run again by a rerun.
      const refusals = new Map<string, string>();
      try {
        const rows = await m.runSweep(combos, {
          configFile: resolve(file),
          config,
          ...(workers !== undefined ? { workers } : {}),
          candleSource: new m.WallexRestClient({ baseUrl: config.exchange.baseUrl, timeoutMs: config.exchange.timeoutMs }),
          // The data is reported once, before any worker starts; a report that is not ok stops the
          // sweep with an error that lists the problems (printed once, by that error).
          onDataReport: (r) => {
            if (r.ok) {
              for (const p of r.problems) process.stderr.write(`data: ${p}\n`);
              for (const n of r.notes) process.stderr.write(`data note: ${n}\n`);
              bar.start(combos.length, 0);
              started = true;
            }
          },
          onProgress: (d) => bar.update(d),
          onWorkerStart: (n) => (threads = n),
          ...(queue
            ? {
                executor: queue.queueExecutor(queue.url, {
                  say: (line) => process.stderr.write(`${line}\n`),
                  onSweepId: (id) => process.stderr.write(`queue: sweep ${id} (${combos.length} trials) on ${queue.url.shown}\n`),
                  onRefused: (key, error) => refusals.set(key, error),
                  onResume: (done, total) => {
                    resumed = done;
                    process.stderr.write(`queue: resuming: ${done} of ${total} trials already have a result (not run again)\n`);
                  },
                }),
              }
            : {}),
        });
        if (started) bar.stop();
        started = false;
        const ranked = m.rankRows(rows, metric, objective.direction === 'minimize');
        const allNa = m.metricNaInEveryRun(rows, metric);
        if (allNa) process.stderr.write(`mizan: warning: --metric ${objective.name}: ${allNa}\n`);
        const keys: MetricKey[] = [metric, 'totalReturnPct', 'maxDrawdownPct', 'trades', 'winRatePct'].filter((k, i, a) => a.indexOf(k) === i) as MetricKey[];
        const units = new Map<MetricKey, MetricUnit>(m.METRIC_DEFINITIONS.map((d) => [d.key, d.unit]));
        const cells = ranked
          .slice(0, 20)
          .map((r, i) => [
            String(i + 1),
            ...keys.map((k) => sweepCell(r.metrics[k], units.get(k))),
            `${JSON.stringify(r.params)}${r.error ? `  error: ${r.error}` : ''}`,
          ]);
        process.stdout.write(sweepTable(['rank', ...keys, 'params'], cells));
        writeFileSync(
          o.out,
          m.sweepCsv(
            ranked,
            m.METRIC_DEFINITIONS.map((d) => d.key),
          ),
        );
        process.stdout.write(
          queue
            ? `wrote ${o.out} (${rows.length} runs on the queue ${queue.url.shown}${resumed ? `, ${resumed} of them from an earlier run` : ''})\n`
            : `wrote ${o.out} (${rows.length} runs, ${threads} worker${threads === 1 ? '' : 's'})\n`,
        );
        if (refusals.size > 0) {
          process.stderr.write(
            `mizan: ${refusals.size} of ${rows.length} trial(s) were refused by a worker (${[...refusals.values()][0]!}); ` +
              `their rows say so, and the same command runs them again: exit code 3\n`,
          );
          process.exitCode = 3;
        }
      } finally {
        if (started) bar.stop();
      }
    });
}

/**
 * The ranked table: every column as wide as its widest cell or header, numbers right-aligned under
 * their header, the last column (the parameters) left as it is.
 */
function sweepTable(header: string[], rows: string[][]): string {
  const last = header.length - 1;
  const widths = header.map((h, c) => (c === last ? 0 : Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length))));
  const line = (cells: string[]) => cells.map((v, c) => (c === last ? v : v.padStart(widths[c]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** A metric in the ranked table: counts and durations (ms) as whole numbers, the rest with 2 decimals. */
export function sweepCell(v: number | null | undefined, unit: MetricUnit | undefined): string {
  if (v == null) return 'n/a';
  return unit === 'count' || unit === 'duration' ? String(Math.round(v)) : v.toFixed(2);
}
