/**
 * Malformed intents (issue 16.6) as a user meets them: `mizan run` (paper, embedded simulator, the
 * real logger and journal) with a strategy that emits `{ kind: 'withdraw' }` and a LIMIT buy with
 * `side: 'buy'`. Both are denied by the shape rule with a reason naming the field and the value; the
 * reason reaches the strategy's onDenied, the log and the journal; Ctrl-C ends with exit 0.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { REPO, startMizan, waitFor, type MizanChild } from './run-mizan.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-shape-'));
let child: MizanChild | undefined;
afterAll(() => {
  if (child?.alive()) child.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('malformed intents from a strategy, through mizan run', () => {
  it('denies an unknown kind and a lowercase side with reasons that reach the strategy, the log and the journal', async () => {
    const journal = join(dir, 'paper.sqlite');
    const config = join(dir, 'bad.yaml');
    writeFileSync(
      config,
      [
        'mode: paper',
        'simulator: { seed: 1, speed: 4 }',
        'strategies:',
        `  - { name: bad, strategy: ${resolve(REPO, 'test/e2e/fixtures/bad-intents.ts')}, markets: [BTCUSDT], resolution: "1" }`,
        'paper: { balances: { USDT: 10000 } }',
        `journal: { file: ${journal} }`,
        'logging: { level: info }',
        '',
      ].join('\n'),
    );
    child = startMizan(['run', config]);
    const c = child;
    const denials = () => c.lines().filter((l) => l.msg === 'bad intent denied');
    await waitFor('two denials told to the strategy', () => denials().length >= 2, 40_000, c);
    const told = denials().map((l) => [l.kind, l.rule, l.reason]);
    expect(told).toEqual([
      ['withdraw', 'intentShape', expect.stringContaining('unknown intent kind "withdraw"')],
      ['order', 'intentShape', 'side must be one of BUY, SELL, got "buy"'],
    ]);
    expect(c.lines().some((l) => String(l.msg).startsWith('risk: denied by intentShape: unknown intent kind "withdraw"'))).toBe(true);

    // The SIGINT handler is installed once startBot returned (the first status line follows it).
    await waitFor('the first status line', () => c.out().includes('[paper '), 20_000, c);
    c.proc.kill('SIGINT');
    const end = await Promise.race([
      c.exited,
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`no exit after SIGINT:\n${c.out().slice(-3000)}`)), 20_000)),
    ]);
    expect(end.code, c.out().slice(-3000)).toBe(0);
    expect(c.out()).not.toMatch(/SqliteError|TypeError|Unhandled|uncaught/);

    const j = Journal.open(journal, { readonly: true });
    const rows = j.intents({ strategy: 'bad' });
    expect(rows.map((r) => [r.kind, r.verdict?.ok, r.verdict?.rule])).toEqual([
      ['withdraw', false, 'intentShape'],
      ['order', false, 'intentShape'],
    ]);
    expect(j.orders({})).toEqual([]);
    j.close();
  }, 90_000);
});
