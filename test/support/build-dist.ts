/**
 * vitest global setup: the tests that run `node bin/mizan.js` or import the package by name use the
 * build (dist/). Before a run, rebuild it when it is missing or any source is newer than its stamp
 * (scripts/build-stale.mjs), so a targeted `npx vitest run …` never tests stale JavaScript.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export default function setup(): () => void {
  execFileSync(process.execPath, [join(REPO, 'scripts/build.mjs'), '--if-stale'], { cwd: REPO, stdio: 'inherit' });
  // The backtests' candle column cache (market/files/column-cache.ts) in a folder of this run, not the
  // checkout's .mizan/cache: the workers and the `mizan` children inherit it; removed at the end.
  const cache = mkdtempSync(join(tmpdir(), 'mizan-test-cache-'));
  process.env.MIZAN_CACHE_DIR ??= cache;
  return () => rmSync(cache, { recursive: true, force: true });
}
