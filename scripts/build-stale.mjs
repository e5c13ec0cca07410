// Whether dist/ is missing or older than the sources it is built from (src/, strategies/, the
// tsconfigs, package.json). Used by `npm run build -- --if-stale` (npm start, the test setup) and by
// bin/mizan.js in a checkout, so the CLI never runs JavaScript older than the TypeScript beside it.
// The cost when the build is current is one mtime scan of the sources (a few milliseconds).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

// The newest mtime of a file, or of a folder and everything in it. An entry's path is joined as it is
// (path.join normalizes each one: about half the time of the scan, on the ~500 entries of src/).
function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const e of readdirSync(path, { withFileTypes: true })) {
    const p = `${path}/${e.name}`;
    t = Math.max(t, e.isFile() ? statSync(p).mtimeMs : newest(p));
  }
  return t;
}

export function buildIsStale(root) {
  const stamp = join(root, 'dist/.build-stamp');
  if (!existsSync(stamp)) return true;
  const sources = ['src', 'strategies', 'tsconfig.json', 'tsconfig.build.json', 'package.json'].map((p) => join(root, p)).filter(existsSync);
  return Math.max(...sources.map(newest)) > statSync(stamp).mtimeMs;
}
