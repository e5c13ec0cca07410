/**
 * Issue 34 item 3, on the user's path: a paper bot (`node bin/mizan.js run <config> --serve`, the
 * grid of config/default.yaml alone, the embedded simulator, a real journal) is halted and resumed
 * twice, through the API (`POST /api/v1/halt`, `/resume`) and through the CLI (`mizan halt`,
 * `mizan resume --config`). Each halt cancels the ladder; after each resume the grid lays it again
 * by itself (before: `placed` stayed set and it placed nothing for good).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { mizanSync, waitFor, type MizanChild } from './run-mizan.js';
import { CONTROL, startServedBot, stopBot } from './server-bot.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-grid-resume-'));
let child: MizanChild | undefined;
afterAll(async () => {
  await stopBot(child);
  rmSync(dir, { recursive: true, force: true });
});

const journalFile = join(dir, 'bot', 'paper.sqlite');
const config = join(dir, 'bot', 'paper.yaml');

function journal<T>(fn: (j: Journal) => T): T {
  const j = Journal.open(journalFile, { readonly: true });
  try {
    return fn(j);
  } finally {
    j.close();
  }
}

/** The grid's open buy rungs in the journal. */
const openRungs = () => journal((j) => j.openOrders().filter((o) => o.strategy === 'btc-grid' && o.tag?.startsWith('grid-buy-')).length);
/** Grid buy rungs placed since `ms` (any state: a rung may fill at once on the simulator). */
const rungsSince = (ms: number) => journal((j) => j.orders({ strategy: 'btc-grid', since: ms }).filter((o) => o.tag?.startsWith('grid-buy-')).length);
const stateLines = (c: MizanChild) => c.lines().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('trading state '));

describe('halt and resume do not switch the grid off (issue 34 item 3)', () => {
  it('the grid lays its ladder again after a halt and resume through the API, then through mizan halt / resume', async () => {
    const bot = await startServedBot(dir, 'bot', []);
    child = bot.child;
    const c = child;
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${bot.base}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${CONTROL}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as Record<string, unknown> };
    };
    // Placed, not necessarily all open: a rung may fill at once on the simulator (its sell then stands).
    await waitFor('the ladder (3 buy rungs placed, some open)', () => rungsSince(0) >= 3 && openRungs() > 0, 45_000, c, 250);

    // 1. The API.
    expect((await post('/api/v1/halt', { reason: 'e2e grid drill' })).status).toBe(200);
    await waitFor('every grid order cancelled', () => journal((j) => j.openOrders().filter((o) => o.strategy === 'btc-grid').length) === 0, 20_000, c, 250);
    const resumedAt = Date.now();
    expect((await post('/api/v1/resume', {})).status).toBe(200);
    await waitFor('the ladder laid again after the API resume', () => rungsSince(resumedAt) >= 3 && openRungs() > 0, 30_000, c, 250);

    // 2. The CLI, on the bot's config (its journal), as a user types it.
    const halt = mizanSync(['halt', 'e2e', 'cli', 'drill', '--config', config]);
    expect(halt.code, halt.out).toBe(0);
    await waitFor('the CLI halt applied', () => stateLines(c).some((l) => l.state === 'halted' && String(l.reason).includes('e2e cli drill')), 10_000, c);
    await waitFor(
      'every grid order cancelled again',
      () => journal((j) => j.openOrders().filter((o) => o.strategy === 'btc-grid').length) === 0,
      20_000,
      c,
      250,
    );
    const resumedAgain = Date.now();
    const resume = mizanSync(['resume', '--config', config]);
    expect(resume.code, resume.out).toBe(0);
    await waitFor('the ladder laid again after mizan resume', () => rungsSince(resumedAgain) >= 3 && openRungs() > 0, 30_000, c, 250);
    expect(c.out()).not.toMatch(/TypeError|ReferenceError|Unhandled|uncaught/);
  }, 150_000);
});
