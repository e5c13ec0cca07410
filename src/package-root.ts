/** The folder of mizan's own package.json (the repository, or node_modules/mizan when installed). */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  for (let dir = start; ;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === 'mizan') return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`mizan's package.json not found above ${start}`);
    dir = up;
  }
}

/** Works the same from src/ (TypeScript) and dist/src/ (the build). */
export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
