/**
 * `mizan init` writes the project's npm `allowScripts` policy: mizan's own list of dependency install
 * scripts it needs, and mizan itself when it comes from a tarball, folder or git (npm matches those
 * by the spec they were installed from). The whole install from a tarball, with npm printing no
 * uncovered install script, is test/package/install.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'mizan-init-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function init(dir: string, ...args: string[]): { allowScripts?: Record<string, boolean>; dependencies: Record<string, string> } {
  execFileSync(process.execPath, [join(REPO, 'bin/mizan.js'), 'init', join(tmp, dir), ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return JSON.parse(readFileSync(join(tmp, dir, 'package.json'), 'utf8')) as { allowScripts?: Record<string, boolean>; dependencies: Record<string, string> };
}

const own = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> }).allowScripts;

describe('mizan init: the allowScripts policy', () => {
  it("carries mizan's own list; a registry mizan needs no entry", () => {
    expect(own['better-sqlite3']).toBe(true);
    const pkg = init('registry');
    expect(pkg.dependencies.mizan).toMatch(/^\^\d/);
    expect(pkg.allowScripts).toEqual(own);
  });

  it('allows mizan by the spec it comes from when that is a tarball, a folder or git', () => {
    for (const [dir, spec] of [
      ['tarball', 'file:../mizan-0.1.0.tgz'],
      ['folder', '../mizan'],
      ['git', 'github:someone/mizan'],
    ] as const) {
      const pkg = init(dir, '--mizan', spec);
      expect(pkg.dependencies.mizan).toBe(spec);
      expect(pkg.allowScripts).toEqual({ ...own, [spec]: true });
    }
  });

  it('a version range or tag from the registry adds nothing', () => {
    for (const [dir, spec] of [
      ['exact', '0.1.0'],
      ['tilde', '~0.1.0'],
      ['tag', 'latest'],
    ] as const) {
      expect(init(dir, '--mizan', spec).allowScripts).toEqual(own);
    }
  });
});
