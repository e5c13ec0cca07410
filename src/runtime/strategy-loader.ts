/**
 * Loads the strategy modules a config names and checks their parameters against the declared
 * specs, reporting every problem at once (as ConfigError, with paths like
 * `strategies[0].params.fast`) before anything connects or trades.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigError } from '../config/issues.js';
import type { ConfigIssue } from '../config/issues.js';
import type { MizanConfig } from '../config/schema.js';
import type { AnyStrategyDefinition } from '../strategy/define.js';
import { resolveParams } from '../strategy/params.js';
import type { StrategyInstance } from '../kernel/trading-core.js';

/** The bundled strategies folder (`strategies/` at the repository root). */
export const STRATEGIES_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../strategies');

function isDefinition(x: unknown): x is AnyStrategyDefinition {
  if (typeof x !== 'object' || x === null) return false;
  const o = x as Record<string, unknown>;
  return typeof o.name === 'string' && typeof o.create === 'function' && typeof o.params === 'object' && o.params !== null;
}

/** Import a strategy by bundled name (`sma-cross`) or by file path. */
export async function importStrategy(nameOrFile: string, file?: string): Promise<AnyStrategyDefinition> {
  const path = file ?? join(STRATEGIES_DIR, `${nameOrFile}.ts`);
  if (!existsSync(path)) {
    const known = listBundledStrategies().join(', ');
    throw new Error(`strategy "${nameOrFile}" not found (${path}); bundled strategies: ${known}`);
  }
  const mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  if (!isDefinition(mod.default)) throw new Error(`${path} does not default-export a strategy made with defineStrategy()`);
  return mod.default;
}

export function listBundledStrategies(): string[] {
  if (!existsSync(STRATEGIES_DIR)) return [];
  return readdirSync(STRATEGIES_DIR)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => basename(f, '.ts'))
    .sort();
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
    out.push({
      name: s.name,
      definition: def,
      params: r.values,
      markets: [...s.markets],
      resolutionSec: s.resolutionSeconds,
      account: s.account ?? 'main',
    });
  }
  if (issues.length) throw new ConfigError(issues, config.source.file ?? 'config');
  return out;
}
