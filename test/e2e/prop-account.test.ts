/**
 * Issue #35 item 1 on the user's path: `mizan run` (a child process) with a strategy on a
 * trading-credit account `prop:<clientId>` whose own API key comes from the environment
 * (`accounts: { "prop:<id>": { apiKeyEnv: ... } }`).
 *
 * - live, against the simulator on 127.0.0.1: the simulator refuses the main key for the
 *   sub-account's orders, so the orders it holds on the sub-account's ledger were placed with the
 *   sub-account's key; no key is printed.
 * - live without a key source, or with the main key in the variable: a ConfigError naming the field.
 * - paper: the same config runs on the embedded simulator, the journal's orders on that account.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { d, type Decimal } from '../../src/core/decimal.js';
import { Journal } from '../../src/store/journal.js';
import { DRILL_KEY, KEY_ENV, liveYaml, startDrillSim, tempDir } from '../scenario/helpers.js';
import { startMizan, waitFor } from './run-mizan.js';

const tmp = tempDir('mizan-e2e-prop-');
afterAll(() => tmp.remove());

const PROP_ENV = 'MIZAN_TEST_PROP_KEY';
const PROP_KEY = 'propkey_e2e_0123456789abcdef0123';
const PARAMS = { everyMs: 100, maxOrders: 3, maxOpen: 5, fillEvery: 0 };

/** liveYaml with the strategy on `account` and, unless `keySource` is false, its key source. */
function propYaml(o: { url: string; journal: string; account: string; keySource?: boolean; mode?: 'live' | 'paper' }): string {
  let y = liveYaml({ url: o.url, journal: o.journal, params: PARAMS }).replace('    resolution: "1"\n', `    resolution: "1"\n    account: "${o.account}"\n`);
  if (o.keySource !== false) y += `accounts:\n  "${o.account}": { apiKeyEnv: ${PROP_ENV} }\n`;
  if (o.mode === 'paper')
    y = y
      .replace('mode: live', 'mode: paper')
      .replace('  simulator: false\n', '  simulator: true\n')
      .replace(/ {2}apiKey: .*\n/, '');
  return y;
}

async function openProp(url: string, owner: string): Promise<string> {
  const res = await fetch(`${url}/__sim/prop/open`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ account: owner, package_id: 2, api_key: PROP_KEY }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { result: { client_id: string } }).result.client_id;
}

async function runToExit(config: string, args: string[], env: Record<string, string>) {
  const c = startMizan(['run', config, ...args], env);
  const end = await Promise.race([c.exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 30_000))]);
  if (end === 'running') c.proc.kill('SIGKILL');
  return { end, out: c.out() };
}

describe('mizan run with a trading-credit account and its own API key', () => {
  it('live against the simulator: the orders are placed on the sub-account with its own key', async () => {
    const running = await startDrillSim();
    const c = { current: undefined as ReturnType<typeof startMizan> | undefined };
    try {
      const subId = await openProp(running.server.url, running.account.accountId);
      const account = `prop:${subId}`;
      const journal = join(tmp.dir, 'live.sqlite');
      const config = join(tmp.dir, 'live.yaml');
      writeFileSync(config, propYaml({ url: running.server.url, journal, account }));
      const ledger = `${running.account.accountId}/prop/${subId}`;
      // Both accounts' balances added up, as the banner must list them.
      const both = new Map<string, Decimal>();
      for (const id of [running.account.accountId, ledger])
        for (const [asset, e] of Object.entries(running.sim.ledger.balances(id))) both.set(asset, (both.get(asset) ?? d(0)).plus(e.value));
      expect(Object.keys(running.sim.ledger.balances(ledger)).length).toBeGreaterThan(0);
      c.current = startMizan(['run', config, '--live'], { [KEY_ENV]: DRILL_KEY, [PROP_ENV]: PROP_KEY });
      // The equity the status line and the protections watch is both accounts' (before: the main one's
      // only, so the trading-credit account's losses never reached the daily-loss limit).
      await waitFor('the start banner', () => /^ {2}balances /m.test(c.current!.out()), 30_000, c.current);
      const line = /^ {2}balances \((.*?)\) (.*)$/m.exec(c.current.out());
      expect(line?.[1], c.current.out()).toBe(`main + ${account}`);
      const listed = new Map(line![2]!.split(', ').map((x) => [x.split(' ')[1]!, x.split(' ')[0]!]));
      for (const [asset, v] of both) if (!v.isZero()) expect(listed.get(asset), `${asset} in ${line![2]}`).toBe(v.toFixed());
      await waitFor(
        '3 orders on the sub-account',
        () => running.sim.orders(ledger).filter((o) => o.clientOrderId.startsWith('ping_')).length >= 3,
        45_000,
        c.current,
      );
      // None on the main account: the main key never placed them (the simulator refuses it for the sub-account).
      expect(running.sim.orders(running.account.accountId).filter((o) => o.clientOrderId.startsWith('ping_'))).toHaveLength(0);
      c.current.proc.kill('SIGINT');
      await c.current.exited;
      const out = c.current.out();
      expect(out).not.toContain(PROP_KEY);
      expect(out).not.toContain(DRILL_KEY);
      const j = Journal.open(journal, { readonly: true });
      try {
        const rows = j.orders({}).filter((r) => r.clientId.startsWith('ping_'));
        expect(rows.length).toBeGreaterThanOrEqual(3);
        expect(new Set(rows.map((r) => r.account))).toEqual(new Set([account]));
        const onSim = new Set(running.sim.orders(ledger).map((o) => o.clientOrderId));
        for (const r of rows) if (r.status !== 'rejected') expect(onSim.has(r.clientId), r.clientId).toBe(true);
      } finally {
        j.close();
      }
    } finally {
      if (c.current?.alive()) c.current.proc.kill('SIGKILL');
      await running.stop();
    }
  }, 90_000);

  it('live: no key source, an unset variable, or the main key in it is a ConfigError naming the field', async () => {
    const url = 'http://127.0.0.1:9';
    const none = join(tmp.dir, 'none.yaml');
    writeFileSync(none, propYaml({ url, journal: join(tmp.dir, 'none.sqlite'), account: 'prop:abc-123', keySource: false }));
    const a = await runToExit(none, ['--live'], { [KEY_ENV]: DRILL_KEY });
    expect(a.end, a.out).toMatchObject({ code: 1 });
    expect(a.out).toMatch(/strategies\[0\]\.account.*"prop:abc-123" has no API key source/);

    const withSource = join(tmp.dir, 'unset.yaml');
    writeFileSync(withSource, propYaml({ url, journal: join(tmp.dir, 'unset.sqlite'), account: 'prop:abc-123' }));
    const b = await runToExit(withSource, ['--live'], { [KEY_ENV]: DRILL_KEY, [PROP_ENV]: '' });
    expect(b.end, b.out).toMatchObject({ code: 1 });
    expect(b.out).toContain(`accounts["prop:abc-123"].apiKeyEnv`);
    expect(b.out).toContain(`names ${PROP_ENV}, which is not set in the environment`);

    const same = await runToExit(withSource, ['--live'], { [KEY_ENV]: DRILL_KEY, [PROP_ENV]: DRILL_KEY });
    expect(same.end, same.out).toMatchObject({ code: 1 });
    expect(same.out).toMatch(/accounts\["prop:abc-123"\]\.apiKeyEnv.*holds the same key as exchange\.apiKey/);
    expect(same.out).not.toContain(DRILL_KEY);
  }, 90_000);

  it('paper: the same account runs on the embedded simulator, its orders journaled on that account', async () => {
    const journal = join(tmp.dir, 'paper.sqlite');
    const config = join(tmp.dir, 'paper.yaml');
    const account = 'prop:paper-77';
    writeFileSync(config, propYaml({ url: 'http://127.0.0.1:9', journal, account, mode: 'paper' }));
    const c = startMizan(['run', config], { [PROP_ENV]: PROP_KEY });
    try {
      const count = () => {
        const j = Journal.open(journal, { readonly: true });
        try {
          return j.orders({}).filter((r) => r.clientId.startsWith('ping_') && r.account === account).length;
        } finally {
          j.close();
        }
      };
      await waitFor(
        '3 paper orders on the trading-credit account',
        () => {
          try {
            return count() >= 3;
          } catch {
            return false; // the journal is not created yet
          }
        },
        45_000,
        c,
      );
      c.proc.kill('SIGINT');
      const end = await c.exited;
      expect(end.code, c.out()).toBe(0);
      expect(c.out()).not.toContain(PROP_KEY);
    } finally {
      if (c.alive()) c.proc.kill('SIGKILL');
    }
  }, 90_000);
});
