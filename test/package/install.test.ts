/**
 * mizan as a user installs it: `npm pack` the repository, install the tarball into a fresh folder,
 * `npx mizan init app`, then in app/: `npm install`, `npm test` (the scaffolded strategy's unit test
 * through mizan/testing), `npx mizan backtest config/backtest.yaml`, `npx mizan check config/paper.yaml`.
 * Dependencies come from npm's cache or registry. better-sqlite3's native module is not compiled
 * twice: prebuild-install takes it from a local prebuild folder (npm_config_better_sqlite3_local_prebuilds)
 * holding the binary this repository's node_modules already built for this Node.
 */
import { execFileSync, spawn, spawnSync, type ExecFileSyncOptions } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../backtest/helpers.js';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const opts: ExecFileSyncOptions = { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 };
  try {
    return execFileSync(cmd, args, opts) as string;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

/** Like run, and what the command printed to stderr too (npm's warnings go there). */
function runWithWarnings(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): string {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return `${r.stdout}\n${r.stderr}`;
}

/** A prebuild-install tarball of the better-sqlite3 binary in this repository's node_modules. */
function localPrebuilds(dir: string): string {
  const req = createRequire(join(REPO, 'package.json'));
  const root = dirname(req.resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const out = join(dir, 'prebuilds');
  mkdirSync(out, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['czf', join(out, name), '-C', root, 'build/Release/better_sqlite3.node']);
  return out;
}

describe('the npm package', () => {
  it('installs from its tarball; mizan init makes a project whose test, backtest and check pass', () => {
    expect(existsSync(join(REPO, 'dist/src/cli/main.js')), 'dist/ is built by `npm run build` (npm test runs it first)').toBe(true);
    const tmp = mkdtempSync(join(tmpdir(), 'mizan-pkg-'));
    try {
      installAndUse(tmp);
    } finally {
      // Two installed projects (node_modules trees): a detached `rm -rf` removes them while this
      // file's worker goes on (install-readme's took over two minutes to remove at load 13-17).
      spawn('rm', ['-rf', tmp], { detached: true, stdio: 'ignore' }).unref();
    }
  }, 900_000);
});

function installAndUse(tmp: string): void {
  const env = {
    ...process.env,
    npm_config_better_sqlite3_local_prebuilds: localPrebuilds(tmp),
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_prefer_offline: 'true',
  };
  // The build is current (npm test built it); --ignore-scripts so pack does not rebuild.
  run(npm, ['pack', '--ignore-scripts', '--pack-destination', tmp], REPO, env);
  const tgz = readdirSync(tmp).find((f) => /^mizan-.*\.tgz$/.test(f));
  expect(tgz).toBeDefined();
  const tarball = join(tmp, tgz!);

  const home = join(tmp, 'home');
  mkdirSync(home);
  writeFileSync(join(home, 'package.json'), '{ "name": "home", "private": true }\n');
  run(npm, ['install', tarball], home, env);

  // Named relative to the app, as a user writes it (npm's allowScripts matches only the absolute path).
  const spec = `file:../../${tgz!}`;
  const init = run(npx, ['mizan', 'init', 'app', '--mizan', spec], home, env);
  expect(init).toContain('strategies/my-strategy.ts');
  const app = join(home, 'app');
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; allowScripts?: Record<string, boolean> };
  expect(pkg.dependencies.mizan).toBe(spec);
  expect(readFileSync(join(app, 'strategies/my-strategy.ts'), 'utf8')).toContain("from 'mizan'");
  expect(readFileSync(join(app, 'test/my-strategy.test.ts'), 'utf8')).toContain("from 'mizan/testing'");
  expect(readFileSync(join(app, 'config/backtest.yaml'), 'utf8')).toMatch(/^# yaml-language-server: \$schema=/);

  // The README says Node.js 20 or newer: nothing mizan installs may declare otherwise. (fastify's
  // light-my-request 6.8 brings cookie 2, which declares Node >= 22; mizan depends on 6.6.0 itself,
  // which npm dedupes fastify's copy to, since a dependency's `overrides` do not reach its users.)
  const install = runWithWarnings(npm, ['install'], app, env);
  expect(install).not.toMatch(/EBADENGINE/);
  // npm 11 lists every dependency install script its allowScripts policy does not cover (and its
  // documentation says they are blocked by default): the project approves the ones mizan needs.
  expect(install).not.toMatch(/not yet covered by allowScripts/);
  expect(pkg.allowScripts?.['better-sqlite3']).toBe(true);
  const test = run(npm, ['test'], app, env);
  expect(test).toMatch(/Tests\s+.*2 passed/);

  const backtest = run(npx, ['mizan', 'backtest', 'config/backtest.yaml'], app, env);
  expect(backtest).toMatch(/Trades\s+[1-9]/);
  expect(backtest).toContain('Equity end');

  const check = run(npx, ['mizan', 'check', 'config/paper.yaml'], app, env);
  expect(check).toContain('config/paper.yaml: ok');
  expect(check).toContain('my-strategy');

  // new-strategy adds another from a bundled example, importing from 'mizan'.
  run(npx, ['mizan', 'new-strategy', 'my-grid', '--template', 'grid'], app, env);
  const grid = readFileSync(join(app, 'strategies/my-grid.ts'), 'utf8');
  expect(grid).toContain("from 'mizan'");
  expect(grid).toContain("name: 'my-grid'");
}
