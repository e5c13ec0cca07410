/** Parameter overrides of a run (sweeps, optimisation): applied to the config by strategy instance name. */
import type { MizanConfig } from '../config/schema.js';

/** The config with parameter overrides applied (by instance name). */
export function withParams(config: MizanConfig, params: Record<string, Record<string, unknown>> | undefined): MizanConfig {
  if (!params) return config;
  for (const name of Object.keys(params)) {
    if (!config.strategies.some((s) => s.name === name)) throw new Error(`no strategy instance named ${name} in the config`);
  }
  return { ...config, strategies: config.strategies.map((s) => (params[s.name] ? { ...s, params: { ...s.params, ...params[s.name] } } : s)) };
}
