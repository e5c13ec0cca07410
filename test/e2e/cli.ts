/**
 * The user's path: `node bin/mizan.js ...` as a child process, real files in temp dirs.
 * `mizan()` runs a command to its end; `startRun()` starts a long-running one in its own process
 * group (as a terminal does), so Ctrl-C can be sent to the whole group.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Decimal } from '../../src/core/decimal.js';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(REPO, 'bin/mizan.js');

export interface Result {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr as they arrived. */
  all: string;
}

export interface RunOptions {
  cwd?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
}

function childEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  // vitest's own variables would make the child think it runs under a test runner.
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  delete env.VITEST_POOL_ID;
  delete env.NODE_OPTIONS;
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

export interface Running {
  proc: ChildProcess;
  pid: number;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  stdout(): string;
  /** Resolves when the output (from offset `from`) matches; rejects after timeoutMs, with the output so far. */
  waitFor(re: RegExp, timeoutMs?: number, from?: number): Promise<RegExpMatchArray>;
  exited: Promise<Result>;
  /** Ctrl-C as a terminal sends it: SIGINT to the process group. */
  interrupt(): void;
  /** SIGKILL to the whole group (cleanup). */
  kill(): void;
}

export function startRun(args: string[], o: RunOptions = {}): Running {
  const proc = spawn(process.execPath, [BIN, ...args], { cwd: o.cwd ?? REPO, env: childEnv(o.env), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let all = '';
  let err = '';
  const waiters: { re: RegExp; from: number; ok: (m: RegExpMatchArray) => void }[] = [];
  const check = () => {
    for (const w of [...waiters]) {
      const m = all.slice(w.from).match(w.re);
      if (m) {
        waiters.splice(waiters.indexOf(w), 1);
        w.ok(m);
      }
    }
  };
  proc.stdout!.on('data', (b: Buffer) => {
    out += b.toString();
    all += b.toString();
    check();
  });
  proc.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
    all += b.toString();
    check();
  });
  const exited = new Promise<Result>((r) => proc.on('close', (code, signal) => r({ code, signal, stdout: out, stderr: err, all })));
  const pid = proc.pid!;
  const group = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* already gone */
    }
  };
  return {
    proc,
    pid,
    output: () => all,
    stdout: () => out,
    waitFor(re, timeoutMs = 30_000, from = 0) {
      const m = all.slice(from).match(re);
      if (m) return Promise.resolve(m);
      return new Promise((ok, fail) => {
        const w = { re, from, ok: (x: RegExpMatchArray) => (clearTimeout(t), ok(x)) };
        const t = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          fail(new Error(`no ${String(re)} within ${timeoutMs} ms; output:\n${all}`));
        }, timeoutMs);
        waiters.push(w);
        void exited.then(() => {
          if (waiters.includes(w)) {
            clearTimeout(t);
            waiters.splice(waiters.indexOf(w), 1);
            const m2 = all.slice(from).match(re);
            if (m2) ok(m2);
            else fail(new Error(`the process exited before ${String(re)}; output:\n${all}`));
          }
        });
      });
    },
    exited,
    interrupt: () => group('SIGINT'),
    kill: () => group('SIGKILL'),
  };
}

/** Run `mizan <args>` to its end. */
export async function mizan(args: string[], o: RunOptions = {}): Promise<Result> {
  const r = startRun(args, o);
  const t = setTimeout(() => r.kill(), o.timeoutMs ?? 60_000);
  try {
    return await r.exited;
  } finally {
    clearTimeout(t);
  }
}

export interface TempDir {
  dir: string;
  file(name: string, text: string): string;
  read(name: string): string;
  remove(): void;
}

/** A temp dir outside the repository. */
export function tempDir(prefix = 'mizan-e2e-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file(name, text) {
      const p = join(dir, name);
      writeFileSync(p, text);
      return p;
    },
    read: (name) => readFileSync(join(dir, name), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** config/default.yaml (what `npm start` runs) with its journal moved to `journal`, and optional edits. */
export function defaultConfigWith(journal: string, edit: (text: string) => string = (t) => t): string {
  const text = readFileSync(join(REPO, 'config/default.yaml'), 'utf8');
  if (!text.includes('file: .mizan/paper.sqlite')) throw new Error('config/default.yaml no longer has journal.file .mizan/paper.sqlite');
  return edit(text.replace('file: .mizan/paper.sqlite', `file: ${journal}`));
}

/**
 * The config of a `mizan record` against a simulator at `baseUrl` over `/ws`: the markets of its one
 * strategy instance are what is recorded. `stream` adds settings of `exchange.stream`.
 */
export function recordYaml(baseUrl: string, o: { strategy?: string; markets?: readonly string[]; stream?: string } = {}): string {
  return [
    'mode: paper',
    `exchange: { baseUrl: ${JSON.stringify(baseUrl)}, simulator: false, stream: { transport: ws${o.stream ? `, ${o.stream}` : ''} } }`,
    'strategies:',
    `  - { name: s, strategy: ${o.strategy ?? 'sma-cross'}, markets: [${(o.markets ?? ['BTCUSDT']).join(', ')}] }`,
    '',
  ].join('\n');
}

/** A backtest's result.json as far as `ledgerValue` reads it. */
interface LedgerResult {
  finalBalances: Record<string, { value: string }>;
  accounting: { lastPrices: Record<string, string | number> };
}

/** The account's value in USDT from a backtest's final balances at its markets' last prices (`<ASSET>USDT`). */
export function ledgerValue(result: Record<string, unknown>): Decimal {
  const r = result as unknown as LedgerResult;
  let v = new Decimal(0);
  for (const [asset, b] of Object.entries(r.finalBalances)) {
    const q = new Decimal(b.value);
    if (q.isZero()) continue;
    v = asset === 'USDT' ? v.plus(q) : v.plus(q.mul(r.accounting.lastPrices[`${asset}USDT`]!));
  }
  return v;
}

/** A backtest config over one candle file: the strategies' YAML lines as given, the journal in memory, warnings only. */
export function backtestYaml(o: { strategies: readonly string[]; symbol: string; file: string; from: string; to: string; balances: string }): string {
  return [
    'mode: backtest',
    'strategies:',
    ...o.strategies,
    'backtest:',
    `  data: [{ symbol: ${o.symbol}, file: ${JSON.stringify(o.file)} }]`,
    `  from: ${o.from}`,
    `  to: ${o.to}`,
    `  balances: ${o.balances}`,
    "journal: { file: ':memory:' }",
    'logging: { level: warn, pretty: false }',
    '',
  ].join('\n');
}

/** `mizan backtest <config> --out <dir>/out` as a child process, which must exit 0; its result.json read. */
export async function backtestResult<T>(config: string, dir: string): Promise<{ result: T; run: Result }> {
  const out = join(dir, 'out');
  const run = await mizan(['backtest', config, '--out', out]);
  if (run.code !== 0) throw new Error(`mizan backtest exited ${run.code}:\n${run.all}`);
  return { result: JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as T, run };
}
