#!/usr/bin/env node
// The `mizan` command: the compiled CLI (dist/, built by `npm run build`, which `prepare` and
// `pretest` run). A user's TypeScript strategy gets tsx's loader when it is loaded
// (src/runtime/strategy-loader.ts); mizan itself is plain JavaScript here.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('mizan: dist/ is missing: run `npm run build` in the mizan folder first\n');
  process.exit(1);
}
await import(cli.href);
