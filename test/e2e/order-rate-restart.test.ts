/**
 * The order-rate window outlives a restart (issue 16.9): `mizan run` (paper, the journal on disk)
 * with a window of 6 order requests per 2 minutes fills it, is stopped, and is started again on the
 * same journal. The second run finds the window full: its first orders are denied by `orderRate`
 * ("sent 6 order requests"), and it places nothing new, where a forgetful bot would send a fresh
 * burst into the exchange's 429s.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { REPO, startMizan, waitFor, type MizanChild } from './run-mizan.js';
import { moreStatusLines } from '../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-rate-'));
const children: MizanChild[] = [];
afterAll(() => {
  for (const c of children) if (c.alive()) c.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function orderCount(file: string): number {
  const j = Journal.open(file, { readonly: true });
  try {
    return j.orders({}).length;
  } finally {
    j.close();
  }
}

async function stop(c: MizanChild): Promise<void> {
  c.proc.kill('SIGINT');
  const end = await Promise.race([
    c.exited,
    new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`no exit after SIGINT:\n${c.out().slice(-3000)}`)), 30_000)),
  ]);
  expect(end.code, c.out().slice(-3000)).toBe(0);
}

const rateDenials = (c: MizanChild) => c.lines().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('risk: denied by orderRate'));

describe('the order-rate window across a restart', () => {
  it('is read back from the journal: the restarted bot does not send a new burst', async () => {
    const journal = join(dir, 'paper.sqlite');
    const config = join(dir, 'rate.yaml');
    writeFileSync(
      config,
      [
        'mode: paper',
        'simulator: { seed: 1, speed: 4 }',
        'strategies:',
        `  - { name: ping, strategy: ${resolve(REPO, 'test/scenario/fixtures/pinger.ts')}, markets: [BTCUSDT], resolution: "1", params: { everyMs: 0, maxOrders: 50, maxOpen: 50, fillEvery: 0 } }`,
        'paper: { balances: { USDT: 100000 } }',
        'risk: { limits: { orderRate: { limit: 6, windowMs: 120000, reserveForCancels: 0 } } }',
        `journal: { file: ${journal} }`,
        'logging: { level: info }',
        '',
      ].join('\n'),
    );
    const first = startMizan(['run', config, '--keep-orders']);
    children.push(first);
    await waitFor('the window full in run 1', () => rateDenials(first).length > 0 && first.out().includes('[paper '), 60_000, first);
    expect(orderCount(journal)).toBe(6);
    await stop(first);

    const second = startMizan(['run', config, '--keep-orders']);
    children.push(second);
    await waitFor('an orderRate denial in run 2', () => rateDenials(second).length > 0, 60_000, second);
    expect(String(rateDenials(second)[0]!.reason)).toMatch(/^the bot sent 6 order requests in the last 120000 ms/);
    await moreStatusLines(() => second.out(), 1, 20_000); // the bot ran on after the denial
    expect(orderCount(journal)).toBe(6);
    await stop(second);
  }, 180_000);
});
