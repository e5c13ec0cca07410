/**
 * `mizan backtest <config> [--from] [--to] [--data] [--out]` and
 * `mizan sweep <config> --param fast=5..30:5 [--param …] [--metric sharpe] [--workers N] [--out sweep.csv]`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import { WallexRestClient } from '../exchange/rest/client.js';
import type { MizanConfig } from '../config/schema.js';
import { resolveAccountFees } from '../backtest/account-fees.js';
import { METRIC_DEFINITIONS, type MetricKey, type MetricUnit } from '../backtest/metrics/index.js';
import { renderHtmlReport } from '../backtest/report-html.js';
import { formatSummary, resultJson } from '../backtest/result.js';
import { runBacktest } from '../backtest/run.js';
import { expandSweep, parseParamRange, parseWorkers, rankRows, runSweep, sweepCsv } from '../backtest/sweep.js';

function parseTime(v: string, flag: string): number {
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v);
  if (!Number.isFinite(ms)) throw new Error(`${flag} ${JSON.stringify(v)}: expected YYYY-MM-DD, an ISO time, or Unix seconds`);
  return ms;
}

/** The exchange's REST client with the config's key (for `fees: account`, an account endpoint). */
function restClientOf(config: MizanConfig): WallexRestClient {
  return new WallexRestClient({ baseUrl: config.exchange.baseUrl, timeoutMs: config.exchange.timeoutMs, ...(config.exchange.apiKey ? { apiKey: config.exchange.apiKey } : {}) });
}

async function backtestConfig(file: string): Promise<MizanConfig> {
  const config = await loadConfig(file);
  if (!config.backtest) throw new Error(`${file}: no backtest section (data, from, to)`);
  return config;
}

const METRIC_ALIASES: Record<string, MetricKey> = { sharpe: 'sharpe', sortino: 'sortino', calmar: 'calmar', return: 'totalReturnPct', cagr: 'cagrPct', drawdown: 'maxDrawdownPct', winrate: 'winRatePct', pf: 'profitFactor', sqn: 'sqn', expectancy: 'expectancy' };

export function registerBacktestCommands(program: Command): void {
  program
    .command('backtest')
    .description('run the strategies of a config on historical candles')
    .argument('<config>', 'YAML config with a backtest section')
    .option('--from <time>', 'start (YYYY-MM-DD, ISO time or Unix seconds)')
    .option('--to <time>', 'end, exclusive')
    .option('--data <dir>', 'directory relative data paths are read from')
    .option('--out <dir>', 'write result.json and report.html here')
    .action(async (file: string, o: { from?: string; to?: string; data?: string; out?: string }) => {
      const loaded = await backtestConfig(file);
      // fees: account: the account's rates, read once before the run (the key goes only into x-api-key).
      const config = await resolveAccountFees(loaded, () => restClientOf(loaded));
      const bar = new cliProgress.SingleBar({ format: 'backtest [{bar}] {percentage}% {value}/{total} candles', clearOnComplete: true, stream: process.stderr }, cliProgress.Presets.shades_classic);
      let started = false;
      const run = await runBacktest(config, {
        ...(o.from ? { from: parseTime(o.from, '--from') } : {}),
        ...(o.to ? { to: parseTime(o.to, '--to') } : {}),
        ...(o.data ? { dataDir: resolve(o.data) } : {}),
        candleSource: new WallexRestClient({ baseUrl: config.exchange.baseUrl, timeoutMs: config.exchange.timeoutMs }),
        onDataReport: (r) => {
          for (const p of r.problems) process.stderr.write(`data: ${p}\n`);
        },
        onProgress: (done, total) => {
          if (!started) bar.start(total, 0);
          started = true;
          bar.update(done);
        },
      });
      if (started) bar.stop();
      process.stdout.write(formatSummary(run.result) + '\n');
      if (o.out) {
        mkdirSync(o.out, { recursive: true });
        writeFileSync(join(o.out, 'result.json'), resultJson(run.result));
        writeFileSync(join(o.out, 'report.html'), renderHtmlReport(run.result, run.series));
        process.stdout.write(`wrote ${join(o.out, 'result.json')} and ${join(o.out, 'report.html')}\n`);
      }
    });

  program
    .command('sweep')
    .description('run a backtest for every combination of parameter values on worker threads, ranked by a metric')
    .argument('<config>', 'YAML config with a backtest section')
    .option('--param <range>', 'name=from..to:step or name=a,b,c (instance.name with several strategies); repeatable', (v: string, acc: string[]) => [...acc, v], [] as string[])
    .option('--metric <name>', `rank by: ${Object.keys(METRIC_ALIASES).join(', ')} or a metric key`, 'sharpe')
    .option('--workers <n>', 'exactly this many worker threads (default: one, more up to the cores while the remaining work pays for their start-up)')
    .option('--out <file>', 'CSV of every run', 'sweep.csv')
    .action(async (file: string, o: { param: string[]; metric: string; workers?: string; out: string }) => {
      const workers = o.workers === undefined ? undefined : parseWorkers(o.workers);
      const loaded = await backtestConfig(file);
      // fees: account: read once here; the workers get the rates with the candles.
      const config = await resolveAccountFees(loaded, () => restClientOf(loaded));
      if (o.param.length === 0) throw new Error('sweep needs at least one --param');
      const metric = METRIC_ALIASES[o.metric] ?? (METRIC_DEFINITIONS.find((d) => d.key === o.metric)?.key as MetricKey | undefined);
      if (!metric) throw new Error(`--metric ${o.metric}: unknown (use ${Object.keys(METRIC_ALIASES).join(', ')})`);
      const combos = await expandSweep(config, o.param.map(parseParamRange));
      const bar = new cliProgress.SingleBar({ format: 'sweep [{bar}] {value}/{total} runs', stream: process.stderr }, cliProgress.Presets.shades_classic);
      let started = false;
      let threads = 0;
      try {
        const rows = await runSweep(combos, {
          configFile: resolve(file),
          config,
          ...(workers !== undefined ? { workers } : {}),
          candleSource: new WallexRestClient({ baseUrl: config.exchange.baseUrl, timeoutMs: config.exchange.timeoutMs }),
          // The data is reported once, before any worker starts; a report that is not ok stops the sweep.
          onDataReport: (r) => {
            for (const p of r.problems) process.stderr.write(`data: ${p}\n`);
            if (r.ok) {
              bar.start(combos.length, 0);
              started = true;
            }
          },
          onProgress: (d) => bar.update(d),
          onWorkerStart: (n) => (threads = n),
        });
        if (started) bar.stop();
        started = false;
        const ranked = rankRows(rows, metric, metric === 'maxDrawdownPct');
        const keys: MetricKey[] = [metric, 'totalReturnPct', 'maxDrawdownPct', 'trades', 'winRatePct'].filter((k, i, a) => a.indexOf(k) === i) as MetricKey[];
        const units = new Map<MetricKey, MetricUnit>(METRIC_DEFINITIONS.map((d) => [d.key, d.unit]));
        process.stdout.write(`rank  ${keys.join('  ')}  params\n`);
        ranked.slice(0, 20).forEach((r, i) => {
          const vals = keys.map((k) => sweepCell(r.metrics[k], units.get(k)));
          process.stdout.write(`${String(i + 1).padStart(4)}  ${vals.join('  ')}  ${JSON.stringify(r.params)}${r.error ? `  error: ${r.error}` : ''}\n`);
        });
        writeFileSync(o.out, sweepCsv(ranked, METRIC_DEFINITIONS.map((d) => d.key)));
        process.stdout.write(`wrote ${o.out} (${rows.length} runs, ${threads} worker${threads === 1 ? '' : 's'})\n`);
      } finally {
        if (started) bar.stop();
      }
    });
}

/** A metric in the ranked table: counts and durations (ms) as whole numbers, the rest with 2 decimals. */
export function sweepCell(v: number | null | undefined, unit: MetricUnit | undefined): string {
  if (v == null) return 'n/a';
  return unit === 'count' || unit === 'duration' ? String(Math.round(v)) : v.toFixed(2);
}
