/**
 * Drill: the bot process (`mizan run <config> --live`, pointed at a simulator started here) is
 * killed with SIGKILL while it places and cancels orders: once inside a create (the simulator has
 * executed it, the answer never leaves), once inside a cancel. Each restart loads the journal and
 * reconciles with the simulator before trading; the last run is stopped with SIGINT (which cancels
 * what is open). At the end every order on the simulator is known to the journal, none is
 * duplicated, none orphaned, and the journal agrees with the simulator order by order.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { compareJournal, DRILL_KEY, KEY_ENV, liveYaml, REPO, startDrillSim, tempDir, waitFor } from './helpers.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

interface Child {
  proc: ChildProcess;
  out: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function startMizan(config: string): Child {
  const proc = spawn(process.execPath, ['bin/mizan.js', 'run', config, '--live'], {
    cwd: REPO,
    env: { ...process.env, [KEY_ENV]: DRILL_KEY, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  proc.stdout!.on('data', (b: Buffer) => (text += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (text += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.on('exit', (code, signal) => r({ code, signal })));
  return { proc, out: () => text, exited };
}

describe('drill: SIGKILL while placing and cancelling, then restart', () => {
  it('leaves every order on the simulator known to the journal, none duplicated, none orphaned', async () => {
    const running = await startDrillSim();
    const journalFile = join(tmp.dir, 'kill.sqlite');
    const config = join(tmp.dir, 'live.yaml');
    writeFileSync(
      config,
      liveYaml({ url: running.server.url, journal: journalFile, params: { maxOrders: 10, everyMs: 100, maxOpen: 2, fillEvery: 4 }, timeoutMs: 2000 }),
    );
    const account = running.account.accountId;

    // Kill switches inside the simulator's order handling: the process dies mid-call.
    let killAt: { kind: 'create' | 'cancel'; count: number } | undefined;
    let child: Child | undefined;
    const calls = { create: 0, cancel: 0 };
    const creates: string[] = [];
    const place = running.sim.placeOrder.bind(running.sim);
    const cancel = running.sim.cancelOrder.bind(running.sim);
    const maybeKill = (kind: 'create' | 'cancel') => {
      calls[kind]++;
      if (child && killAt?.kind === kind && calls[kind] >= killAt.count) {
        killAt = undefined;
        child.proc.kill('SIGKILL');
      }
    };
    running.sim.placeOrder = (acc, req) => {
      creates.push(req.clientId ?? '');
      const o = place(acc, req);
      maybeKill('create');
      return o;
    };
    running.sim.cancelOrder = (acc, id) => {
      const o = cancel(acc, id);
      maybeKill('cancel');
      return o;
    };

    try {
      // Run 1: killed inside its 5th create (the order exists on the simulator, the bot never hears).
      killAt = { kind: 'create', count: 5 };
      child = startMizan(config);
      const first = await Promise.race([
        child.exited,
        new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`run 1 was not killed: ${child!.out()}`)), 40_000)),
      ]);
      expect(first.signal, child.out()).toBe('SIGKILL');
      const j1 = Journal.open(journalFile, { readonly: true });
      const pendingAfterKill = j1.openOrders().map((r) => r.clientId);
      j1.close();
      // The order whose create was cut off is in the journal as not final (it was journaled first).
      expect(pendingAfterKill).toContain(creates[4]);

      // Run 2: reconciles, trades on, killed inside a cancel.
      killAt = { kind: 'cancel', count: calls.cancel + 3 };
      child = startMizan(config);
      const second = await Promise.race([
        child.exited,
        new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`run 2 was not killed: ${child!.out()}`)), 40_000)),
      ]);
      expect(second.signal, child.out()).toBe('SIGKILL');
      expect(child.out()).toMatch(/recovered \d+ open order\(s\) from the journal/);

      // Run 3: reconciles, places its orders, then is stopped cleanly with Ctrl-C.
      const before = creates.length;
      child = startMizan(config);
      await waitFor('run 3 to place its orders', () => creates.length >= before + 10 && running.sim.openOrders(account).length <= 3, 40_000);
      expect(child.out()).toMatch(/recovered \d+ open order\(s\) from the journal/);
      child.proc.kill('SIGINT');
      const third = await child.exited;
      expect(third.code, child.out()).toBe(0);
      child = undefined;

      const a = compareJournal(journalFile, running, 'ping');
      expect(a.problems).toEqual([]);
      // One order per client id on the simulator, every create distinct (no twin after a restart).
      expect(new Set(creates).size).toBe(creates.length);
      expect(a.simOrders.length).toBe(creates.length);
      expect(running.sim.openOrders(account)).toEqual([]);
      const j = Journal.open(journalFile, { readonly: true });
      try {
        expect(j.openOrders()).toEqual([]);
        // The orders the first kill left pending were reconciled with the simulator's state.
        for (const id of pendingAfterKill) expect(j.order(id)!.final, id).toBe(true);
        // Fills: one journal fill per filled order (each fills in one trade), none twice.
        const filled = a.simOrders
          .filter((o) => o.executedQty.gt(0))
          .map((o) => o.clientOrderId)
          .sort();
        expect(
          j
            .fills({})
            .map((f) => f.clientId)
            .sort(),
        ).toEqual(filled);
      } finally {
        j.close();
      }
    } finally {
      if (child && child.proc.exitCode === null) child.proc.kill('SIGKILL');
      await running.stop();
    }
  }, 150_000);
});
