/**
 * `mizan check <config>`: validate a config and its strategies' parameters without connecting
 * anywhere; list the strategies and markets; exit non-zero with every problem listed.
 * `mizan strategies`: the bundled strategies and their parameters (defaults and bounds), then, inside
 * a project, its own (cli/project-strategies.ts).
 *
 * Every stage runs whatever the others found: the file (YAML, schema, cross-field checks, markets),
 * then each strategy entry that names a module (imported) and its parameters (checked against the
 * declarations), then, for a file with a backtest section, its data (the candle length of each
 * `backtest.data` entry against the strategies' resolutions and declared `candles:`), so one run
 * lists every problem, in the order of the file's lines. Then the notes, which are no problem: what
 * a setting does that it may not seem to (a strategy limit the global one overrides, a balance no
 * market values, a candle file without volume).
 */
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../config/issues.js';
import type { MizanConfig } from '../config/schema.js';
import { describeParams } from '../strategy/params.js';
import type { StrategyInstance } from '../kernel/trading-core.js';

/**
 * Load a config and its strategies, or throw one ConfigError with the problems of every stage.
 * With `data` (mizan check), a file that parsed also gets the data stage: the strategies'
 * resolutions and declared `candles:` against the candle length of its `backtest.data`.
 */
export async function loadChecked(
  file: string,
  o: { data?: boolean; dataDir?: string; notes?: CheckNote[] } = {},
): Promise<{ config: MizanConfig; instances: StrategyInstance[] }> {
  // Loaded when the command runs, not when `mizan` starts (mizan --help stays quick).
  const [{ dedupeIssues, inspectConfigFile, withLines }, { checkStrategyEntries, loadStrategyInstances }] = await Promise.all([
    import('../config/load.js'),
    import('../runtime/strategy-loader.js'),
  ]);
  const r = await inspectConfigFile(file);
  const strategyIssues = await checkStrategyEntries(r.data, r.strategyBaseDir);
  const issues = [...r.issues, ...strategyIssues.filter((i) => !r.withheld?.has(i.path))];
  const dataNotes: string[] = [];
  if (o.data && r.config?.backtest) {
    const { checkBacktestData } = await import('../backtest/data-resolution.js');
    issues.push(...checkBacktestData(r.config, o.dataDir, dataNotes));
  }
  if (o.notes && r.config) {
    const [{ configNotes }, { defaultMarketSpecs }] = await Promise.all([import('../config/checks-limits.js'), import('../sim/markets.js')]);
    const legs = new Map(defaultMarketSpecs().map((m) => [m.symbol, { base: m.baseAsset, quote: m.quoteAsset }]));
    for (const m of r.config.backtest?.markets ?? []) legs.set(m.symbol, { base: m.base, quote: m.quote });
    const notes = configNotes(r.data, r.config, (sym) => legs.get(sym));
    for (const n of notes) {
      const line = r.lineOf(n.path);
      if (line !== undefined) n.line = line;
    }
    o.notes.push(...notes.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity)), ...dataNotes.map((message) => ({ path: '', message })));
  }
  // The journal's place, before anything connects (mizan run) or as one more problem (mizan check).
  if (r.config && r.config.mode !== 'backtest') {
    const { journalLocationMessage, journalLocationProblem } = await import('../store/location.js');
    const problem = journalLocationProblem(r.config.journal.file, { probe: true });
    if (problem) issues.push({ path: 'journal.file', message: journalLocationMessage(r.config.journal.file, problem), value: r.config.journal.file });
  }
  if (!r.config || issues.length) throw new ConfigError(withLines(dedupeIssues(issues), r.lineOf), file);
  return { config: r.config, instances: await loadStrategyInstances(r.config) };
}

/** A note of `mizan check`: no problem, something a setting or a data file does that it may not seem to. */
export interface CheckNote {
  /** The setting's path; '' for a note of a data file. */
  path: string;
  message: string;
  line?: number;
}

export interface CheckOutput {
  write(text: string): void;
}

/** One note line: `note: <path>: <message> (line N)`. */
function noteLine(n: CheckNote): string {
  return `note: ${n.path ? `${n.path}: ` : ''}${n.message}${n.line !== undefined ? ` (line ${n.line})` : ''}`;
}

export async function checkConfig(file: string, out: CheckOutput, o: { dataDir?: string } = {}): Promise<boolean> {
  const notes: CheckNote[] = [];
  try {
    const { config, instances } = await loadChecked(file, { data: true, notes, ...(o.dataDir ? { dataDir: o.dataDir } : {}) });
    // A backtest reads its data, never an exchange: say which data instead.
    const source =
      config.mode === 'backtest' && config.backtest
        ? config.backtest.recordings.length > 0
          ? 'order-book data'
          : 'candles'
        : config.exchange.simulator
          ? 'embedded simulator'
          : config.exchange.baseUrl;
    out.write(`${file}: ok (mode ${config.mode}, ${source})\n`);
    for (const i of instances) {
      const params = Object.entries(i.params)
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(' ');
      const s = config.strategies.find((c) => c.name === i.name);
      const sched = s?.schedule ? `  schedule "${s.schedule.cron}" ${s.schedule.timezone ?? ''}` : '';
      const res = i.candleSeconds?.length ? `${i.resolutionSec}s (+${i.candleSeconds.map((r) => `${r}s`).join(',')})` : `${i.resolutionSec}s`;
      out.write(`  ${i.name.padEnd(16)} ${i.definition.name.padEnd(14)} ${i.markets.join(',').padEnd(16)} ${res}  ${params}${sched}\n`);
    }
    const markets = [...new Set(instances.flatMap((i) => i.markets))];
    out.write(`  markets: ${markets.join(', ')}\n`);
    const n = config.notifications;
    if (n) {
      const targets = n.targets.map((t, i) => `${t.name ?? `${t.format}#${i}`} (${t.format}: ${(t.events ?? ['all events']).join(', ')})`);
      out.write(`  notifications: ${targets.join('; ')}${n.dailySummary ? `; daily summary at ${n.dailySummary.at} ${n.dailySummary.timezone}` : ''}\n`);
    }
    for (const note of notes) out.write(`  ${noteLine(note)}\n`);
    return true;
  } catch (err) {
    if (err instanceof ConfigError) {
      out.write(`${err.message}\n`);
      for (const note of notes) out.write(`  ${noteLine(note)}\n`);
      return false;
    }
    throw err;
  }
}

export function registerCheckCommands(program: Command, out: CheckOutput = process.stdout): void {
  program
    .command('check')
    .description('validate a config file and its strategies (connects to nothing)')
    .argument('<config>', 'YAML config file')
    .option('--data <dir>', "directory relative data paths are read from (as mizan backtest's --data)")
    .action(async (file: string, o: { data?: string }) => {
      const ok = await checkConfig(file, out, o.data ? { dataDir: resolve(o.data) } : {});
      if (!ok) process.exitCode = 1;
    });
  program
    .command('strategies')
    .description('list the bundled strategies and their parameters, and inside a project its own (strategies/, and files its config/*.yaml name)')
    .action(async () => {
      const { importStrategy, listBundledStrategies } = await import('../runtime/strategy-loader.js');
      const { loadProjectStrategies } = await import('./project-strategies.js');
      for (const name of listBundledStrategies()) {
        const def = await importStrategy(name);
        out.write(`${def.name}\n  ${def.description}\n`);
        for (const line of describeParams(def.params)) out.write(`    ${line}\n`);
      }
      const cwd = process.cwd();
      const own = await loadProjectStrategies(cwd, (file) => importStrategy(file, file));
      if (own.length === 0) return;
      out.write(`\nthis project's strategies (${cwd}):\n`);
      for (const s of own) {
        const where = relative(cwd, s.file) || s.file;
        if (!s.definition) {
          out.write(`${where}: not loaded: ${s.error}\n`);
          process.exitCode = 1;
          continue;
        }
        out.write(`${s.definition.name}  (${where}${s.from === 'strategies/' ? '' : `, named in ${s.from}`})\n  ${s.definition.description}\n`);
        for (const line of describeParams(s.definition.params)) out.write(`    ${line}\n`);
      }
    });
}
