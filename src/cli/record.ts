/** `mizan record <config> --out DIR [--duration 5m]`: record the configured markets' streams (see src/record/format.ts). */
import type { Command } from 'commander';
import { loadChecked } from './check.js';

function duration(v: string, flag: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(v.trim());
  const n = m ? Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const)[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'] : NaN;
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag}: "${v}" is not a positive duration (e.g. 90s, 5m, 2h)`);
  return n;
}

const parseDuration = (v: string): number => duration(v, '--duration');
const parseRotateAfter = (v: string): number => duration(v, '--rotate-after');

export function registerRecordCommand(program: Command): void {
  program
    .command('record')
    .description("record the exchange streams of the config's markets into a directory of hour chunks")
    .argument('<config>', "YAML config file (exchange.* and the strategies' markets)")
    .requiredOption('--out <dir>', 'recording directory (created; appended to when it exists)')
    .option('--duration <time>', 'stop by itself after this long (e.g. 90s, 5m, 2h)', parseDuration)
    .option(
      '--rotate-after <time>',
      "also replace the stream connection make-before-break (no gap) after this long (e.g. 10m); it is always replaced before the exchange's 30-minute cut",
      parseRotateAfter,
    )
    .action(async (file: string, o: { out: string; duration?: number; rotateAfter?: number }) => {
      const { config } = await loadChecked(file);
      const [{ Recorder }, { createLogger }] = await Promise.all([import('../record/recorder.js'), import('../runtime/logger.js')]);
      const logger = createLogger({});
      const markets = [...new Set(config.strategies.flatMap((s) => s.markets))];
      // exchange.simulator (paper's default): the embedded simulator is what the bot would trade, so
      // it is what is recorded, as `mizan run` connects to it; never the configured exchange.
      let url = config.exchange.baseUrl;
      let streamUrl = config.exchange.stream?.url;
      let sim: { stop(): Promise<void> } | undefined;
      if (config.exchange.simulator) {
        const { runSim } = await import('../sim/run-sim.js');
        const running = await runSim({
          seed: config.simulator.seed,
          speed: config.simulator.speed,
          ...(config.simulator.data ? { data: config.simulator.data } : {}),
          logger: logger.child({ component: 'sim' }),
        });
        sim = running;
        url = running.server.url;
        streamUrl = undefined;
        logger.info({ url }, 'record: recording the embedded simulator (exchange.simulator: true), not the exchange');
      }
      const rec = new Recorder({
        url,
        ...(streamUrl ? { streamUrl } : {}),
        transport: config.exchange.stream?.transport ?? 'auto',
        protocol: config.exchange.stream?.protocol ?? 4,
        maxChannelsPerConnection: config.exchange.stream.maxChannelsPerConnection,
        ...(o.rotateAfter !== undefined ? { rotateAfterMs: o.rotateAfter } : {}),
        markets,
        out: o.out,
        logger,
      });
      await rec.start();
      logger.info({ out: o.out, markets }, 'record: started');
      let last = { events: 0, at: Date.now() };
      const progress = setInterval(() => {
        const s = rec.stats;
        const now = Date.now();
        logger.info({ events: s.events, eventsPerSec: Math.round(((s.events - last.events) * 1000) / (now - last.at)), bytes: s.bytes }, 'record: progress');
        last = { events: s.events, at: now };
      }, 5000);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
        if (o.duration) setTimeout(resolve, o.duration).unref();
      });
      clearInterval(progress);
      rec.stop();
      await sim?.stop();
      logger.info({ events: rec.stats.events, bytes: rec.stats.bytes }, 'record: closed');
    });
}
