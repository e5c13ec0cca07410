/**
 * The data of a backtest config: for each `backtest.data` entry, candles from a file (the bundled
 * format, freqtrade JSON, or a CSV with a header) or fetched through `/v1/udf/history` and cached
 * under `backtest/data/cache`, at the resolution of the strategies trading the market, with the
 * warm-up their `warmup(params)` asks for. Returns the series and the report of what is missing.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { SystemClock } from '../core/clock.js';
import type { Resolution } from '../core/types/market.js';
import { RESOLUTIONS, resolutionSeconds } from '../core/types/market.js';
import { WEEKDAY_NAMES, type MizanConfig } from '../config/schema.js';
import { resolutionToSeconds } from '../config/fields.js';
import type { CandleColumns } from '../market/files/columns.js';
import { ColumnSink } from '../market/files/sink.js';
import type { Candle } from '../core/types/market.js';
import { CandleHistory } from '../market/candle-history.js';
import { ConfigError, type ConfigIssue } from '../config/issues.js';
import type { CandleHistorySource } from '../market/ports.js';
import type { StrategyInstance } from '../kernel/trading-core.js';
import { readBundledMeta } from '../market/files/bundled.js';
import { backtestBaseOf, candleFilePath, candleResolutionIssues, metaSymbolProblem, volumeNote, type DataResolution } from './data-resolution.js';
import { declaredSeries, loadSeries, prepareSeries, summarizeReports, type DataReport, type Series, type SeriesReport } from './data.js';

export interface DataOptions {
  /** Directory that the config's relative data paths are resolved against instead of the working directory. */
  dataDir?: string;
  /** Where `fetch: true` entries come from (the REST client); required for them. */
  candleSource?: CandleHistorySource;
  /** Cache of fetched candles. Default `backtest/data/cache` under the working directory. */
  cacheDir?: string;
  /**
   * Candles already in memory, by symbol (used instead of the entry's file: benchmarks, sweeps
   * that load the data once per worker). `resSec` is their candle length.
   */
  columns?: Record<string, { cols: CandleColumns; resSec: number; source?: string; declared?: { cols: CandleColumns; resSec: number }[] }>;
}

/** Resolution (seconds) and warm-up (candles) of every market the strategies trade. */
function marketNeeds(instances: readonly StrategyInstance[], fallbackRes: number | undefined): Map<string, { resSec: number; warmup: number }> {
  const out = new Map<string, { resSec: number; warmup: number }>();
  for (const inst of instances) {
    const w = Math.max(0, Math.ceil(inst.definition.warmup?.(inst.params) ?? 0));
    for (const m of inst.markets) {
      const cur = out.get(m);
      if (cur && cur.resSec !== inst.resolutionSec) {
        throw new Error(`market ${m} is traded at two resolutions (${cur.resSec}s and ${inst.resolutionSec}s); a backtest walks one candle series per market`);
      }
      out.set(m, { resSec: inst.resolutionSec, warmup: Math.max(cur?.warmup ?? 0, w) });
    }
  }
  void fallbackRes;
  return out;
}

/**
 * Fetched candles (from the exchange or the cache) as columns, through the same checks as a file's
 * rows: a zero or negative price, high below low, a negative volume stop the run naming the row.
 */
function checkedColumns(source: string, candles: readonly Candle[]): CandleColumns {
  const sink = new ColumnSink(source, 'row', candles.length);
  candles.forEach((c, i) => sink.rowNumbers(i, c.time, c.open.toNumber(), c.high.toNumber(), c.low.toNumber(), c.close.toNumber(), c.volume.toNumber()));
  return sink.result();
}

function apiResolution(resSec: number): Resolution {
  const r = RESOLUTIONS.find((x) => resolutionSeconds(x) === resSec);
  if (!r) throw new Error(`no /v1/udf/history resolution is ${resSec}s long (available: ${RESOLUTIONS.join(', ')})`);
  return r;
}

export async function loadData(
  config: MizanConfig,
  instances: readonly StrategyInstance[],
  fromMs: number,
  toMs: number,
  opts: DataOptions,
): Promise<{ series: Series[]; report: DataReport; declared: Series[] }> {
  const bt = config.backtest!;
  const needs = marketNeeds(instances, undefined);
  const series: Series[] = [];
  const declared: Series[] = [];
  const issues: ConfigIssue[] = [];
  /** The resolutions the strategies trading `symbol` declared (`candles:`), built from the data (`cols`, `fileRes` seconds long). */
  const addDeclared = (s: Series, cols: CandleColumns, fileRes: number, source: string, prebuilt?: readonly { cols: CandleColumns; resSec: number }[]) => {
    const done = new Set<number>();
    for (const inst of instances) {
      if (!inst.candleSeconds || !inst.markets.includes(s.symbol)) continue;
      const i = config.strategies.findIndex((x) => x.name === inst.name);
      const sc = config.strategies[i];
      for (const r of inst.candleSeconds) {
        const built = prebuilt?.find((p) => p.resSec === r);
        if (built) {
          // Built by the caller from the data (a sweep's parent, for its workers).
          if (!done.has(r))
            declared.push(declaredSeries(s.symbol, built.cols, r, r, s.length > 0 ? s.time[0]! : Math.ceil(fromMs / 1000), toMs, DECLARED_HISTORY));
          done.add(r);
          continue;
        }
        if (r < fileRes || r % fileRes !== 0) {
          const j = (sc?.candles ?? []).findIndex((x) => resolutionToSeconds(x) === r);
          const value = j >= 0 ? sc?.candles?.[j] : `${r}s`;
          issues.push({
            path: i >= 0 && j >= 0 ? `strategies[${i}].candles[${j}]` : `strategy ${inst.name} candles`,
            message: `strategy ${inst.name} declares ${JSON.stringify(value)} (${r}s), which cannot be built from the backtest data of ${s.symbol} (${source}): its candles are ${fileRes}s long, and a declared resolution must be ${r < fileRes ? 'at least that long and ' : ''}a multiple of them`,
            value,
          });
          continue;
        }
        if (done.has(r)) continue;
        done.add(r);
        declared.push(declaredSeries(s.symbol, cols, fileRes, r, s.length > 0 ? s.time[0]! : Math.ceil(fromMs / 1000), toMs, DECLARED_HISTORY));
      }
    }
  };
  // Fetched data comes at the strategies' resolution: what it cannot give is refused before any fetch.
  const fetched: DataResolution[] = [];
  for (const e of bt.data) {
    if (!e.fetch || opts.columns?.[e.symbol]) continue;
    const resSec = needs.get(e.symbol)?.resSec ?? (bt.resolution ? resolutionSeconds(bt.resolution as Resolution) : undefined);
    if (resSec !== undefined) fetched.push({ symbol: e.symbol, resSec, source: `/v1/udf/history ${e.symbol}`, fetched: true });
  }
  const early = candleResolutionIssues(config, fetched);
  if (early.length) throw new ConfigError(early, config.source.file ?? 'config');
  // A file whose .meta.json names another market stops the run before any file is read.
  const wrong: ConfigIssue[] = [];
  bt.data.forEach((entry, k) => {
    if (!entry.file || opts.columns?.[entry.symbol]) return;
    const file = candleFilePath(config, entry, opts.dataDir);
    const problem = metaSymbolProblem(entry.symbol, file, existsSync(file) ? readBundledMeta(file) : undefined, entry.fileAsWritten ?? entry.file);
    if (problem) wrong.push({ path: `backtest.data[${k}].symbol`, message: problem, value: entry.symbol });
  });
  if (wrong.length) throw new ConfigError(wrong, config.source.file ?? 'config');
  const reports: SeriesReport[] = [];
  const volumeNotes: string[] = [];
  let history: CandleHistory | undefined;
  for (const entry of bt.data) {
    const need = needs.get(entry.symbol);
    const resSec = need?.resSec ?? (bt.resolution ? resolutionSeconds(bt.resolution as Resolution) : undefined);
    const warmup = need?.warmup ?? 0;
    const weekdays = entry.weekdays ? { weekdays: entry.weekdays.map((d) => WEEKDAY_NAMES.indexOf(d)) } : {};
    const mem = opts.columns?.[entry.symbol];
    if (mem) {
      const source = mem.source ?? `${entry.symbol} (in memory)`;
      const r = prepareSeries({ symbol: entry.symbol, resSec: resSec ?? mem.resSec, fromMs, toMs, warmup, ...weekdays }, mem.cols, mem.resSec, source);
      addDeclared(r.series, mem.cols, mem.resSec, source, mem.declared);
      series.push(r.series);
      reports.push(r.report);
      continue;
    }
    if (entry.file) {
      // --data re-reads a path that was written relative from its own directory.
      const file = candleFilePath(config, entry, opts.dataDir);
      const base = backtestBaseOf(config, entry.symbol);
      const r = loadSeries({ symbol: entry.symbol, file, ...(base !== undefined ? { base } : {}), resSec: resSec ?? 0, fromMs, toMs, warmup, ...weekdays });
      // The report names the file as the config wrote it, so the result does not depend on where
      // the checkout lies (the same inputs give the same bytes).
      if (!opts.dataDir && entry.fileAsWritten) r.report.source = entry.fileAsWritten;
      const note = volumeNote(config, entry.symbol, r.report.source, r.volumeColumn);
      if (note) volumeNotes.push(note);
      addDeclared(r.series, r.cols, r.fileRes, r.report.source);
      series.push(r.series);
      reports.push(r.report);
      continue;
    }
    if (!opts.candleSource) throw new Error(`backtest.data ${entry.symbol}: fetch: true needs the exchange's REST client (run through \`mizan backtest\`)`);
    if (resSec === undefined) throw new Error(`backtest.data ${entry.symbol}: no strategy trades it and backtest.resolution is not set`);
    history ??= new CandleHistory({
      source: opts.candleSource,
      // The candle source reads the config's exchange (the CLI builds it from this URL).
      origin: config.exchange.baseUrl,
      clock: new SystemClock(),
      options: { cacheDir: opts.cacheDir ?? resolve('backtest/data/cache') },
    });
    const fromSec = Math.floor(fromMs / 1000) - warmup * resSec;
    const got = await history.fetch(entry.symbol, apiResolution(resSec), fromSec, Math.floor(toMs / 1000) - resSec);
    const source = `/v1/udf/history ${entry.symbol}`;
    const cols = checkedColumns(source, got.candles);
    const r = prepareSeries({ symbol: entry.symbol, resSec, fromMs, toMs, warmup, ...weekdays }, cols, resSec, source);
    addDeclared(r.series, cols, resSec, source);
    series.push(r.series);
    reports.push(r.report);
  }
  for (const m of needs.keys()) {
    if (!series.some((s) => s.symbol === m)) throw new Error(`market ${m} has no entry under backtest.data`);
  }
  if (issues.length) throw new ConfigError(issues, config.source.file ?? 'config');
  const report = summarizeReports(reports);
  report.notes.push(...volumeNotes);
  return { series, report, declared };
}

/** Candles of a declared resolution held before the run's first candle (the windows keep 500). */
const DECLARED_HISTORY = 500;
