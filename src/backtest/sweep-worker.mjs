// Worker bootstrap: register tsx's loader (as bin/mizan.js does), then load the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./sweep-worker.ts');
