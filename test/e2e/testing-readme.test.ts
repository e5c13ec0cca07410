/**
 * Issue 34 item 2: the `mizan/testing` example of docs/strategies.md (once in the README),
 * verbatim, as a user runs it: the Donchian strategy and its test written into a fresh project
 * folder whose `node_modules/mizan` is this package (resolved through package.json `exports` to
 * dist/, as an installed copy is), and vitest run there in a child process. The example's test feeds full OHLCV bars with `h.run`, reads the
 * strategy's candles, a higher timeframe and the book the test set.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from './cli.js';

/** The fenced block that follows the docs line naming `file` (e.g. "`strategies/donchian.ts`:"). */
function readmeBlock(readme: string, file: string): string {
  const at = readme.indexOf('`' + file + '`:\n');
  if (at < 0) throw new Error(`docs/strategies.md has no line introducing ${file}`);
  const m = /```ts\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!m) throw new Error(`docs/strategies.md: no ts block after ${file}`);
  return m[1]! + '\n';
}

const dir = tempDir('mizan-testing-readme-');
afterAll(() => dir.remove());

describe('docs/strategies.md: unit-testing a strategy that reads candles and a book (issue 34 item 2)', () => {
  it('the Donchian strategy and its test from the docs pass under vitest, importing mizan/testing as an installed package', () => {
    const readme = readFileSync(join(REPO, 'docs/strategies.md'), 'utf8');
    const app = join(dir.dir, 'app');
    mkdirSync(join(app, 'strategies'), { recursive: true });
    mkdirSync(join(app, 'test'));
    mkdirSync(join(app, 'node_modules'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }) + '\n');
    writeFileSync(join(app, 'strategies/donchian.ts'), readmeBlock(readme, 'strategies/donchian.ts'));
    writeFileSync(join(app, 'test/donchian.test.ts'), readmeBlock(readme, 'test/donchian.test.ts'));
    // An installed copy: node_modules/mizan is the package folder, so `mizan/testing` goes through its exports.
    symlinkSync(REPO, join(app, 'node_modules/mizan'), 'dir');
    symlinkSync(join(REPO, 'node_modules/vitest'), join(app, 'node_modules/vitest'), 'dir');
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
    for (const k of ['VITEST', 'VITEST_WORKER_ID', 'VITEST_POOL_ID', 'NODE_OPTIONS', 'VITEST_MODE']) delete env[k];
    const r = spawnSync(process.execPath, [join(app, 'node_modules/vitest/vitest.mjs'), 'run', '--root', app, '--reporter', 'verbose'], {
      cwd: app,
      env,
      encoding: 'utf8',
      timeout: 120_000,
    });
    const out = `${r.stdout}\n${r.stderr}`;
    expect(r.status, out).toBe(0);
    expect(out).toMatch(/buys the breakout above the channel, sells the breakdown below it/);
    expect(out).toMatch(/stays out while the spread is wider than maxSpreadBps, or without a book/);
    expect(out).toMatch(/reads five-minute candles built from the one-minute ones/);
    expect(out).toMatch(/Tests\s+3 passed/);
    // It is the package's own resolution (exports -> dist), not a path into src/.
    expect(readFileSync(join(app, 'test/donchian.test.ts'), 'utf8')).toContain("from 'mizan/testing'");
  }, 150_000);
});
