/**
 * `mizan analyze warmup <config> [--extra N] [--from] [--to] [--data]`: the backtest of a config run
 * with more and less history before `from` than its strategies declare; reports the decisions that
 * change (backtest/warmup-analysis.ts). Exit code 1 when a decision changes with more history.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { parseTime } from './backtest.js';

export function registerAnalyzeCommands(program: Command): void {
  const analyze = program.command('analyze').description('checks of a strategy on a backtest config');
  analyze
    .command('warmup')
    .description(
      'run the backtest with more and less history before `from` than declared and report the decisions that change (exit 1 when more history changes any)',
    )
    .argument('<config>', 'YAML config with a backtest section')
    .option('--extra <n>', 'also run with this many candles more than each strategy declares (default: none; 100 when no strategy declares a warm-up)')
    .option('--from <time>', 'start (YYYY-MM-DD, ISO time or Unix seconds)')
    .option('--to <time>', 'end, exclusive')
    .option('--data <dir>', 'directory relative data paths are read from')
    .action(async (file: string, o: { extra?: string; from?: string; to?: string; data?: string }) => {
      const [{ loadConfig }, { analyzeWarmup, formatWarmupAnalysis }, { createLogger }, { WallexRestClient }, { resolveAccountFees }] = await Promise.all([
        import('../config/load.js'),
        import('../backtest/warmup-analysis.js'),
        import('../runtime/logger.js'),
        import('../exchange/rest/client.js'),
        import('../backtest/account-fees.js'),
      ]);
      let extra: number | undefined;
      if (o.extra !== undefined) {
        extra = /^\d+$/.test(o.extra) ? Number(o.extra) : NaN;
        if (!(Number.isInteger(extra) && extra > 0)) throw new Error(`--extra ${JSON.stringify(o.extra)}: expected a whole number of candles above 0`);
      }
      const loaded = await loadConfig(file);
      if (!loaded.backtest) throw new Error(`${file}: no backtest section (data, from, to)`);
      // fees: account: the account's rates, read once before the runs, as mizan backtest does.
      const config = await resolveAccountFees(
        loaded,
        () =>
          new WallexRestClient({
            baseUrl: loaded.exchange.baseUrl,
            timeoutMs: loaded.exchange.timeoutMs,
            ...(loaded.exchange.apiKey ? { apiKey: loaded.exchange.apiKey } : {}),
          }),
      );
      // The strategies' logs and risk denials go to stderr as in `mizan backtest`; stdout carries the report.
      const logger = createLogger({
        level: config.logging.level,
        pretty: config.logging.pretty,
        destination: process.stderr,
        secrets: [config.exchange.apiKey, config.exchange.stream.privateKey].filter((x): x is string => x !== undefined),
      });
      const analysis = await analyzeWarmup(config, {
        ...(extra !== undefined ? { extra } : {}),
        ...(o.from ? { from: parseTime(o.from, '--from') } : {}),
        ...(o.to ? { to: parseTime(o.to, '--to') } : {}),
        ...(o.data ? { dataDir: resolve(o.data) } : {}),
        candleSource: new WallexRestClient({ baseUrl: config.exchange.baseUrl, timeoutMs: config.exchange.timeoutMs }),
        logger,
        onRun: (label, i, n) => process.stderr.write(`warm-up run ${i + 1}/${n}: ${label}\n`),
      });
      process.stdout.write(formatWarmupAnalysis(analysis) + '\n');
      if (!analysis.ok) process.exitCode = 1;
    });
}
