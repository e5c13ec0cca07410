/**
 * vitest global setup: the tests that run `node bin/mizan.js` or import the package by name use the
 * build (dist/). Before a run, rebuild it when it is missing or any source is newer than its stamp
 * (scripts/build-stale.mjs), so a targeted `npx vitest run …` never tests stale JavaScript.
 */
import { execFileSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export default function setup(): void {
  execFileSync(process.execPath, [join(REPO, 'scripts/build.mjs'), '--if-stale'], { cwd: REPO, stdio: 'inherit' });
}
