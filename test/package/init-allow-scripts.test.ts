/**
 * `mizan init` writes the project's npm `allowScripts` policy: mizan's own list of dependency install
 * scripts it needs, and mizan itself when it comes from a tarball, folder, git or a URL, under the
 * key npm matches it by (with npm 11.19 a relative file: key does not match; the absolute path that
 * `npm install-scripts approve` writes does). The whole install from a tarball named by a relative
 * path, with npm printing no uncovered install script, is test/package/install.test.ts.
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
    const pkg = init('registry', '--mizan', '^0.1.0');
    expect(pkg.dependencies.mizan).toBe('^0.1.0');
    expect(pkg.allowScripts).toEqual(own);
  });

  it('run from a checkout, without --mizan: depends on that folder, allowed by its absolute path', () => {
    const pkg = init('checkout');
    expect(pkg.dependencies.mizan).toMatch(/^file:\.\.\//);
    expect(join(tmp, 'checkout', pkg.dependencies.mizan!.slice('file:'.length))).toBe(REPO);
    expect(pkg.allowScripts).toEqual({ ...own, [`file:${REPO}`]: true });
  });

  it('allows mizan under the key npm matches it by when it comes from a tarball, a folder, git or a URL', () => {
    for (const [dir, spec, key] of [
      // npm matches a file or folder by its absolute path (npm install-scripts approve writes that).
      ['tarball', 'file:../mizan-0.1.0.tgz', `file:${join(tmp, 'mizan-0.1.0.tgz')}`],
      ['folder', '../mizan', `file:${join(tmp, 'mizan')}`],
      ['absolute', `file:${join(tmp, 'x', 'mizan-0.1.0.tgz')}`, `file:${join(tmp, 'x', 'mizan-0.1.0.tgz')}`],
      // A git key's committish must prefix the commit's hash: the repository alone matches.
      ['git', 'github:someone/mizan#v0.1.0', 'github:someone/mizan'],
      ['git-url', 'git+https://example.com/someone/mizan.git', 'git+https://example.com/someone/mizan.git'],
      ['url', 'https://example.com/mizan-0.1.0.tgz', 'https://example.com/mizan-0.1.0.tgz'],
    ] as const) {
      const pkg = init(dir, '--mizan', spec);
      expect(pkg.dependencies.mizan).toBe(spec);
      expect(pkg.allowScripts).toEqual({ ...own, [key]: true });
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
