/**
 * vitest global setup: the tests that run `node bin/mizan.js` or import the package by name use the
 * build (dist/). Before a run, rebuild it when it is missing or any source (src/, strategies/,
 * tsconfig*.json, package.json) is newer than its stamp, so a targeted `npx vitest run …` never tests
 * stale JavaScript. A fresh build costs only this mtime scan.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

export default function setup(): void {
  const stamp = join(REPO, 'dist/.build-stamp');
  const sources = ['src', 'strategies', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => join(REPO, p)).filter(existsSync);
  if (existsSync(stamp) && Math.max(...sources.map(newest)) <= statSync(stamp).mtimeMs) return;
  execFileSync(process.execPath, [join(REPO, 'scripts/build.mjs')], { cwd: REPO, stdio: 'inherit' });
}
