// Thread bootstrap for `mizan worker` (as backtest/sweep-worker.mjs). From the build (dist/), the
// compiled thread runs as it is; from the sources, register mizan's loaders (tsx and the strategy
// hook, runtime/ts-loader.mjs), then load the TypeScript thread.
import { existsSync } from 'node:fs';

const compiled = new URL('./trial-thread.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { registerLoaders } = await import('../runtime/ts-loader.mjs');
  registerLoaders();
  await import('./trial-thread.ts');
}
