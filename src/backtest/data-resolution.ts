/**
 * Whether a backtest's data can give the candles its strategies read: each strategy's own
 * resolution and the ones it declares (`candles:`) must be the data's candle length or a multiple
 * of it, since they are built from the data. A `fetch: true` entry is fetched at the resolution of
 * the strategies trading the market (it must be one `/v1/udf/history` serves). Shared by
 * `mizan check` (its data stage, before anything runs) and `mizan backtest` (before any fetch).
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, isAbsolute, join, resolve } from 'node:path';
import { isChunkName } from '../record/format.js';
import type { ConfigIssue } from '../config/issues.js';
import { resolutionToSeconds } from '../config/fields.js';
import type { MizanConfig } from '../config/schema.js';
import { RESOLUTIONS, resolutionSeconds } from '../core/types/market.js';
import { readBundledMeta, type BundledMeta } from '../market/files/bundled.js';
import { readCandleColumnsCached } from '../market/files/column-cache.js';
import { inferResolution } from './data.js';
import { defaultMarketSpecs } from '../sim/markets.js';

/** The candle length of one market's backtest data and where it comes from (for messages). */
export interface DataResolution {
  symbol: string;
  resSec: number;
  /** The file as the config wrote it, or `/v1/udf/history SYMBOL`. */
  source: string;
  fetched: boolean;
}

const secs = (r: number) => `${r}s`;

/**
 * The file a `backtest.data` entry reads: with `dataDir` (`--data`), a path the config wrote
 * relative is read from that folder; otherwise the loader's path (made absolute against the working
 * directory). One rule for `mizan backtest`, `mizan analyze` and `mizan check`.
 */
export function candleFilePath(config: MizanConfig, entry: { file?: string | undefined; fileAsWritten?: string | undefined }, dataDir?: string): string {
  const file = entry.file ?? '';
  if (dataDir && entry.fileAsWritten) return resolve(dataDir, entry.fileAsWritten);
  return isAbsolute(file) ? file : resolve(config.source.baseDir, file);
}

/** The resolution a `fetch: true` entry of `symbol` is fetched at: the first strategy's trading it, else backtest.resolution. */
function fetchResolution(config: MizanConfig, symbol: string): number | undefined {
  const s = config.strategies.find((x) => x.markets.includes(symbol));
  if (s) return s.resolutionSeconds;
  const r = config.backtest?.resolution;
  return r ? resolutionToSeconds(r) : undefined;
}

/** The /v1/udf/history resolution of that length, if the exchange serves one. */
function apiResolutionOf(resSec: number): (typeof RESOLUTIONS)[number] | undefined {
  return RESOLUTIONS.find((x) => resolutionSeconds(x) === resSec);
}

/** The base asset of a backtest market (backtest.markets, else the simulator's: backtest-exchange.ts runMarketSpecs), or undefined. */
export function backtestBaseOf(config: MizanConfig, symbol: string): string | undefined {
  return config.backtest?.markets.find((m) => m.symbol === symbol)?.base ?? defaultMarketSpecs().find((m) => m.symbol === symbol)?.baseAsset;
}

/**
 * A `.meta.json` beside the file naming another market than the entry's symbol: the candles are
 * another market's (BTCUSDT's prices traded as BTCTMN). The message names both and the file.
 */
export function metaSymbolProblem(symbol: string, file: string, meta: BundledMeta | undefined, asWritten: string): string | undefined {
  if (!meta || meta.symbol === symbol) return undefined;
  const metaFile = basename(file).replace(/\.csv(\.gz)?$/i, '') + '.meta.json';
  return `${JSON.stringify(symbol)} is not the market of ${asWritten}: its ${metaFile} says the candles are ${meta.symbol}'s (write symbol: ${meta.symbol}, or give ${symbol} a file of its own)`;
}

/**
 * What a backtest assumed about a file's volume, for the data notes: none at all (volume 0), or read
 * from a column other than `volume` (`Volume BTC`, the base asset's).
 */
export function volumeNote(config: MizanConfig, symbol: string, source: string, volumeColumn: string | null): string | undefined {
  if (volumeColumn === null) {
    const cap = config.backtest?.volumeCapPct !== undefined ? '; with backtest.volumeCapPct set no order can fill' : '';
    return `${symbol}: ${source} has no volume column: every candle's volume is 0${cap}`;
  }
  if (volumeColumn.toLowerCase() === 'volume') return undefined;
  return `${symbol}: volume read from the column ${JSON.stringify(volumeColumn)} of ${source} (the base asset's volume)`;
}

/**
 * The problems of the config's strategies against the data's resolutions: a resolution (own or
 * declared) finer than the data, or not a multiple of it; a fetched resolution the exchange does
 * not serve. Each names the strategy, the field, its value and the data's candle length.
 */
export function candleResolutionIssues(config: MizanConfig, data: readonly DataResolution[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  config.strategies.forEach((s, i) => {
    for (const symbol of s.markets) {
      const d = data.find((x) => x.symbol === symbol);
      if (!d) continue;
      const own = s.resolutionSeconds;
      if (d.fetched && own === d.resSec && !apiResolutionOf(own)) {
        issues.push({
          path: `strategies[${i}].resolution`,
          message: `strategy ${s.name}: ${JSON.stringify(s.resolution)} (${secs(own)}) cannot be fetched for ${symbol} (backtest.data fetch: true): /v1/udf/history serves ${RESOLUTIONS.join(', ')} (minutes, or D days)`,
          value: s.resolution,
        });
      } else if (own < d.resSec || own % d.resSec !== 0) {
        issues.push({
          path: `strategies[${i}].resolution`,
          message: `strategy ${s.name}: ${JSON.stringify(s.resolution)} (${secs(own)}) cannot be built from the backtest data of ${symbol} (${d.source}): its candles are ${secs(d.resSec)} long, and a strategy's resolution must be a multiple of them`,
          value: s.resolution,
        });
      }
      (s.candles ?? []).forEach((value, j) => {
        const r = resolutionToSeconds(value);
        if (r >= d.resSec && r % d.resSec === 0) return;
        issues.push({
          path: `strategies[${i}].candles[${j}]`,
          message: `strategy ${s.name} declares ${JSON.stringify(value)} (${secs(r)}), which cannot be built from the backtest data of ${symbol} (${d.source}): its candles are ${secs(d.resSec)} long, and a declared resolution must be ${r < d.resSec ? 'at least that long and ' : ''}a multiple of them`,
          value,
        });
      });
    }
  });
  return issues;
}

/**
 * The data stage of `mizan check`: the candle length of every `backtest.data` entry (a file's from
 * its `.meta.json` or its rows; a fetched one's from the strategies' resolution) and the problems of
 * the strategies' resolutions against it. A file that cannot be read (its rows, its volume columns)
 * is a problem of its entry, a `.meta.json` of another market one of its symbol; what a run would
 * note about a file (no volume column) is added to `notes`.
 */
export function checkBacktestData(config: MizanConfig, dataDir?: string, notes: string[] = []): ConfigIssue[] {
  const bt = config.backtest;
  if (!bt) return [];
  const data: DataResolution[] = [];
  const issues: ConfigIssue[] = [];
  bt.data.forEach((e, k) => {
    if (e.file) {
      const file = candleFilePath(config, e, dataDir);
      const source = e.fileAsWritten ?? e.file;
      try {
        const meta = existsSync(file) ? readBundledMeta(file) : undefined;
        const wrong = metaSymbolProblem(e.symbol, file, meta, source);
        if (wrong) {
          issues.push({ path: `backtest.data[${k}].symbol`, message: wrong, value: e.symbol });
          return;
        }
        const base = backtestBaseOf(config, e.symbol);
        const cols = readCandleColumnsCached(file, base !== undefined ? { base } : {});
        const resSec = inferResolution(file, meta?.resolutionSec ? [] : cols.time);
        data.push({ symbol: e.symbol, resSec, source, fetched: false });
        const note = volumeNote(config, e.symbol, source, cols.volumeColumn);
        if (note) notes.push(note);
      } catch (err) {
        issues.push({ path: `backtest.data[${k}].file`, message: err instanceof Error ? err.message : String(err), value: e.fileAsWritten ?? e.file });
      }
      return;
    }
    const resSec = fetchResolution(config, e.symbol);
    if (resSec !== undefined) data.push({ symbol: e.symbol, resSec, source: `/v1/udf/history ${e.symbol}`, fetched: true });
  });
  // A recording (kind: book): its folder, and the markets the strategies trade in it.
  bt.recordings.forEach((r, k) => {
    const problem = recordingProblem(r.format, r.dir, r.markets ?? [...new Set(config.strategies.flatMap((s) => s.markets))]);
    if (problem) issues.push({ path: `backtest.data[${k}].dir`, message: problem, value: r.dir });
  });
  return [...issues, ...candleResolutionIssues(config, data)];
}

/** What is wrong with a recording folder for these markets, or undefined. */
function recordingProblem(format: 'mizan' | 'hftbacktest', dir: string, markets: readonly string[]): string | undefined {
  if (!existsSync(dir)) return `no such folder: ${dir}`;
  const files = readdirSync(dir);
  if (format === 'hftbacktest') return files.some((f) => f.endsWith('.gz')) ? undefined : `no hftbacktest capture (.gz) in ${dir}`;
  const missing = markets.filter((m) => !existsSync(join(dir, m)) || !readdirSync(join(dir, m)).some(isChunkName));
  return missing.length > 0
    ? `the recording has no events of ${missing.join(', ')} (no ${missing.map((m) => `${m}/<hour>.jsonl.gz`).join(', ')} in ${dir})`
    : undefined;
}
