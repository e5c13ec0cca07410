/**
 * `mizan run` (paper, embedded simulator over HTTP/socket.io, the real pino logger): a grid whose
 * every rung the balance rule denies does not log "grid placed"; it says the ladder was denied, why,
 * and when it tries again.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, tempDir } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-grid-');
afterAll(() => tmp.remove());

async function run(orderQuote: number): Promise<string> {
  const cfg = join(tmp.dir, `grid-${orderQuote}.yaml`);
  writeFileSync(
    cfg,
    [
      'mode: paper',
      'exchange: { simulator: true }',
      'strategies:',
      `  - { name: g, strategy: grid, markets: [BTCUSDT], resolution: "1", params: { levels: 3, spacingPct: 0.5, orderQuote: ${orderQuote} } }`,
      'paper: { balances: { USDT: 1000 } }',
      `journal: { file: ${join(tmp.dir, `grid-${orderQuote}.sqlite`)} }`,
      'logging: { level: info, pretty: false }',
      '',
    ].join('\n'),
  );
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['bin/mizan.js', 'run', cfg, '--duration', '6'], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return stdout + stderr;
}

describe('grid: a ladder denied whole', () => {
  it('logs "grid not placed" with the reason, never "grid placed"', async () => {
    const out = await run(5000); // 3 rungs of 5000 USDT with 1000 USDT: each is denied
    expect(out).not.toMatch(/"msg":"grid placed"/);
    expect(out).toMatch(/"msg":"grid not placed: every rung was denied; trying again in 30 s"/);
    expect(out).toMatch(/"reason":"balance: needs [\d.]+ USDT/);
  }, 60_000);

  it('logs "grid placed" with the rungs accepted when they are', async () => {
    const out = await run(100);
    expect(out).toMatch(/"rungs":3,"levels":3,"msg":"grid placed"/);
    expect(out).not.toMatch(/grid not placed/);
  }, 60_000);
});
