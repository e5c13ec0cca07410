/** Run `node bin/mizan.js ...` as a user would, in a child process, and collect what it printed. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO } from '../helpers.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], opts: { cwd?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const proc = spawn(process.execPath, [join(REPO, 'bin/mizan.js'), ...args], {
      cwd: opts.cwd ?? REPO,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`mizan ${args.join(' ')} did not finish in time\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 60_000);
    proc.on('error', reject);
    proc.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mizan-cli-'));
}

/** A YAML file in `dir`. */
export function writeFile(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

export function readResult(out: string): Record<string, unknown> & { summary: Record<string, unknown> } {
  return JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Record<string, unknown> & { summary: Record<string, unknown> };
}

/**
 * A backtest config running one strategy file (relative to the config's folder) on a day of the
 * bundled BTC/USDT 5-minute candles, 10,000 USDT, the journal in memory.
 */
export function oneDayConfig(strategyFile: string, name = 's'): string {
  return `mode: backtest
strategies:
  - { name: ${name}, strategy: ./${strategyFile}, markets: [BTCUSDT], resolution: "300s" }
backtest:
  data: [ { symbol: BTCUSDT, file: ${join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz')} } ]
  from: 2023-01-03
  to: 2023-01-04
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
`;
}
