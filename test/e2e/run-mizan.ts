/**
 * The user's path: `node bin/mizan.js ...` in a child process, with the real pino logger writing
 * JSON lines (stdout is a pipe), real config and journal files in a temp dir.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor as waitForCondition } from '../support/wait-for.js';

export const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface MizanChild {
  proc: ChildProcess;
  /** Everything written to stdout and stderr so far. */
  out(): string;
  /** The JSON log lines so far (other lines skipped). */
  lines(): Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  alive(): boolean;
}

export function startMizan(args: string[], env: Record<string, string> = {}): MizanChild {
  const proc = spawn(process.execPath, ['bin/mizan.js', ...args], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  let done = false;
  proc.stdout!.on('data', (b: Buffer) => (text += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (text += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    proc.on('exit', (code, signal) => {
      done = true;
      r({ code, signal });
    }),
  );
  const lines = () => {
    const out: Record<string, unknown>[] = [];
    for (const l of text.split('\n')) {
      if (!l.startsWith('{')) continue;
      try {
        out.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        // a line cut mid-write: the next read has it whole
      }
    }
    return out;
  };
  return { proc, out: () => text, lines, exited, alive: () => !done };
}

/** Run a short mizan command to its end (halt, resume, status, journal ...). */
export function mizanSync(args: string[], env: Record<string, string> = {}): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['bin/mizan.js', ...args], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

/** config/default.yaml (what `npm start` runs) with its journal in `dir`, plus optional replaced lines. */
export function defaultConfigCopy(dir: string, edit: (yaml: string) => string = (y) => y): { config: string; journal: string } {
  const journal = join(dir, 'paper.sqlite');
  const yaml = readFileSync(join(REPO, 'config/default.yaml'), 'utf8').replace('file: .mizan/paper.sqlite', `file: ${journal}`);
  if (!yaml.includes(journal)) throw new Error('config/default.yaml no longer has `file: .mizan/paper.sqlite`');
  const config = join(dir, 'paper.yaml');
  writeFileSync(config, edit(yaml));
  return { config, journal };
}

export async function waitFor(what: string, cond: () => boolean, timeoutMs: number, child?: MizanChild, stepMs = 100): Promise<void> {
  const output = () => {
    if (!child) return '';
    // The message keeps the last 4000 characters; E2E_DUMP=<prefix> keeps the whole output in a file.
    if (process.env.E2E_DUMP) writeFileSync(`${process.env.E2E_DUMP}.${process.pid}.log`, child.out());
    return `--- output ---\n${child.out().slice(-4000)}`;
  };
  await waitForCondition(
    () => {
      if (cond()) return true;
      if (child && !child.alive()) throw new Error(`the bot exited while waiting for ${what}\n${output()}`);
      return false;
    },
    { what, timeout: timeoutMs, interval: stepMs, detail: output },
  );
}
