/**
 * `mizan account ...` (issue #35 item 2) as a person runs it: child processes against the simulator
 * on 127.0.0.1, the main key in WALLEX_API_KEY. Money-moving commands ask for `yes` on standard input
 * (anything else, or no answer, sends nothing); `--yes` confirms in a script. The key is never printed.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DRILL_KEY, startDrillSim } from '../scenario/helpers.js';
import type { RunningSim } from '../../src/sim/run-sim.js';
import { REPO } from './run-mizan.js';

let s: RunningSim;
beforeAll(async () => {
  s = await startDrillSim();
});
afterAll(async () => {
  await s.stop();
});

function account(args: string[], stdin?: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['bin/mizan.js', 'account', ...args, '--url', s.server.url], {
      cwd: REPO,
      env: { ...process.env, NO_COLOR: '1', WALLEX_API_KEY: DRILL_KEY },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    p.stdout.on('data', (b: Buffer) => (out += b.toString()));
    p.stderr.on('data', (b: Buffer) => (out += b.toString()));
    p.on('exit', (code) => resolve({ code, out }));
    if (stdin !== undefined) p.stdin.write(stdin);
    p.stdin.end();
  });
}
const usdt = () => s.sim.ledger.free(s.account.accountId, 'USDT').toFixed();

// Ten `mizan account` processes one after the other in one test: each loads the whole CLI, which at
// load 13 took over 6 s a process (both copies of a loaded pair timed out at 60 s).
describe('mizan account', { timeout: 180_000 }, () => {
  it('lists packages and checks one; buying asks first: no answer or "no" sends nothing, "yes" buys', async () => {
    const pk = await account(['packages']);
    expect(pk.code, pk.out).toBe(0);
    expect(pk.out).toMatch(/^2\s+Trading credit 10,000 USDT\s+USDT\s+1000\s+9000\s+14/m);
    const check = await account(['check', '2']);
    expect(check.code, check.out).toBe(0);
    expect(check.out).toContain('ok  balance');

    const before = usdt();
    const silent = await account(['buy', '2']);
    expect(silent.code).toBe(1);
    expect(silent.out).toContain('1000 USDT assurance leaves your main account for 9000 USDT of credit');
    expect(silent.out).toContain('cancelled, nothing was sent');
    const no = await account(['buy', '2'], 'no\n');
    expect(no.code).toBe(1);
    expect(usdt()).toBe(before);

    const yes = await account(['buy', '2'], 'yes\n');
    expect(yes.code, yes.out).toBe(0);
    const id = /bought: trading-credit account (\S+)/.exec(yes.out)?.[1];
    expect(id).toBeDefined();
    expect(s.sim.ledger.free(s.account.accountId, 'USDT').toNumber()).toBe(Number(before) - 1000);
    const list = await account(['list']);
    expect(list.out).toContain(id!);
    for (const r of [pk, check, silent, no, yes, list]) expect(r.out).not.toContain(DRILL_KEY);
  });

  it('transfer and close with --yes; a refused transfer names the field and exits 1', async () => {
    const bought = await account(['buy', '2', '--yes']);
    const id = /bought: trading-credit account (\S+)/.exec(bought.out)![1]!;
    const t = await account(['transfer', id, '5', 'USDT', '--yes']);
    expect(t.code, t.out).toBe(0);
    expect(s.sim.ledger.free(`${s.account.accountId}/prop/${id}`, 'USDT').toFixed()).toBe('10005');
    const btc = await account(['transfer', id, '1', 'BTC', '--yes']);
    expect(btc.code).toBe(1);
    expect(btc.out).toMatch(/mizan account transfer: .*422.*currency/);
    const ts = await account(['transfers']);
    expect(ts.out).toMatch(new RegExp(`${id}\\s+USDT\\s+5`));
    const wallet = await account(['connect-wallet', id, '--credit', '50', '--currency', 'USDT', '--count', '2', '--yes']);
    expect(wallet.code, wallet.out).toBe(0);
    const active = await account(['active', id]);
    expect(active.out).toContain('"usageCount":2');
    const closeNo = await account(['close', id]);
    expect(closeNo.code).toBe(1);
    const closed = await account(['close', id, '--yes']);
    expect(closed.code, closed.out).toBe(0);
    expect(closed.out).toContain(`closed ${id}: final balance 10005 USDT`);
    const hist = await account(['history', id]);
    expect(hist.out).toContain('closed (user)');
  });

  it('without WALLEX_API_KEY: says so, exits 1', async () => {
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
      delete env.WALLEX_API_KEY;
      const p = spawn(process.execPath, ['bin/mizan.js', 'account', 'list', '--url', s.server.url], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      p.stdout.on('data', (b: Buffer) => (out += b.toString()));
      p.stderr.on('data', (b: Buffer) => (out += b.toString()));
      p.on('exit', (code) => resolve({ code, out }));
    });
    expect(r.code).toBe(1);
    expect(r.out).toContain('set WALLEX_API_KEY');
  }, 30_000);
});
