/**
 * `mizan optimize <config> --param … [--trials N] [--sampler tpe|random|grid] [--objective …]
 *  [--min-trades N] [--max-drawdown P] [--seed S] [--study NAME] [--storage FILE] [--workers N]
 *  [--walk-forward train=…,test=…] [--report FILE]`, and `mizan study list|show`.
 */
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, extname, resolve } from 'node:path';
import type { Command } from 'commander';
import type { MetricKey } from '../backtest/metrics/index.js';
import type { Params } from '../optimize/space.js';
import type { StudyRecord, TrialRecord } from '../optimize/store.js';
import type { WalkForwardResult } from '../optimize/walk-forward.js';
import { DEFAULT_STUDY_STORAGE } from '../config/defaults.js';

async function load() {
  const [progress, configLoad, rest, fees, sweep, objectives, optimize, store, study, importance, wf, report] = await Promise.all([
    import('cli-progress'),
    import('../config/load.js'),
    import('../exchange/rest/client.js'),
    import('../backtest/account-fees.js'),
    import('../backtest/sweep.js'),
    import('../optimize/objectives.js'),
    import('../optimize/optimize.js'),
    import('../optimize/store.js'),
    import('../optimize/study.js'),
    import('../optimize/importance.js'),
    import('../optimize/walk-forward.js'),
    import('../optimize/report-html.js'),
  ]);
  const constraint = await import('../optimize/constraint.js');
  // Named one by one (not spread): what this command uses of each module, visible to the unused-export check.
  return {
    cliProgress: progress.default,
    loadConfig: configLoad.loadConfig,
    WallexRestClient: rest.WallexRestClient,
    resolveAccountFees: fees.resolveAccountFees,
    parseWorkers: sweep.parseWorkers,
    parseObjective: objectives.parseObjective,
    parseConstraintNumber: objectives.parseConstraintNumber,
    scoreOf: objectives.scoreOf,
    resolveSpace: optimize.resolveSpace,
    checkGrid: optimize.checkGrid,
    runOptimize: optimize.runOptimize,
    StudyStore: store.StudyStore,
    FINISHED: study.FINISHED,
    bestTrial: study.bestTrial,
    paramImportance: importance.paramImportance,
    importanceText: importance.importanceText,
    parseWalkForward: wf.parseWalkForward,
    renderOptimizeReport: report.renderOptimizeReport,
    parseConstraint: constraint.parseConstraint,
  };
}

const fmt = (v: number | null | undefined) =>
  v == null ? 'n/a' : Math.abs(v) >= 1e6 || (v !== 0 && Math.abs(v) < 1e-3) ? v.toPrecision(4) : String(+v.toFixed(4));
// Parameters exactly as the trial ran them (the shortest text that reads back as the same number):
// a value copied into a config must give the trial's result, not a rounded neighbour's.
const fmtParams = (p: Params) =>
  Object.entries(p)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');

function parseWhole(flag: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new Error(`${flag} ${JSON.stringify(text)}: expected a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`);
  return n;
}

/** The trials table (best first), the best trial and the parameter importance, as `study show` prints them. */
function studyText(m: Awaited<ReturnType<typeof load>>, study: StudyRecord, trials: TrialRecord[], top: number): string {
  const lines: string[] = [];
  const count = (s: string) => trials.filter((t) => t.state === s).length;
  lines.push(`study ${study.name}: ${study.objective} (${study.direction}), sampler ${study.sampler}, seed ${study.seed}, config ${study.configFile}`);
  lines.push(
    `trials: ${trials.length} (complete ${count('complete')}, infeasible ${count('infeasible')}, failed ${count('failed')}, running ${count('running')})`,
  );
  const c = study.constraints;
  if (c.minTrades !== undefined || c.maxDrawdownPct !== undefined || c.params?.length)
    lines.push(
      `constraints: ${[c.minTrades !== undefined ? `trades >= ${c.minTrades}` : '', c.maxDrawdownPct !== undefined ? `max drawdown <= ${c.maxDrawdownPct}%` : '', ...(c.params ?? [])].filter(Boolean).join(', ')}`,
    );
  const best = m.bestTrial(trials, study.direction);
  if (best)
    lines.push(
      `best: trial #${best.number} ${study.objective} ${fmt(best.value)}  ${fmtParams(best.params)}  (return ${fmt(best.metrics.totalReturnPct)}%, max drawdown ${fmt(best.metrics.maxDrawdownPct)}%, trades ${fmt(best.metrics.trades)})`,
    );
  else lines.push('best: none (no complete trial yet)');
  const ranked = [...trials].sort((a, b) => {
    const sa = a.state === 'complete' ? m.scoreOf(a.value, study.direction)! : -Infinity;
    const sb = b.state === 'complete' ? m.scoreOf(b.value, study.direction)! : -Infinity;
    return sb - sa || a.number - b.number;
  });
  lines.push(`top ${Math.min(top, ranked.length)}:`);
  lines.push(`  rank  trial  state       ${study.objective.padEnd(10)}  return%  maxDD%  trades  params`);
  ranked.slice(0, top).forEach((t, i) => {
    lines.push(
      `  ${String(i + 1).padStart(4)}  ${String(t.number).padStart(5)}  ${t.state.padEnd(10)}  ${fmt(t.value).padEnd(10)}  ${fmt(t.metrics.totalReturnPct).padStart(7)}  ${fmt(t.metrics.maxDrawdownPct).padStart(6)}  ${fmt(t.metrics.trades).padStart(6)}  ${fmtParams(t.params)}${t.reason ? `  (${t.reason})` : ''}`,
    );
  });
  const complete = trials.filter((t) => t.state === 'complete' && t.value !== null);
  const names = Object.keys(trials[0]?.params ?? {});
  if (complete.length >= 2 && names.length > 0) {
    lines.push(
      `parameter importance (ε², the share of the objective's variance each parameter explains alone, less what chance gives; ${complete.length} complete trials):`,
    );
    for (const imp of m.paramImportance(
      names,
      complete.map((t) => ({ params: t.params, value: t.value! })),
    )) {
      lines.push(`  ${imp.param.padEnd(20)} ${m.importanceText(imp)}`);
    }
  }
  return lines.join('\n') + '\n';
}

function walkForwardText(wf: WalkForwardResult, metric: MetricKey): string {
  const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z');
  const lines = [
    `walk-forward ${wf.spec}: ${wf.windows.length} window(s), objective ${wf.objective} in-sample (best training trial) against out-of-sample (the next test window)`,
  ];
  lines.push('  window  train                                  test                                   in-sample   out-of-sample  params');
  for (const w of wf.windows) {
    lines.push(
      `  ${String(w.index).padStart(6)}  ${iso(w.trainFrom)}..${iso(w.trainTo)}  ${iso(w.testFrom)}..${iso(w.testTo)}  ${fmt(w.isValue).padEnd(10)}  ${fmt(w.oosValue).padEnd(13)}  ${w.params ? fmtParams(w.params) : ''}${w.note ? `  (${w.note})` : ''}${w.warn ? '  WARNING: out-of-sample far below in-sample' : ''}`,
    );
  }
  const o = wf.overall;
  lines.push(
    `  overall: in-sample ${fmt(o.isValue)}, out-of-sample ${fmt(o.oosValue)} (means over the windows); stitched out-of-sample equity: return ${fmt(o.oosMetrics.totalReturnPct)}%, max drawdown ${fmt(o.oosMetrics.maxDrawdownPct)}%, trades ${fmt(o.oosMetrics.trades)}, sharpe ${fmt(o.oosMetrics.sharpe)}`,
  );
  const warned = wf.windows.filter((w) => w.warn).map((w) => w.index);
  if (o.warn || warned.length) {
    lines.push(
      `  WARNING: out-of-sample ${metric} fell more than ${wf.threshold * 100}% of |in-sample| below in-sample (${[o.warn ? 'overall' : '', warned.length ? `window ${warned.join(', ')}` : ''].filter(Boolean).join('; ')}): the optimum may be fitted to noise`,
    );
  }
  return lines.join('\n') + '\n';
}

export function registerOptimizeCommands(program: Command): void {
  program
    .command('optimize')
    .description('search strategy parameters (TPE, random or grid), stored as a resumable study in SQLite')
    .argument('<config>', 'YAML config with a backtest section')
    .option(
      '--param <spec>',
      'name=LOW..HIGH[:STEP|:log] or name=a,b,c (instance.name with several strategies); repeatable',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--trials <n>', 'finished trials the study should hold (a resumed study runs the rest)', '100')
    .option('--sampler <name>', "tpe, random or grid (default: the stored study's, tpe for a new one)")
    .option(
      '--objective <name>',
      'sharpe, sortino, calmar, return, cagr, profit-factor, expectancy, sqn, win-rate, drawdown (as sweep --metric; winrate and pf too), or a metric key',
      'sharpe',
    )
    .option('--min-trades <n>', 'a trial with fewer trades (counted as the metrics count them: closed, and one open at the end) is infeasible')
    .option('--max-drawdown <pct>', 'a trial with a deeper max drawdown (percent) is infeasible')
    .option(
      '--constraint <expr>',
      'the sampler proposes only points where it holds, e.g. "fast < slow" (parameters, numbers, + - * /, comparisons); repeatable',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--seed <n>', "seed of the sampler (default: the stored study's, random for a new one)")
    .option('--study <name>', "study name (default: the config file's name)")
    .option('--storage <file>', 'SQLite file of the studies', DEFAULT_STUDY_STORAGE)
    .option(
      '--workers <n>',
      'worker threads (default: the available cores); trials are asked this many at a time (with --queue: trials handed to the queue at a time)',
    )
    .option(
      '--queue <url>',
      'run the trials on `mizan worker` processes through this Redis server (redis://[user:password@]host:port[/db], rediss://… for TLS); the study stays here',
    )
    .option('--walk-forward <spec>', 'train=90d,test=30d[,step=30d][,anchored]: optimise per training window, test on the next')
    .option('--report <file>', 'write the HTML optimisation report here')
    .action(
      async (
        file: string,
        o: {
          param: string[];
          trials: string;
          sampler?: string;
          objective: string;
          minTrades?: string;
          maxDrawdown?: string;
          constraint: string[];
          seed?: string;
          study?: string;
          storage: string;
          workers?: string;
          queue?: string;
          walkForward?: string;
          report?: string;
        },
      ) => {
        const m = await load();
        const trials = parseWhole('--trials', o.trials, 1);
        if (o.sampler !== undefined && !['tpe', 'random', 'grid'].includes(o.sampler))
          throw new Error(`--sampler ${JSON.stringify(o.sampler)}: expected tpe, random or grid`);
        const sampler = o.sampler as 'tpe' | 'random' | 'grid' | undefined;
        const objective = m.parseObjective(o.objective);
        const constraints = {
          ...(o.minTrades !== undefined ? { minTrades: m.parseConstraintNumber('--min-trades', o.minTrades, true) } : {}),
          ...(o.maxDrawdown !== undefined ? { maxDrawdownPct: m.parseConstraintNumber('--max-drawdown', o.maxDrawdown, false) } : {}),
        };
        const seed = o.seed === undefined ? undefined : parseWhole('--seed', o.seed, 0, 2 ** 32 - 1);
        const workers = o.workers === undefined ? availableParallelism() : m.parseWorkers(o.workers);
        const queue =
          o.queue === undefined
            ? undefined
            : await import('../queue/index.js').then(({ parseQueueUrl, queueTrialExecutor }) => ({ queueTrialExecutor, url: parseQueueUrl(o.queue!) }));
        const walkForward = o.walkForward === undefined ? undefined : m.parseWalkForward(o.walkForward);
        const loaded = await m.loadConfig(file);
        if (!loaded.backtest) throw new Error(`${file}: no backtest section (data, from, to)`);
        const config = await m.resolveAccountFees(
          loaded,
          () =>
            new m.WallexRestClient({
              baseUrl: loaded.exchange.baseUrl,
              timeoutMs: loaded.exchange.timeoutMs,
              ...(loaded.exchange.apiKey ? { apiKey: loaded.exchange.apiKey } : {}),
            }),
        );
        const space = await m.resolveSpace(config, o.param);
        if (o.constraint.length) {
          // Parsed now: a bad constraint stops before anything runs; stored with the study as written.
          for (const c of o.constraint)
            m.parseConstraint(
              c,
              space.map((d) => d.name),
            );
          Object.assign(constraints, { params: o.constraint });
        }
        if (sampler === 'grid') m.checkGrid(space);
        const studyName = o.study ?? basename(file, extname(file));
        const store = new m.StudyStore(resolve(o.storage));
        let stop = false;
        const onSigint = () => {
          if (stop) {
            process.stderr.write('mizan: stopped now; the running trials will run again when the study resumes\n');
            process.exit(130);
          }
          stop = true;
          process.stderr.write('mizan: stopping after the running trials (Ctrl-C again to stop now)\n');
        };
        process.on('SIGINT', onSigint);
        const tty = process.stderr.isTTY === true;
        const bar = new m.cliProgress.SingleBar(
          { format: `optimize [{bar}] {value}/{total} trials | best ${objective.name} {best}`, stream: process.stderr },
          m.cliProgress.Presets.shades_classic,
        );
        let barOn = false;
        try {
          const result = await m.runOptimize({
            configFile: resolve(file),
            config,
            space,
            store,
            studyName,
            trials,
            ...(sampler ? { sampler } : {}),
            ...(seed !== undefined ? { seed } : {}),
            objective,
            constraints,
            workers,
            ...(queue
              ? {
                  executorFactory: queue.queueTrialExecutor(queue.url, {
                    concurrency: workers,
                    say: (line) => process.stderr.write(`${line}\n`),
                    onSweepId: (id) => process.stderr.write(`queue: trials of study ${studyName} (queue id ${id}) on ${queue.url.shown}\n`),
                  }),
                }
              : {}),
            ...(walkForward ? { walkForward } : {}),
            candleSource: new m.WallexRestClient({ baseUrl: config.exchange.baseUrl, timeoutMs: config.exchange.timeoutMs }),
            onDataReport: (r) => {
              if (r.ok) {
                for (const p of r.problems) process.stderr.write(`data: ${p}\n`);
                for (const n of r.notes) process.stderr.write(`data note: ${n}\n`);
              }
            },
            onStudy: (s, created, finished, w) => {
              if (barOn) bar.stop();
              barOn = false;
              const where = w ? ` (walk-forward window ${w.index}: train ${new Date(w.trainFrom).toISOString()}..${new Date(w.trainTo).toISOString()})` : '';
              process.stderr.write(
                `study ${s.name}${where}: ${created ? 'created' : `resumed with ${finished} finished trial(s)`}, sampler ${s.sampler}, seed ${s.seed}, ${objective.name} (${objective.direction}), ${queue ? `${workers} trial(s) at a time on the queue ${queue.url.shown}` : `${workers} worker(s)`}, storage ${store.file}\n`,
              );
              if (tty) {
                bar.start(trials, Math.min(finished, trials), { best: 'n/a' });
                barOn = true;
              }
            },
            onTrial: (t, best, finished, target) => {
              if (barOn) bar.update(Math.min(finished, target), { best: best ? `${fmt(best.value)} (#${best.number})` : 'n/a' });
              else
                process.stderr.write(
                  `trial ${t.number} ${t.state} ${objective.name} ${fmt(t.value)} | ${finished}/${target} | best ${best ? `${fmt(best.value)} (#${best.number})` : 'n/a'} | ${fmtParams(t.params)}${t.reason ? ` | ${t.reason}` : ''}\n`,
                );
            },
            shouldStop: () => stop,
          });
          if (barOn) bar.stop();
          barOn = false;
          const { unrun } = result.outcome;
          const rerun = result.outcome.rerun.filter((n) => !unrun.some((u) => u.number === n));
          if (rerun.length) process.stderr.write(`re-ran trial(s) ${rerun.join(', ')} left running by a stopped process or refused by a queue worker\n`);
          if (result.outcome.exhausted) process.stderr.write('the grid is exhausted: every point has run\n');
          if (!result.walkForward) process.stdout.write(studyText(m, result.study, store.trials(result.study.id), 10));
          else process.stdout.write(walkForwardText(result.walkForward, objective.metric));
          if (o.report && !result.interrupted) {
            // With walk-forward: the last window's study, and the walk-forward charts.
            writeFileSync(
              o.report,
              m.renderOptimizeReport({
                study: result.study,
                trials: store.trials(result.study.id),
                ...(result.walkForward ? { walkForward: result.walkForward } : {}),
              }),
            );
            process.stdout.write(`wrote ${o.report}\n`);
          }
          if (result.interrupted) {
            process.stderr.write(`mizan: interrupted; run the same command (--study ${studyName}) to resume\n`);
            process.exitCode = 130;
          }
          if (unrun.length) {
            // Not results: stored as running, so the resume runs them (same numbers and parameters).
            process.stderr.write(
              `mizan: ${unrun.length} trial(s) were refused by a worker (#${unrun.map((u) => u.number).join(', #')}): ${unrun[0]!.why}; ` +
                `they are not stored as results, no further trial was asked, and the same command (--study ${studyName}) runs them when the workers run the same code: exit code 3\n`,
            );
            process.exitCode = 3;
          }
        } finally {
          if (barOn) bar.stop();
          process.off('SIGINT', onSigint);
          store.close();
        }
      },
    );

  const study = program.command('study').description('the studies of `mizan optimize`');
  study
    .command('list')
    .description('every study in the storage file')
    .option('--storage <file>', 'SQLite file of the studies', DEFAULT_STUDY_STORAGE)
    .action(async (o: { storage: string }) => {
      const m = await load();
      const store = new m.StudyStore(resolve(o.storage));
      try {
        const all = store.studies();
        if (all.length === 0) process.stdout.write(`no studies in ${store.file}\n`);
        for (const s of all) {
          const trials = store.trials(s.id);
          const best = m.bestTrial(trials, s.direction);
          process.stdout.write(
            `${s.name}  ${trials.filter((t) => m.FINISHED.has(t.state)).length} trials  ${s.sampler}  ${s.objective} best ${best ? `${fmt(best.value)} (#${best.number})` : 'n/a'}  ${new Date(s.createdAt).toISOString()}\n`,
          );
        }
      } finally {
        store.close();
      }
    });
  study
    .command('show')
    .description('a study: its trials (top N by the objective), the best, parameter importance')
    .argument('<name>', 'study name')
    .option('--storage <file>', 'SQLite file of the studies', DEFAULT_STUDY_STORAGE)
    .option('--top <n>', 'trials listed', '10')
    .option('--report <file>', 'write the HTML optimisation report here')
    .action(async (name: string, o: { storage: string; top: string; report?: string }) => {
      const m = await load();
      const top = parseWhole('--top', o.top, 1);
      const store = new m.StudyStore(resolve(o.storage));
      try {
        const s = store.study(name);
        if (!s) throw new Error(`no study named ${JSON.stringify(name)} in ${store.file} (mizan study list shows them)`);
        process.stdout.write(studyText(m, s, store.trials(s.id), top));
        const wfName = name.replace(/\/wf\d+$/, '');
        const wf = store.walkForward(wfName) as WalkForwardResult | undefined;
        if (wf) process.stdout.write(walkForwardText(wf, m.parseObjective(wf.objective).metric));
        if (o.report) {
          writeFileSync(o.report, m.renderOptimizeReport({ study: s, trials: store.trials(s.id), ...(wf ? { walkForward: wf } : {}) }));
          process.stdout.write(`wrote ${o.report}\n`);
        }
      } finally {
        store.close();
      }
    });
}
