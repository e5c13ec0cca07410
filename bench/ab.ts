/**
 * Side-by-side A/B of source trees (git worktrees at the commits to compare) on a loaded machine:
 * rounds of one run per tree in turn (A B A B ...), so a change in the machine's load hits every
 * tree alike; medians and ranges per tree. Each run is a fresh child process of the tree's own code:
 * - the backtest pipeline of THIS tree's bench/backtest.ts (`--pipeline`: 1,000,000 stitched
 *   one-minute candles, sma-cross, cold run then warm run), copied into the other trees so every
 *   tree runs the same workload on its own sources;
 * - the tree's own bench/risk.ts (median of 50,000 risk checks).
 * The main-thread CPU time (/proc) is the steadiest measure on a shared machine; wall time is kept.
 *
 *   node bin/run-ts.js bench/ab.ts --rounds 7 --out bench/results/kernel-ab.json A=/path/to/old B=.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(here, '..');

interface Tree {
  name: string;
  dir: string;
  commit: string;
  pipelineFile: string;
}

interface Sample {
  coldMainMs: number;
  coldWallMs: number;
  warmMainMs: number;
  warmWallMs: number;
  trades: number;
  orders: number;
  riskMedianUs: number;
  load1m: number;
}

function args(): { rounds: number; out: string | undefined; trees: Tree[] } {
  const argv = process.argv.slice(2);
  let rounds = 5;
  let out: string | undefined;
  const trees: Tree[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--rounds') rounds = Number(argv[++i]);
    else if (a === '--out') out = resolve(argv[++i]!);
    else {
      const m = /^([^=]+)=(.+)$/.exec(a);
      if (!m) throw new Error(`expected NAME=DIR, got ${a}`);
      const dir = resolve(m[2]!);
      const commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
      const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--untracked-files=no', 'src'], { encoding: 'utf8' }).trim() !== '';
      trees.push({
        name: m[1]!,
        dir,
        commit: dirty ? `${commit}+changes` : commit,
        pipelineFile: join(dir, 'bench', dir === REPO ? 'backtest.ts' : 'ab-backtest.ts'),
      });
    }
  }
  if (!(rounds >= 1) || trees.length < 2) throw new Error('usage: bench/ab.ts [--rounds N] [--out FILE] A=DIR B=DIR [C=DIR ...]');
  return { rounds, out, trees };
}

function lastJson(out: string): Record<string, unknown> {
  return JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>;
}

function runOnce(t: Tree, riskDriver: string): Sample {
  const load1m = loadavg()[0]!;
  const p = lastJson(
    execFileSync(process.execPath, ['--expose-gc', join(t.dir, 'bin/run-ts.js'), t.pipelineFile, '--pipeline'], {
      cwd: t.dir,
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    }),
  );
  const warm = p.warm as Record<string, number>;
  const r = lastJson(
    execFileSync(process.execPath, [join(t.dir, 'bin/run-ts.js'), riskDriver, join(t.dir, 'bench/risk.ts')], { cwd: t.dir, encoding: 'utf8' }),
  );
  return {
    coldMainMs: p.runMainThreadCpuMs as number,
    coldWallMs: p.runMs as number,
    warmMainMs: warm.runMainThreadCpuMs!,
    warmWallMs: warm.runMs!,
    trades: p.trades as number,
    orders: p.orders as number,
    riskMedianUs: r.medianUs as number,
    load1m: Number(load1m.toFixed(2)),
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

function summary(samples: Sample[]) {
  const of = (k: keyof Sample) => samples.map((s) => s[k]);
  const stat = (k: keyof Sample) => ({ median: median(of(k)), min: Math.min(...of(k)), max: Math.max(...of(k)), each: of(k) });
  return {
    coldMainThreadCpuMs: stat('coldMainMs'),
    warmMainThreadCpuMs: stat('warmMainMs'),
    coldWallMs: stat('coldWallMs'),
    warmWallMs: stat('warmWallMs'),
    riskCheckMedianUs: stat('riskMedianUs'),
    trades: [...new Set(of('trades'))],
    orders: [...new Set(of('orders'))],
  };
}

const { rounds, out, trees } = args();
const tmp = mkdtempSync(join(tmpdir(), 'mizan-ab-'));
const riskDriver = join(tmp, 'risk-driver.mts');
// Imports the tree's own bench/risk.ts (given as an absolute path) and prints its result.
writeFileSync(
  riskDriver,
  `import { pathToFileURL } from 'node:url';\nconst m = await import(pathToFileURL(process.argv[2]).href);\nprocess.stdout.write(JSON.stringify(m.run()) + '\\n');\n`,
);
for (const t of trees) if (t.dir !== REPO) copyFileSync(join(REPO, 'bench/backtest.ts'), t.pipelineFile);
const samples = new Map<string, Sample[]>(trees.map((t) => [t.name, []]));
try {
  for (let r = 0; r < rounds; r++) {
    for (const t of trees) {
      const s = runOnce(t, riskDriver);
      samples.get(t.name)!.push(s);
      process.stderr.write(
        `round ${r + 1}/${rounds} ${t.name} (${t.commit}): cold ${s.coldMainMs} ms CPU (${s.coldWallMs} wall), warm ${s.warmMainMs} ms CPU, risk ${s.riskMedianUs} µs, load ${s.load1m}\n`,
      );
    }
  }
} finally {
  for (const t of trees) if (t.dir !== REPO) rmSync(t.pipelineFile, { force: true });
  rmSync(tmp, { recursive: true, force: true });
}
const result = {
  what: "A/B of source trees, one fresh child process per run, rounds alternating the trees; pipeline = this tree's bench/backtest.ts --pipeline (1,000,000 stitched one-minute candles, sma-cross 10/30, a cold then a warm run) on each tree's sources; risk = each tree's bench/risk.ts (median of 50,000 checks). Main-thread CPU time (ms) is the measure least moved by the other jobs on the machine.",
  command: `node bin/run-ts.js bench/ab.ts --rounds ${rounds} ${trees.map((t) => `${t.name}=<${t.commit}>`).join(' ')}`,
  date: new Date().toISOString(),
  node: process.version,
  rounds,
  trees: Object.fromEntries(trees.map((t) => [t.name, { commit: t.commit, ...summary(samples.get(t.name)!) }])),
  load1mEachRound: samples.get(trees[0]!.name)!.map((s) => s.load1m),
};
const text = JSON.stringify(result, null, 2) + '\n';
if (out) {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
}
process.stdout.write(text);
