#!/usr/bin/env node
// The `mizan` command: the compiled CLI (dist/, built by `npm run build`, which `prepare` and
// `pretest` run). A user's TypeScript strategy gets tsx's loader when it is loaded
// (src/runtime/strategy-loader.ts); mizan itself is plain JavaScript here.
// In a checkout (src/ beside dist/), a build older than the sources is rebuilt first, so the command
// never runs JavaScript older than the TypeScript it was built from.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const staleCheck = new URL('../scripts/build-stale.mjs', import.meta.url);
if (existsSync(new URL('../src', import.meta.url)) && existsSync(staleCheck)) {
  const { buildIsStale } = await import(staleCheck.href);
  if (buildIsStale(root)) {
    process.stderr.write('mizan: building dist/ (the sources changed since the last build)...\n');
    try {
      execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/build.mjs', import.meta.url))], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    } catch {
      process.stderr.write('mizan: the build failed (npm run build shows why)\n');
      process.exit(1);
    }
  }
}
const cli = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('mizan: dist/ is missing: run `npm run build` in the mizan folder first\n');
  process.exit(1);
}
await import(cli.href);
