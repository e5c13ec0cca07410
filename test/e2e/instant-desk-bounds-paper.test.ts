/**
 * Paper (`mizan run`, child process, the embedded simulator): the market catalog reads the instant
 * desk's bounds from the exchange (`GET /v1/otc/markets`: 5 to 10,000 USDT on BTCUSDT), risk checks
 * an instant order against them, and the paper exchange's desk refuses outside the same bounds. A
 * newcomer's audit: a 7 USDT instant buy was denied by the spot market's minimum (10 USDT) though the
 * desk takes it, and a 20,000 USDT one passed risk and reached onDenied as the exchange's 422.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, startMizan, waitFor, sleep, type MizanChild } from './run-mizan.js';
import { tempDir } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-instant-bounds-paper-');
let child: MizanChild | undefined;
afterAll(async () => {
  if (child?.alive()) {
    child.proc.kill('SIGINT');
    await Promise.race([child.exited, sleep(15_000)]);
    if (child.alive()) child.proc.kill('SIGKILL');
  }
  tmp.remove();
});

describe('mizan run (paper): instant orders and the instant desk’s bounds', () => {
  it('fills a buy above the desk’s minimum but below the spot one, and risk denies one above the desk’s maximum', async () => {
    const cfg = join(tmp.dir, 'instant.yaml');
    writeFileSync(
      cfg,
      [
        'mode: paper',
        'exchange: { simulator: true }',
        'strategies:',
        `  - { name: desk, strategy: ${JSON.stringify(join(REPO, 'test/e2e/fixtures/instant-bounds.ts'))}, markets: [BTCUSDT] }`,
        'paper: { balances: { USDT: 100000 } }',
        `journal: { file: ${JSON.stringify(join(tmp.dir, 'instant.sqlite'))} }`,
        'logging: { level: info, pretty: false }',
        '',
      ].join('\n'),
    );
    child = startMizan(['run', cfg]);
    const c = child;
    const seen = (msg: string) => c.lines().filter((l) => l.msg === msg);
    await waitFor('the fill and the denial', () => seen('fixture fill').length + seen('fixture denied').length >= 2, 60_000, c, 100);
    const fills = seen('fixture fill');
    const denied = seen('fixture denied');
    expect(
      fills.map((f) => f.tag),
      c.out(),
    ).toEqual(['small']);
    expect(Number(fills[0]!.quantity) * Number(fills[0]!.price)).toBeLessThanOrEqual(7);
    expect(
      denied.map((d) => [d.tag, d.rule]),
      c.out(),
    ).toEqual([['big', 'marketLimits']]);
    expect(String(denied[0]!.reason)).toMatch(/^instant order total 19\d{3}\.\d+ USDT \(.+\) is above the instant desk's maximum 10000 USDT of BTCUSDT$/);
    expect(c.out()).not.toMatch(/HTTP 422/);
  }, 90_000);
});
