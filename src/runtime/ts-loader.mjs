// Registers the module loaders mizan runs under (plain JavaScript: it runs before TypeScript can load):
// tsx's, so sources and strategies written in TypeScript load without a build step, and the strategy
// hook (strategy-hook.mjs) that lets a strategy live in a folder outside this checkout. Used by
// bin/mizan.js and the sweep workers.
import { register as registerTsx } from 'tsx/esm/api';
import { register } from 'node:module';

export function registerLoaders() {
  registerTsx();
  // Registered after tsx: its resolve runs first and adjusts what tsx resolved.
  register('./strategy-hook.mjs', import.meta.url);
}
