/**
 * A journal is bound to its account (issue #33 item 5): `mizan run <live config> --live` as child
 * processes against a simulator on 127.0.0.1 (in this test's process) that knows two accounts, A and
 * B. A run with key A leaves open orders in the journal (killed with SIGKILL); the same journal run
 * with key B refuses to start, exit 1, naming the exchange URL and both key fingerprints (never a
 * key), before recovery or any order: A's orders stay open, B places nothing. With --adopt-journal
 * the run with key B starts (the adoption logged), and the journal then belongs to B: key A is refused.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAccount } from '../../src/sim/default.js';
import type { RunningSim } from '../../src/sim/run-sim.js';
import { Journal } from '../../src/store/journal.js';
import { keyFingerprint } from '../../src/store/binding.js';
import { DRILL_KEY, KEY_ENV, liveYaml, startDrillSim, tempDir } from '../scenario/helpers.js';
import { startMizan, waitFor, type MizanChild } from './run-mizan.js';

const KEY_B = 'otherkey_fedcba9876543210fedcba9876543210';
const tmp = tempDir('mizan-e2e-binding-');
const journalFile = join(tmp.dir, 'live.sqlite');
const config = join(tmp.dir, 'live.yaml');
let running: RunningSim;
let accountA = '';
let accountB = '';
const children: MizanChild[] = [];

beforeAll(async () => {
  running = await startDrillSim();
  accountA = running.account.accountId;
  accountB = createTestAccount(running.sim, { id: 'other', apiKey: KEY_B }).accountId;
  writeFileSync(
    config,
    liveYaml({ url: running.server.url, journal: journalFile, params: { everyMs: 100, maxOrders: 6, maxOpen: 3, fillEvery: 0 } }).replace(
      'level: warn',
      'level: info',
    ),
  );
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.alive()) c.proc.kill('SIGKILL');
  await running?.stop();
  tmp.remove();
});

function openInJournal(): number {
  const j = Journal.open(journalFile, { readonly: true });
  try {
    return j.openOrders().length;
  } finally {
    j.close();
  }
}

function run(key: string, extra: string[] = []): MizanChild {
  const c = startMizan(['run', config, '--live', ...extra], { [KEY_ENV]: key });
  children.push(c);
  return c;
}

async function exitOf(c: MizanChild, ms = 45_000) {
  return Promise.race([c.exited, new Promise<'still running'>((r) => setTimeout(() => r('still running'), ms))]);
}

describe('mizan run --live: a journal is bound to the account that wrote it', () => {
  it('key A writes it; key B is refused before anything acts; --adopt-journal takes it over', async () => {
    // Account A: open orders in the journal and on the exchange, then a crash.
    const a = run(DRILL_KEY);
    await waitFor('open orders of account A', () => running.sim.openOrders(accountA).length >= 2 && openInJournal() >= 2, 45_000, a, 200);
    a.proc.kill('SIGKILL');
    await a.exited;
    const openA = running.sim
      .openOrders(accountA)
      .map((o) => o.clientOrderId)
      .sort();
    const journalOpen = openInJournal();
    expect(openA.length).toBeGreaterThanOrEqual(2);

    // Account B on A's journal: refused.
    const b = run(KEY_B);
    const end = await exitOf(b);
    const out = b.out();
    expect(end, out).toMatchObject({ code: 1 });
    expect(out).toContain(running.server.url);
    expect(out).toContain(`API key fingerprint ${keyFingerprint(DRILL_KEY)}`);
    expect(out).toContain(`API key fingerprint ${keyFingerprint(KEY_B)}`);
    expect(out).toContain('--adopt-journal');
    expect(out).not.toContain(DRILL_KEY);
    expect(out).not.toContain(KEY_B);
    expect(out).not.toMatch(/^ {2}balances /m); // no banner: nothing started
    expect(running.sim.orders(accountB)).toHaveLength(0);
    expect(
      running.sim
        .openOrders(accountA)
        .map((o) => o.clientOrderId)
        .sort(),
    ).toEqual(openA);
    expect(openInJournal()).toBe(journalOpen);

    // --adopt-journal: B runs on it, the adoption logged.
    const adopt = run(KEY_B, ['--adopt-journal']);
    // The first status line comes after the run's signal handlers are set: Ctrl-C then stops it cleanly.
    await waitFor('account B trading', () => running.sim.orders(accountB).length > 0 && /\[live \d/.test(adopt.out()), 45_000, adopt, 200);
    const adopted = adopt.lines().find((l) => l.msg === 'journal adopted (--adopt-journal): it now belongs to this account');
    expect(adopted, adopt.out()).toMatchObject({
      from: { exchange: running.server.url, keyFingerprint: keyFingerprint(DRILL_KEY) },
      to: { exchange: running.server.url, keyFingerprint: keyFingerprint(KEY_B) },
    });
    expect(adopt.out()).not.toContain(KEY_B);
    adopt.proc.kill('SIGINT');
    expect(await exitOf(adopt, 20_000)).toMatchObject({ code: 0 });

    // Now B's: key A is refused.
    const again = run(DRILL_KEY);
    expect(await exitOf(again), again.out()).toMatchObject({ code: 1 });
    expect(again.out()).toContain(`belongs to ${running.server.url} (API key fingerprint ${keyFingerprint(KEY_B)})`);
  }, 240_000);
});
