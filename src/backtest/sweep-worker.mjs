// Worker bootstrap. From the build (dist/), the compiled worker runs as it is; a strategy file is
// compiled with esbuild when it is loaded (runtime/strategy-compile.ts). From the sources, register mizan's
// loaders (tsx and the strategy hook, runtime/ts-loader.mjs), then load the TypeScript worker.
import { existsSync } from 'node:fs';

const compiled = new URL('./sweep-worker.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { registerLoaders } = await import('../runtime/ts-loader.mjs');
  registerLoaders();
  await import('./sweep-worker.ts');
}
