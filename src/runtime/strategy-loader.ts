/**
 * Loads the strategy modules a config names and checks their parameters against the declared
 * specs, reporting every problem at once (as ConfigError, with paths like
 * `strategies[0].params.fast`) before anything connects or trades.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../config/issues.js';
import type { ConfigIssue } from '../config/issues.js';
import type { MizanConfig } from '../config/schema.js';
import { STRATEGY_FILE_RE } from '../config/load.js';
import type { AnyStrategyDefinition } from '../strategy/define.js';
import { resolveParams } from '../strategy/params.js';
import type { StrategyInstance } from '../kernel/trading-core.js';
import { MAIN_ACCOUNT } from '../core/account.js';
import { compileStrategy, type MizanModules } from './strategy-compile.js';
import { harness } from '../testing/harness.js';

/**
 * The bundled strategies folder: `strategies/` at the repository root when mizan runs from its
 * TypeScript sources, `dist/strategies/` (compiled) when it runs from the build.
 */
export const STRATEGIES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../strategies');
/** The extension of the bundled strategy files next to this module (`.ts` from sources, `.js` built). */
const OWN_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
let modules: MizanModules | undefined;

/**
 * The modules a user's strategy gets for `mizan` and `mizan/<subpath>`: by default this package's
 * own entries (the build's dist/src/); the bundled `mizan backtest` (dist/bundle/) names its own, so
 * a strategy shares the bundle's module instances.
 */
export function useMizanModules(m: MizanModules): void {
  modules = m;
}

function mizanModules(): MizanModules {
  return (modules ??= { api: import.meta.resolve('mizan'), resolve: (s) => import.meta.resolve(s) });
}

function isDefinition(x: unknown): x is AnyStrategyDefinition {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return typeof o.name === 'string' && typeof o.create === 'function' && typeof o.params === 'object' && o.params !== null;
}

/** The package's folder: the nearest one above this module with a package.json (src/runtime/, dist/src/runtime/ or dist/bundle/). */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return from;
  }
}
const ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)));
/** mizan's own code, compiled or (through source maps) the sources it was compiled from. */
const OWN = [join(ROOT, 'src') + '/', join(ROOT, 'dist') + '/'];
const FRAME = /(?:\(|at )(?:file:\/\/)?(\/[^():\n]+):(\d+):(\d+)\)?$/;

/** An error thrown while a strategy module was evaluated, its message naming the file:line:column it came from (the first frame outside mizan and node). */
function located(err: unknown): unknown {
  if (!(err instanceof Error) || !err.stack) return err;
  for (const line of err.stack.split('\n').slice(1)) {
    const m = FRAME.exec(line.trim());
    if (!m || OWN.some((dir) => m[1]!.startsWith(dir)) || m[1]!.includes('/node_modules/')) continue;
    return new Error(`${err.message} (at ${m[1]}:${m[2]}:${m[3]})`, { cause: err });
  }
  return err;
}

/** Import a strategy by bundled name (`sma-cross`) or by file path. */
export async function importStrategy(nameOrFile: string, file?: string): Promise<AnyStrategyDefinition> {
  const path = file ?? join(STRATEGIES_DIR, `${nameOrFile}${OWN_EXT}`);
  if (!existsSync(path)) {
    const known = listBundledStrategies().join(', ');
    throw new Error(`strategy "${nameOrFile}" not found (${path}); bundled strategies: ${known}`);
  }
  // A user's file, when mizan runs compiled, is compiled with esbuild (runtime/strategy-compile.ts);
  // from the sources (vitest, bin/run-ts.js) the running TypeScript loader imports it as it is.
  const url =
    file && OWN_EXT === '.js'
      ? await compileStrategy(resolve(path), mizanModules())
      : !file && modules?.bundledStrategy
        ? modules.bundledStrategy(nameOrFile)
        : pathToFileURL(path).href;
  let mod: { default?: unknown };
  try {
    mod = (await import(url)) as { default?: unknown };
  } catch (err) {
    throw located(err);
  }
  if (!isDefinition(mod.default)) throw new Error(`${path} does not default-export a strategy made with defineStrategy()`);
  return mod.default;
}

export function listBundledStrategies(): string[] {
  if (!existsSync(STRATEGIES_DIR)) return [];
  return readdirSync(STRATEGIES_DIR)
    .filter((f) => f.endsWith(OWN_EXT) && !f.endsWith('.d.ts'))
    .map((f) => basename(f, OWN_EXT))
    .sort();
}

/**
 * Whether the handlers a definition creates include onSchedule, asked of a throwaway instance (the
 * testing harness's context, the instance's params and markets); undefined when creating one there
 * throws (the run creates its own: nothing is claimed then).
 */
function hasOnSchedule(
  def: AnyStrategyDefinition,
  o: { markets: string[]; params: Record<string, unknown>; resolutionSec?: number; candles?: number[] },
): boolean | undefined {
  let found: boolean | undefined;
  const probe: AnyStrategyDefinition = {
    ...def,
    create(ctx) {
      const handlers = def.create(ctx);
      found = typeof handlers.onSchedule === 'function';
      return handlers;
    },
  };
  try {
    harness(probe, o);
  } catch {
    return undefined;
  }
  return found;
}

/**
 * The issue of a `schedule` on a strategy whose handlers have no onSchedule: a schedule only calls
 * onSchedule (the candle handlers run on every candle either way), so it would do nothing.
 */
function scheduleIssue(
  def: AnyStrategyDefinition,
  i: number,
  schedule: unknown,
  o: { markets: string[]; params: Record<string, unknown>; resolutionSec?: number; candles?: number[] },
): ConfigIssue | undefined {
  if (schedule === undefined || schedule === null || hasOnSchedule(def, o) !== false) return undefined;
  const cron = typeof schedule === 'object' && typeof (schedule as { cron?: unknown }).cron === 'string' ? (schedule as { cron: string }).cron : undefined;
  return {
    path: `strategies[${i}].schedule`,
    message: `${cron !== undefined ? `{ cron: ${JSON.stringify(cron)} }` : 'a schedule'} would never run: strategy ${def.name} has no onSchedule handler (a schedule only calls onSchedule; its candle handlers run on every candle either way): remove it, or give the strategy an onSchedule`,
    ...(cron !== undefined ? { value: cron } : {}),
  };
}

/** Strategy definitions already imported, by name and file (a sweep worker imports each once). */
export type StrategyDefinitionCache = Map<string, Promise<AnyStrategyDefinition>>;

/**
 * Build the strategy instances of a config; throws ConfigError listing every problem. With a
 * `cache`, a strategy module is imported once and its definition reused (no module resolution per
 * sweep run: under the TypeScript loader each dynamic import is a round trip to its thread).
 */
export async function loadStrategyInstances(config: MizanConfig, cache?: StrategyDefinitionCache): Promise<StrategyInstance[]> {
  const issues: ConfigIssue[] = [];
  const out: StrategyInstance[] = [];
  for (const [i, s] of config.strategies.entries()) {
    let def: AnyStrategyDefinition;
    try {
      const key = `${s.strategy}\u0000${s.strategyFile ?? ''}`;
      let p = cache?.get(key);
      if (!p) {
        p = importStrategy(s.strategy, s.strategyFile);
        cache?.set(key, p);
        p.catch(() => cache?.delete(key));
      }
      def = await p;
    } catch (err) {
      issues.push({ path: `strategies[${i}].strategy`, message: err instanceof Error ? err.message : String(err), value: s.strategy });
      continue;
    }
    const r = resolveParams(def.params, s.params, `strategies[${i}].params`);
    if (!r.ok) {
      for (const is of r.issues) issues.push({ path: is.path, message: is.message });
      continue;
    }
    const sched = scheduleIssue(def, i, s.schedule, {
      markets: [...s.markets],
      params: s.params,
      resolutionSec: s.resolutionSeconds,
      ...(s.candleSeconds?.length ? { candles: [...s.candleSeconds] } : {}),
    });
    if (sched) {
      issues.push(sched);
      continue;
    }
    out.push({
      name: s.name,
      definition: def,
      params: r.values,
      markets: [...s.markets],
      resolutionSec: s.resolutionSeconds,
      ...(s.candleSeconds?.length ? { candleSeconds: [...s.candleSeconds] } : {}),
      account: s.account ?? MAIN_ACCOUNT,
    });
  }
  if (issues.length) throw new ConfigError(issues, config.source.file ?? 'config');
  return out;
}

/**
 * The strategy stage of a check on a file that may have other problems: every `strategies[i]` entry
 * whose `strategy` can be read is imported, and its `params` (when they are a mapping) checked against
 * the declarations. Returns the problems (no instances: the rest of the entry may be broken).
 */
export async function checkStrategyEntries(data: unknown, baseDir: string): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  const root = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  const entries = Array.isArray(root.strategies) ? (root.strategies as unknown[]) : [];
  for (const [i, e] of entries.entries()) {
    if (e === null || typeof e !== 'object' || Array.isArray(e)) continue;
    const entry = e as Record<string, unknown>;
    const name = entry.strategy;
    if (typeof name !== 'string' || name === '') continue;
    let def: AnyStrategyDefinition;
    try {
      def = await importStrategy(name, STRATEGY_FILE_RE.test(name) ? (isAbsolute(name) ? name : resolve(baseDir, name)) : undefined);
    } catch (err) {
      issues.push({ path: `strategies[${i}].strategy`, message: err instanceof Error ? err.message : String(err), value: name });
      continue;
    }
    const params = entry.params;
    if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) continue;
    const r = resolveParams(def.params, params as Record<string, unknown> | undefined, `strategies[${i}].params`);
    if (!r.ok) {
      for (const is of r.issues) issues.push({ path: is.path, message: is.message });
      continue;
    }
    const markets = Array.isArray(entry.markets) ? entry.markets.filter((m): m is string => typeof m === 'string') : [];
    const sched = markets.length > 0 ? scheduleIssue(def, i, entry.schedule, { markets, params: (params ?? {}) as Record<string, unknown> }) : undefined;
    if (sched) issues.push(sched);
  }
  return issues;
}

/** Each market's candle resolutions: those of the strategies trading it (their own and their declared `candles:`). */
export function candlesPerMarket(
  instances: readonly { markets: readonly string[]; resolutionSec: number; candleSeconds?: readonly number[] }[],
): Record<string, number[]> {
  const out: Record<string, Set<number>> = {};
  for (const i of instances) for (const m of i.markets) for (const r of [i.resolutionSec, ...(i.candleSeconds ?? [])]) (out[m] ??= new Set()).add(r);
  return Object.fromEntries(Object.entries(out).map(([m, rs]) => [m, [...rs].sort((a, b) => a - b)]));
}
