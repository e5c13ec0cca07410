import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error: a plain-JavaScript build script without type declarations
import { buildIsStale } from '../../scripts/build-stale.mjs';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'mizan-stale-'));
  dirs.push(root);
  mkdirSync(join(root, 'src/deep'), { recursive: true });
  writeFileSync(join(root, 'src/deep/a.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'package.json'), '{}\n');
  return root;
}
const at = (path: string, s: number) => utimesSync(path, s, s);

describe('buildIsStale (npm start, the test setup and bin/mizan.js in a checkout rebuild on it)', () => {
  it('is stale without a build, current after one, stale again when any source is newer', () => {
    const root = checkout();
    expect(buildIsStale(root)).toBe(true);
    mkdirSync(join(root, 'dist'));
    const stamp = join(root, 'dist/.build-stamp');
    writeFileSync(stamp, 'x\n');
    for (const p of ['src/deep/a.ts', 'src/deep', 'src', 'package.json']) at(join(root, p), 1_000);
    at(stamp, 2_000);
    expect(buildIsStale(root)).toBe(false);
    at(join(root, 'src/deep/a.ts'), 3_000);
    expect(buildIsStale(root)).toBe(true);
  });
});
