/**
 * `mizan candles <symbol> --resolution R --from F --to T`: candle history through CandleHistory
 * (paged requests, on-disk cache) written as CSV `time,open,high,low,close,volume` with the exact
 * decimals the exchange sent; `time` is the period start in Unix seconds. A progress bar
 * (cli-progress) goes to stderr when it is a terminal; a summary with the gaps follows.
 */
import { writeFile } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import { ParameterError } from '../../core/errors.js';
import { resolutionSeconds, type Candle, type Resolution } from '../../core/types/market.js';
import { WallexRestClient } from '../../exchange/rest/client.js';
import { CandleHistory, type CandleHistoryGap } from '../../market/candle-history.js';
import type { CandleHistorySource, CandleQuery } from '../../market/ports.js';
import type { ResolvedDeps } from './deps.js';

export interface CandlesCommandOptions {
  symbol: string;
  url: string;
  resolution: Resolution;
  from: number;
  to: number;
  /** CSV file; standard output when absent. */
  out?: string;
  /** Cache directory (default `backtest/data/cache`). */
  cacheDir?: string;
  pageSize?: number;
}

function candlesCsv(candles: readonly Candle[]): string {
  const rows = ['time,open,high,low,close,volume'];
  for (const c of candles) rows.push(`${c.time},${c.open.toFixed()},${c.high.toFixed()},${c.low.toFixed()},${c.close.toFixed()},${c.volume.toFixed()}`);
  return rows.join('\n') + '\n';
}

const iso = (sec: number): string => new Date(sec * 1000).toISOString().replace('.000Z', 'Z');

function gapText(gaps: readonly CandleHistoryGap[], limit = 10): string[] {
  const lines = gaps.slice(0, limit).map((g) => `  gap ${iso(g.from)} .. ${iso(g.to)} (${g.count} candle${g.count === 1 ? '' : 's'})`);
  if (gaps.length > limit) lines.push(`  … and ${gaps.length - limit} more gaps`);
  return lines;
}

/** Counts the periods each page request covers, for the progress bar. */
class ProgressSource implements CandleHistorySource {
  constructor(
    private readonly inner: CandleHistorySource,
    private readonly periodSec: number,
    private readonly onPage: (periods: number) => void,
  ) {}
  async getCandles(q: CandleQuery): Promise<Candle[]> {
    const got = await this.inner.getCandles(q);
    this.onPage(Math.max(1, Math.ceil((q.to - q.from + 1) / this.periodSec)));
    return got;
  }
}

export async function runCandles(o: CandlesCommandOptions, d: ResolvedDeps): Promise<void> {
  // --to is exclusive, as in `mizan backtest` and backtest.to: the candles whose period starts
  // at or after --from and before --to.
  if (o.from >= o.to) throw new ParameterError('--from', o.from, `a time before --to (${o.to}; --to is exclusive)`);
  const last = o.to - 1;
  const periodSec = resolutionSeconds(o.resolution);
  const total = Math.max(1, Math.floor((last - o.from) / periodSec) + 1);
  const bar =
    d.stderr.isTTY === true
      ? new cliProgress.SingleBar(
          {
            format: `${o.symbol} ${o.resolution} [{bar}] {percentage}% | {value}/{total} periods | {eta_formatted}`,
            stream: d.stderr as NodeJS.WritableStream,
            hideCursor: true,
          },
          cliProgress.Presets.shades_classic,
        )
      : undefined;
  bar?.start(total, 0);
  let done = 0;
  const rest = new WallexRestClient({ baseUrl: o.url, logger: d.logger.child({ component: 'rest' }) });
  const history = new CandleHistory({
    source: new ProgressSource(rest, periodSec, (n) => {
      done = Math.min(total, done + n);
      bar?.update(done);
    }),
    origin: o.url,
    clock: d.clock,
    logger: d.logger,
    options: { ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}), ...(o.pageSize ? { pageSize: o.pageSize } : {}) },
  });
  let result;
  try {
    result = await history.fetch(o.symbol, o.resolution, o.from, last);
  } finally {
    bar?.update(total);
    bar?.stop();
  }
  const csv = candlesCsv(result.candles);
  if (o.out) await writeFile(o.out, csv);
  else d.stdout.write(csv);
  const missing = result.gaps.reduce((n, g) => n + g.count, 0);
  const summary = [
    `${o.symbol} ${o.resolution}: ${result.candles.length} candles from ${iso(o.from)} to ${iso(o.to)} (exclusive)` +
      `${o.out ? ` written to ${o.out}` : ''} (${result.requests} request${result.requests === 1 ? '' : 's'}${result.requests === 0 ? ', from the cache' : ''})`,
    result.gaps.length === 0
      ? 'no gaps'
      : `${result.gaps.length} gap${result.gaps.length === 1 ? '' : 's'}, ${missing} missing period${missing === 1 ? '' : 's'} (no trades, or data missing):`,
    ...gapText(result.gaps),
  ];
  d.stderr.write(summary.join('\n') + '\n');
}
