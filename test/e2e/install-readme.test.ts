/**
 * Issue 34 item 1: the README's install section, run as a user runs it. Its first ```sh block is
 * run verbatim (one shell, `set -e`) in a temp folder holding `mizan-0.1.0.tgz` (made by `npm pack`
 * of this checkout), except `npx mizan run` (a paper bot that runs until Ctrl-C; e2e/paper-run
 * covers it). The same block runs again with its `npm install` line replaced by the README's folder
 * form (`npm install ../mizan`: a checkout, cloned with git, its node_modules copied as its own
 * `npm install` would make them) and its git form (the README's `git+https://<host>/…` URL replaced
 * by a `git+file://` URL of a bare clone of this checkout). Then `npm publish --dry-run`.
 *
 * Never the network: npm runs with `offline` (dependencies from the npm cache that installed this
 * checkout's node_modules; a missing one fails with ENOTCACHED) and, for publish, a registry on an
 * unreachable loopback port. better-sqlite3's binary comes from a local prebuild of the one in
 * node_modules (as test/package/install.test.ts does).
 *
 * The three installs and the publish run at the same time (it.concurrent, each in its own folder):
 * most of each is npm waiting on its cache and the file system, and one after the other they were
 * most of this file's eight minutes.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, type ExpectStatic } from 'vitest';
import { REPO } from '../backtest/helpers.js';

const README = readFileSync(join(REPO, 'README.md'), 'utf8');
const section = README.slice(README.indexOf('## Use it in your own project'), README.indexOf('\n## Working on mizan itself'));
const block = /```sh\n([\s\S]*?)```/
  .exec(section)![1]!
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('npx mizan run '));
const tarballLine = block.find((l) => l.startsWith('npm install ../mizan-'))!;
const folderLine = /`(npm install \.\.\/mizan)`/.exec(section)?.[1];
const gitLine = /`(npm install git\+https:\/\/<host>\/<owner>\/mizan\.git)`/.exec(section)?.[1];

const tmp = mkdtempSync(join(tmpdir(), 'mizan-readme-install-'));
// Several installed projects (node_modules trees): removing them took 30 s to over two minutes on a
// loaded machine (130 s at load 13-17), time this file's worker waited doing nothing else. A detached
// `rm -rf` removes them while the worker goes on to the next file.
afterAll(() => {
  spawn('rm', ['-rf', tmp], { detached: true, stdio: 'ignore' }).unref();
});

/** A prebuild-install tarball of the better-sqlite3 binary in this repository's node_modules. */
function localPrebuilds(): string {
  const req = createRequire(join(REPO, 'package.json'));
  const root = dirname(req.resolve('better-sqlite3/package.json'));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const out = join(tmp, 'prebuilds');
  mkdirSync(out, { recursive: true });
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['czf', join(out, name), '-C', root, 'build/Release/better_sqlite3.node']);
  return out;
}

const env = {
  ...process.env,
  npm_config_offline: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_better_sqlite3_local_prebuilds: localPrebuilds(),
};

const run = promisify(execFile);

interface Exit {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `cmd args` to its end, without blocking this process (the other installs of this file run meanwhile). */
function spawnAsync(cmd: string, args: string[], cwd: string, childEnv: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { cwd, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    p.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    p.on('error', reject);
    p.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

async function sh(script: string, cwd: string, extra: NodeJS.ProcessEnv = {}): Promise<string> {
  const r = await spawnAsync('sh', ['-c', `set -e\n${script}`], cwd, { ...env, ...extra });
  const out = `${r.stdout}\n${r.stderr}`;
  if (r.status !== 0) throw new Error(`sh (in ${cwd}) exit ${r.status}:\n${script}\n---\n${out}`);
  return out;
}

/** Runs the README block (its npm install line replaced by `install`) in a new folder `dir`. */
async function runBlock(dir: string, install: string): Promise<{ out: string; app: string; pkg: { dependencies: Record<string, string> } }> {
  const cwd = join(tmp, dir);
  mkdirSync(cwd, { recursive: true });
  const script = block.map((l) => (l === tarballLine ? install : l)).join('\n');
  const out = await sh(script, cwd);
  const app = join(cwd, 'my-bot');
  return { out, app, pkg: JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> } };
}

/** What the block's commands after the install must have shown and made. */
function expectProject(expect: ExpectStatic, out: string, app: string): void {
  expect(out).toMatch(/package\.json \(existing\): added .*\bscripts\b.*\bdevDependencies\b/);
  expect(out).not.toMatch(/E404|ENOTCACHED|not overwriting/);
  expect(out).toMatch(/Tests\s+.*2 passed/);
  expect(out).toMatch(/Trades\s+[1-9]/);
  expect(out).toContain('config/paper.yaml: ok');
  expect(existsSync(join(app, 'reports/mine/report.html'))).toBe(true);
  expect(readFileSync(join(app, 'strategies/breakout.ts'), 'utf8')).toContain("from 'mizan'");
}

describe('README install section (issue 34 item 1)', () => {
  it('the README names its block and its folder and git forms', () => {
    expect(block[0]).toBe('mkdir my-bot && cd my-bot');
    expect(tarballLine).toMatch(/^npm install \.\.\/mizan-0\.1\.0\.tgz\b/);
    expect(block.some((l) => l.startsWith('npx mizan init .'))).toBe(true);
    expect(folderLine).toBeDefined();
    expect(gitLine).toBeDefined();
  });

  // Each test works in its own folder of `tmp` (the tarball's in `tmp` itself, `f/`, `g/`): they run
  // at the same time.
  it.concurrent(
    'tarball: every command of the block works; init in a new folder writes the tarball, and npm install takes it',
    async ({ expect }) => {
      await run('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp], { cwd: REPO, env, maxBuffer: 1 << 26 });
      expect(readdirSync(tmp)).toContain('mizan-0.1.0.tgz');
      const { out, app, pkg } = await runBlock('.', tarballLine);
      expect(pkg.dependencies.mizan).toBe('file:../mizan-0.1.0.tgz');
      expectProject(expect, out, app);

      // `mizan init other` from the installed mizan (npx): the spec as seen from the new folder.
      const init = await sh('npx mizan init other', app);
      expect(init).toContain('mizan dependency: "mizan": "file:../../mizan-0.1.0.tgz"');
      const other = JSON.parse(readFileSync(join(app, 'other/package.json'), 'utf8')) as { dependencies: Record<string, string> };
      expect(other.dependencies.mizan).toBe('file:../../mizan-0.1.0.tgz');
      expect(readFileSync(join(app, 'other/README.md'), 'utf8')).not.toContain('npmjs.com');
      await sh('npm install', join(app, 'other'));
      expect(existsSync(join(app, 'other/node_modules/mizan/dist/src/index.js'))).toBe(true);
    },
    900_000,
  );

  it.concurrent(
    'folder: npm install ../mizan (a checkout) then the same commands',
    async ({ expect }) => {
      const folder = join(tmp, 'f', 'mizan');
      mkdirSync(dirname(folder), { recursive: true });
      await run('git', ['clone', '--quiet', REPO, folder], { env });
      // cp -a, not fs.cp: the same tree (symlinks kept as they are), in 11 s and 1 s of CPU where
      // fs.cp took 58 s and 10 s (231 MB, load 17).
      await run('cp', ['-a', realpathSync(join(REPO, 'node_modules')), join(folder, 'node_modules')], { env });
      const { out, app, pkg } = await runBlock('f', folderLine!);
      expect(pkg.dependencies.mizan).toBe('file:../mizan');
      expectProject(expect, out, app);
    },
    900_000,
  );

  it.concurrent(
    'git: npm install git+file://… (the README git line, its URL local) then the same commands',
    async ({ expect }) => {
      const bare = join(tmp, 'g', 'mizan.git');
      await run('git', ['clone', '--quiet', '--bare', REPO, bare], { env });
      const url = `git+file://${bare}`;
      const { out, app, pkg } = await runBlock('g', gitLine!.replace('git+https://<host>/<owner>/mizan.git', url));
      expect(pkg.dependencies.mizan).toBe(url);
      expectProject(expect, out, app);
      // In a new folder, init writes the commit npm resolved.
      const init = await sh('npx mizan init other', app);
      expect(init).toMatch(new RegExp(`mizan dependency: "mizan": "${url.replace(/[.+]/g, '\\$&')}#[0-9a-f]{40}"`));
    },
    1_500_000,
  );

  it.concurrent(
    'npm publish --dry-run is clean (no upload: --dry-run, and the registry an unreachable loopback port)',
    async ({ expect }) => {
      const { npm_config_better_sqlite3_local_prebuilds: _, ...plain } = env;
      // No retries of the unreachable registry: with npm's default two, their back-off was over a
      // minute of this test, and its output (checked below) is the same without them.
      const r = await spawnAsync('npm', ['publish', '--dry-run', '--ignore-scripts'], REPO, {
        ...plain,
        npm_config_offline: 'false',
        npm_config_registry: 'http://127.0.0.1:9/',
        npm_config_fetch_retries: '0',
      });
      expect(r.status, r.stderr).toBe(0);
      // Every warning but the one about the missing login (the package's own problems would show here).
      const warnings = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /npm (warn|error)/i.test(l) && !/requires you to be logged in/.test(l));
      expect(warnings).toEqual([]);
      expect(`${r.stdout}\n${r.stderr}`).toMatch(/\+ mizan@0\.1\.0/);
    },
    300_000,
  );
});
