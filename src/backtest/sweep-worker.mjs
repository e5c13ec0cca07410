// Worker bootstrap: register mizan's loaders (tsx and the strategy hook, as bin/mizan.js does), then load the TypeScript worker.
import { registerLoaders } from '../runtime/ts-loader.mjs';

registerLoaders();
await import('./sweep-worker.ts');
