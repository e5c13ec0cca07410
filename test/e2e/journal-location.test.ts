/**
 * Issue 16 item 18: `mizan halt/resume/status/journal` read and write the journal `npm start` writes
 * (config/default.yaml's journal.file, .mizan/paper.sqlite) by default, and take the bot's config
 * (`--config <file>`) to use its journal. Child processes in a temp working directory holding a copy
 * of config/default.yaml, as a user's checkout does.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { Journal } from '../../src/store/journal.js';
import { mizan, REPO, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const cwd = tmp.dir;
const paper = join(cwd, '.mizan/paper.sqlite');
const run = (...args: string[]) => mizan(args, { cwd });

beforeAll(() => {
  mkdirSync(join(cwd, 'config'));
  copyFileSync(join(REPO, 'config/default.yaml'), join(cwd, 'config/default.yaml'));
  mkdirSync(join(cwd, '.mizan'));
  // The journal a paper run of config/default.yaml leaves, with one order in it.
  const j = Journal.open(paper);
  j.recordOrder({
    clientId: 'btcsma_1',
    strategy: 'btc-sma',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'MARKET',
    venue: 'paper',
    quantity: new Decimal('0.01'),
    status: 'open',
    final: false,
    ts: Date.UTC(2026, 0, 1),
  });
  j.close();
});

describe('which journal mizan halt / resume / status / journal use', { timeout: 120_000 }, () => {
  it('with no option: the journal npm start writes (.mizan/paper.sqlite), saying so', async () => {
    const h = await run('halt', 'smoke', 'test');
    expect(h.code, h.all).toBe(0);
    expect(h.stdout).toContain('journal .mizan/paper.sqlite');
    expect(h.stdout).toContain('trading state: halted');
    expect(existsSync(join(cwd, '.mizan/journal.sqlite'))).toBe(false);
    const s = await run('status');
    expect(s.stdout).toMatch(/trading state: halted since .* \(smoke test\)/);
    const o = await run('journal', 'orders');
    expect(o.code, o.all).toBe(0);
    expect(o.stdout).toMatch(/^created \(UTC\)/); // the table alone on stdout, the note on stderr
    expect(o.stdout).toMatch(/btcsma_1\s+btc-sma\s+BTCUSDT/);
    expect(o.stderr).toContain('journal .mizan/paper.sqlite');
    const r = await run('resume');
    expect(r.stdout).toContain('trading state: active');
  });

  it('--config <file>: the journal.file of that config', async () => {
    const other = join(cwd, 'other.sqlite');
    Journal.open(other).close();
    const cfg = tmp.file(
      'bot.yaml',
      `mode: paper\nstrategies:\n  - { name: a, strategy: sma-cross, markets: [BTCUSDT], resolution: "1" }\njournal: { file: ${other} }\n`,
    );
    const h = await run('halt', 'by config', '--config', cfg);
    expect(h.code, h.all).toBe(0);
    expect((await run('status', '--config', cfg)).stdout).toMatch(/halted .*\(by config\)/);
    expect((await run('status', '--config', 'config/default.yaml')).stdout).toMatch(/trading state: active/);
    expect((await run('journal', 'pnl', '--config', 'config/default.yaml')).stdout).toBe('no fills\n');
    // a config whose journal does not exist yet: named, exit 1
    const none = tmp.file('none.yaml', `mode: paper\nstrategies: []\njournal: { file: nowhere.sqlite }\n`);
    const n = await run('halt', '--config', none);
    expect(n.code).toBe(1);
    expect(n.stderr).toContain('journal nowhere.sqlite (journal.file of');
  });

  it('refuses to guess when both default journals exist', async () => {
    Journal.open(join(cwd, '.mizan/journal.sqlite')).close();
    const h = await run('halt', 'which one');
    expect(h.code).toBe(1);
    expect(h.stderr).toContain('two journals here, .mizan/journal.sqlite (the default journal.file) and .mizan/paper.sqlite');
    expect(h.stderr).toContain('--config <file>');
    const j = await run('journal', 'orders');
    expect(j.code).toBe(1);
  });
});
