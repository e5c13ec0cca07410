/**
 * `mizan strategies` inside a project (test/e2e/project-strategies.test.ts): besides the bundled strategies, the
 * project's own: the strategy files of its `strategies/` folder and those its configs
 * (`config/*.yaml`) name by path. Each is imported as `mizan run` imports it and listed with its
 * parameters; a file that fails to import is listed with the reason (the command then exits 1). A
 * module of `strategies/` that loads but exports no strategy (a helper) is left out.
 */
import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse } from 'yaml';
import { STRATEGY_FILE_RE } from '../config/load.js';
import { PACKAGE_ROOT } from '../package-root.js';
import type { AnyStrategyDefinition } from '../strategy/define.js';

export interface ProjectStrategy {
  /** Absolute path of the file. */
  file: string;
  /** Where it was found: the strategies folder, or the config naming it (relative to the project). */
  from: string;
  definition?: AnyStrategyDefinition;
  /** Why it could not be imported. */
  error?: string;
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));

/** The strategy files of the project in `dir` (none when `dir` is mizan's own checkout or holds no project). */
function findProjectStrategyFiles(dir: string): { file: string; from: string }[] {
  const out = new Map<string, string>();
  const folder = join(dir, 'strategies');
  // mizan's own checkout: its strategies/ are the bundled ones, listed already.
  if (isDir(folder) && real(folder) !== real(join(PACKAGE_ROOT, 'strategies'))) {
    for (const f of readdirSync(folder).sort()) {
      if (STRATEGY_FILE_RE.test(f) && !f.endsWith('.d.ts') && !/\.(test|spec)\.[mc]?[jt]s$/.test(f)) out.set(real(join(folder, f)), 'strategies/');
    }
  }
  const configs = join(dir, 'config');
  if (isDir(configs)) {
    for (const f of readdirSync(configs).sort()) {
      if (!/\.ya?ml$/.test(f)) continue;
      const path = join(configs, f);
      let doc: unknown;
      try {
        doc = parse(readFileSync(path, 'utf8'));
      } catch {
        continue; // `mizan check` names what is wrong with it; here it names no strategy
      }
      const list = (doc as { strategies?: unknown } | null)?.strategies;
      if (!Array.isArray(list)) continue;
      for (const e of list) {
        const s = (e as { strategy?: unknown } | null)?.strategy;
        if (typeof s !== 'string' || !STRATEGY_FILE_RE.test(s)) continue;
        const file = real(isAbsolute(s) ? s : resolve(dirname(path), s));
        if (!out.has(file)) out.set(file, relative(dir, path));
      }
    }
  }
  return [...out].map(([file, from]) => ({ file, from }));
}

/** Import each project strategy file (`load`: the loader `mizan run` uses). */
export async function loadProjectStrategies(dir: string, load: (file: string) => Promise<AnyStrategyDefinition>): Promise<ProjectStrategy[]> {
  const out: ProjectStrategy[] = [];
  for (const { file, from } of findProjectStrategyFiles(dir)) {
    if (!existsSync(file)) {
      out.push({ file, from, error: `${from} names ${file}, which does not exist` });
      continue;
    }
    try {
      out.push({ file, from, definition: await load(file) });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      // A helper module in strategies/ (no default-exported strategy) is not a strategy: left out.
      if (from === 'strategies/' && /does not default-export a strategy/.test(message)) continue;
      out.push({ file, from, error: message });
    }
  }
  return out;
}
