/**
 * `mizan run --serve` (paper, embedded simulator, child process): a denial raised before `startBot`
 * returned (an intent of the strategy's onStart) is listed by the API's strategy route like any
 * later one. Before the fix the API's denial list subscribed after the bot had started and missed it.
 */
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO, startMizan, waitFor, sleep, type MizanChild } from './run-mizan.js';
import { tempDir } from './restart-helpers.js';

const tmp = tempDir('mizan-e2e-start-denials-');
const TOKEN = 'read-token-0123456789abcdef';
let child: MizanChild | undefined;
afterAll(async () => {
  if (child?.alive()) {
    child.proc.kill('SIGINT');
    await Promise.race([child.exited, sleep(15_000)]);
    if (child.alive()) child.proc.kill('SIGKILL');
  }
  tmp.remove();
});

describe('the API lists the denials of the first moments', () => {
  it("an intent of onStart denied by risk is in the strategy's recentDenials", async () => {
    const cfg = join(tmp.dir, 'early.yaml');
    writeFileSync(
      cfg,
      [
        'mode: paper',
        'exchange: { simulator: true }',
        'strategies:',
        `  - { name: early, strategy: ${JSON.stringify(join(REPO, 'test/e2e/fixtures/start-denied.ts'))}, markets: [BTCUSDT] }`,
        'paper: { balances: { USDT: 1000 } }',
        `journal: { file: ${JSON.stringify(join(tmp.dir, 'early.sqlite'))} }`,
        'logging: { level: info, pretty: false }',
        '',
      ].join('\n'),
    );
    child = startMizan(['run', cfg, '--serve', '--port', '0'], { MIZAN_SERVER_TOKEN: TOKEN });
    await waitFor('the API address', () => /API on http:\/\/127\.0\.0\.1:\d+/.test(child!.out()), 60_000, child, 100);
    const base = /API on (http:\/\/127\.0\.0\.1:\d+)/.exec(child.out())![1]!;
    const r = await fetch(`${base}/api/v1/strategies/early`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { recentDenials: { rule: string; reason: string; intent: string; symbol: string }[] };
    expect(body.recentDenials).toHaveLength(1);
    // Denied at start (no book yet to price a market order, or the balance): either way listed, with its reason.
    expect(body.recentDenials[0], JSON.stringify(body.recentDenials[0])).toMatchObject({
      rule: expect.stringMatching(/^(marketLimits|balance)$/),
      intent: 'order',
      symbol: 'BTCUSDT',
    });
    expect(body.recentDenials[0]!.reason.length).toBeGreaterThan(10);
  }, 90_000);
});
