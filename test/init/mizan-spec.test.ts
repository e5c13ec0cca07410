/**
 * The dependency spec `mizan init` writes for the mizan it runs from (src/init/mizan-spec.ts), read
 * from real folders laid out as npm leaves them: a project's node_modules/mizan with the hidden
 * lockfile, a package-lock.json only, npm's old `_resolved`, a checkout. The whole path (npm
 * installing a tarball, a folder and git, then `mizan init .`) is test/e2e/install-readme.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installedMizanSpec } from '../../src/init/mizan-spec.js';
import { mergePackageJson } from '../../src/init/merge-package.js';

const tmp = mkdtempSync(join(tmpdir(), 'mizan-spec-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** <tmp>/<name>/node_modules/mizan with a lockfile entry resolved as `resolved`. */
function installed(name: string, resolved: string | undefined, where: 'hidden' | 'lock' | 'old' = 'hidden'): string {
  const root = join(tmp, name);
  const pkg = join(root, 'node_modules/mizan');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'mizan', version: '0.1.0', ...(where === 'old' && resolved ? { _resolved: resolved } : {}) }),
  );
  const lock = JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/mizan': { version: '0.1.0', ...(resolved ? { resolved } : {}) } } });
  if (where === 'hidden') writeFileSync(join(root, 'node_modules/.package-lock.json'), lock);
  if (where === 'lock') writeFileSync(join(root, 'package-lock.json'), lock);
  return pkg;
}

describe('installedMizanSpec', () => {
  it('a registry install: ^version', () => {
    expect(installedMizanSpec(installed('reg', 'https://registry.npmjs.org/mizan/-/mizan-0.1.0.tgz'), '0.1.0', join(tmp, 'reg/app'))).toBe('^0.1.0');
    expect(installedMizanSpec(installed('none', undefined), '0.1.0', join(tmp, 'none/app'))).toBe('^0.1.0');
  });

  it('a tarball: file: and its path from the new project (from the lockfile, hidden or not, or _resolved)', () => {
    expect(installedMizanSpec(installed('tgz', 'file:../mizan-0.1.0.tgz'), '0.1.0', join(tmp, 'tgz'))).toBe('file:../mizan-0.1.0.tgz');
    expect(installedMizanSpec(installed('tgz2', 'file:../mizan-0.1.0.tgz', 'lock'), '0.1.0', join(tmp, 'tgz2/my-bot'))).toBe('file:../../mizan-0.1.0.tgz');
    expect(installedMizanSpec(installed('tgz3', `file:${join(tmp, 'x/mizan-0.1.0.tgz')}`, 'old'), '0.1.0', join(tmp, 'tgz3'))).toBe(
      'file:../x/mizan-0.1.0.tgz',
    );
    expect(installedMizanSpec(installed('tgz4', 'file:mizan-0.1.0.tgz'), '0.1.0', join(tmp, 'tgz4'))).toBe('file:./mizan-0.1.0.tgz');
  });

  it('git or a tarball URL: as npm resolved it', () => {
    const git = 'git+ssh://git@github.com/someone/mizan.git#0123456789abcdef0123456789abcdef01234567';
    expect(installedMizanSpec(installed('git', git), '0.1.0', join(tmp, 'git'))).toBe(git);
    expect(installedMizanSpec(installed('url', 'https://example.com/dl/mizan-0.1.0.tgz'), '0.1.0', join(tmp, 'url'))).toBe(
      'https://example.com/dl/mizan-0.1.0.tgz',
    );
  });

  it('a folder (a checkout, or linked into node_modules): file: and the folder', () => {
    const folder = join(tmp, 'checkout/mizan');
    mkdirSync(folder, { recursive: true });
    expect(installedMizanSpec(folder, '0.1.0', join(tmp, 'checkout/my-bot'))).toBe('file:../mizan');
    mkdirSync(join(tmp, 'linked/node_modules'), { recursive: true });
    symlinkSync(folder, join(tmp, 'linked/node_modules/mizan'));
    expect(installedMizanSpec(join(tmp, 'linked/node_modules/mizan'), '0.1.0', join(tmp, 'linked'))).toBe('file:../checkout/mizan');
  });
});

describe('mergePackageJson', () => {
  it('adds what is missing, overwrites nothing, and says which', () => {
    const r = mergePackageJson(
      { name: 'mine', dependencies: { mizan: 'file:../m.tgz' }, scripts: { test: 'jest' } },
      { name: 'x', type: 'module', dependencies: { mizan: '^0.1.0', other: '1' }, scripts: { test: 'vitest run', check: 'mizan check' } },
    );
    expect(r.merged).toEqual({
      name: 'mine',
      type: 'module',
      dependencies: { mizan: 'file:../m.tgz', other: '1' },
      scripts: { test: 'jest', check: 'mizan check' },
    });
    expect(r.added).toEqual(['type', 'dependencies.other', 'scripts.check']);
    expect(r.kept).toEqual(['dependencies.mizan', 'scripts.test']);
  });
});
