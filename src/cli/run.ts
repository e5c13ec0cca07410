/**
 * `mizan run <config> [--duration] [--live] [--keep-orders]`: load and check the config, start the
 * bot, print a status line every few seconds, stop cleanly on Ctrl-C (or SIGTERM, or after
 * --duration) with a summary. A second Ctrl-C forces the exit.
 */
import type { Command } from 'commander';
import { loadChecked } from './check.js';
import type { StartInfo } from '../runtime/bot.js';

function banner(info: StartInfo): string {
  const lines = [`mizan ${info.mode}: ${info.exchange}`];
  for (const s of info.strategies) lines.push(`  strategy ${s.name} (${s.strategy}) on ${s.markets.join(', ')}${s.account !== 'main' ? ` [${s.account}]` : ''}`);
  const bal = Object.entries(info.balances)
    .filter(([, b]) => b.value !== '0')
    .map(([a, b]) => `${b.value} ${a}${b.locked !== '0' ? ` (${b.locked} locked)` : ''}`);
  lines.push(`  balances ${bal.join(', ') || 'none'}`);
  const r = info.recovery;
  if (r.closedFromEarlierPaperRun.length) {
    lines.push(`  journal: ${r.closedFromEarlierPaperRun.length} open order(s) of an earlier paper run closed (the paper exchange starts empty each run)`);
  } else if (r.fromJournal || r.orphans.length) {
    lines.push(`  recovered ${r.fromJournal} open order(s) from the journal: ${r.resolved} found, ${r.missing.length} missing, ${r.unknown.length} unknown; ${r.orphans.length} orphan(s) adopted`);
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
    .action(async (file: string, o: { duration?: number; live?: boolean; keepOrders?: boolean }) => {
      // Every problem of the file, its strategies and their parameters at once, before anything starts.
      const { config } = await loadChecked(file);
      // --live confirms a file that says mode: live; on any other file it would be ignored, and a
      // user who typed it believes real orders are going out. Refuse before anything starts.
      if (o.live && config.mode !== 'live') {
        const instead = config.mode === 'backtest' ? `\`mizan backtest ${file}\` runs it` : `drop --live to run it in ${config.mode} mode`;
        throw new Error(`--live: ${file} says mode: ${config.mode}, so this run would not trade live. Live trading needs mode: live in the file (with exchange.simulator: false and an API key) and --live on the command line; ${instead}`);
      }
      // The bot and the logger are loaded when the command runs, not when `mizan` starts (mizan --help stays quick).
      const [{ startBot }, { loggerFromConfig }] = await Promise.all([import('../runtime/bot.js'), import('../runtime/logger.js')]);
      const logger = loggerFromConfig(config);
      const bot = await startBot(config, {
        live: o.live === true,
        logger,
        beforeStart: async (info) => {
          process.stdout.write(banner(info));
          if (info.mode === 'live') process.stdout.write('  LIVE: orders go to the exchange with real money. Ctrl-C stops.\n');
        },
      });
      let stopping = false;
      const stop = async (why: string) => {
        if (stopping) {
          process.stderr.write('\nmizan: second signal, exiting now\n');
          process.exit(130);
        }
        stopping = true;
        process.stdout.write(`\nmizan: stopping (${why})…\n`);
        const text = await bot.stop({ cancelOrders: !o.keepOrders });
        process.stdout.write(text);
        process.exit(0);
      };
      process.on('SIGINT', () => void stop('Ctrl-C'));
      process.on('SIGTERM', () => void stop('SIGTERM'));
      // The kill switch as a signal: halt (only cancels pass; open orders are cancelled).
      process.on('SIGUSR2', () => bot.risk.halt('kill switch (SIGUSR2)'));
      if (o.duration) setTimeout(() => void stop(`--duration ${o.duration}s`), o.duration * 1000);
      await new Promise<never>(() => {});
    });
}
