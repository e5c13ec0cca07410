/**
 * The kill switch as a user pulls it (issue 16.1): `mizan run` on a copy of config/default.yaml
 * (paper, embedded simulator, the real pino logger), then `mizan halt`, `kill -USR2`, `mizan resume`
 * from outside, then Ctrl-C. The bot stays alive throughout, the halt cancels every open order, and
 * Ctrl-C ends it with exit 0 and its summary.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { defaultConfigCopy, mizanSync, startMizan, waitFor, type MizanChild } from './run-mizan.js';
import { moreStatusLines } from '../support/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-halt-'));
let child: MizanChild | undefined;
afterAll(() => {
  if (child?.alive()) child.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function openOrders(file: string): number {
  const j = Journal.open(file, { readonly: true });
  try {
    return j.openOrders().length;
  } finally {
    j.close();
  }
}

const stateLines = (c: MizanChild) => c.lines().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('trading state '));

describe('mizan run + mizan halt / kill -USR2 / mizan resume + Ctrl-C', () => {
  it('keeps the bot alive, cancels its orders on halt, and ends with exit 0 and the summary', async () => {
    const { config, journal } = defaultConfigCopy(dir);
    child = startMizan(['run', config]);
    const c = child;
    await waitFor('open orders in the journal', () => c.out().includes('mizan paper') && openOrders(journal) > 0, 45_000, c, 250);

    expect(mizanSync(['halt', 'e2e', 'drill', '--file', journal]).code).toBe(0);
    await waitFor('the halt applied', () => stateLines(c).some((l) => l.state === 'halted'), 10_000, c);
    await waitFor('every open order cancelled', () => openOrders(journal) === 0, 20_000, c, 250);

    c.proc.kill('SIGUSR2');
    await waitFor('the SIGUSR2 halt logged', () => stateLines(c).some((l) => String(l.reason).includes('SIGUSR2')), 10_000, c);

    expect(mizanSync(['resume', '--file', journal]).code).toBe(0);
    await waitFor('the resume applied', () => stateLines(c).some((l) => l.state === 'active' && l.previous === 'halted'), 10_000, c);
    await moreStatusLines(() => c.out(), 1, 20_000); // still running after the resume
    expect(c.alive(), c.out().slice(-3000)).toBe(true);

    c.proc.kill('SIGINT');
    const end = await Promise.race([
      c.exited,
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`no exit 20 s after SIGINT:\n${c.out().slice(-3000)}`)), 20_000)),
    ]);
    expect(end.code, c.out().slice(-3000)).toBe(0);
    expect(c.out()).toContain('mizan stopped after');
    expect(c.out()).not.toMatch(/TypeError|ReferenceError|Unhandled|uncaught/);
    expect(openOrders(journal)).toBe(0);
  }, 120_000);
});
