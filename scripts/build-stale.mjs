// Whether dist/ is missing or older than the sources it is built from (src/, strategies/, the
// tsconfigs, package.json). Used by `npm run build -- --if-stale` (npm start, the test setup) and by
// bin/mizan.js in a checkout, so the CLI never runs JavaScript older than the TypeScript beside it.
// The cost when the build is current is one mtime scan of the sources (a few milliseconds).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

export function buildIsStale(root) {
  const stamp = join(root, 'dist/.build-stamp');
  if (!existsSync(stamp)) return true;
  const sources = ['src', 'strategies', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => join(root, p)).filter(existsSync);
  return Math.max(...sources.map(newest)) > statSync(stamp).mtimeMs;
}
