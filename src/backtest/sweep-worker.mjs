// Worker bootstrap. From the build (dist/), the compiled worker runs as it is and registers a
// TypeScript loader only if a strategy file is .ts (runtime/strategy-loader.ts). From the sources,
// register tsx's loader (as bin/run-ts.js does), then load the TypeScript worker.
import { existsSync } from 'node:fs';

const compiled = new URL('./sweep-worker.js', import.meta.url);
if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./sweep-worker.ts');
}
