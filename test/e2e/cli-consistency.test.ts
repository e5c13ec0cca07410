/**
 * Issue 34 item 10: the CLI says things one way. `mizan --help` (every command's description in one
 * style), `mizan sim --help` (both stream routes), the journal options shared by `journal`, `halt`,
 * `resume` and `status`, `mizan halt` without a reason on a real journal file, the sweep table's
 * columns, and `--to` exclusive in `mizan backtest` (the candles boundary, over the simulator, is
 * test/market/cli/candles-cache-source.test.ts; `mizan book`'s bps: test/market/cli/book-render-bps.test.ts).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { mizan } from './cli.js';

const T0 = Date.parse('2024-01-01T00:00:00Z') / 1000;

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'mizan-e2e-cli-'));
}

/** The two-column entries (term, description) of a commander help section. */
function entries(help: string, section: 'Commands' | 'Options'): [string, string][] {
  const start = help.indexOf(`${section}:\n`);
  expect(start, help).toBeGreaterThanOrEqual(0);
  const out: [string, string][] = [];
  for (const line of help.slice(start).split('\n').slice(1)) {
    if (!line.trim()) break;
    const m = /^ {2}(\S.*?)\s{2,}(\S.*)$/.exec(line);
    if (m) out.push([m[1]!, m[2]!]);
  }
  return out;
}

/** A one-minute CSV of `rows` and a sma-cross backtest config over its first `minutes`, in `dir`. */
function writeBacktest(dir: string, rows: string[], fast: number, slow: number, minutes: number): string {
  writeFileSync(join(dir, 'c.csv'), ['time,open,high,low,close,volume', ...rows].join('\n') + '\n');
  const config = join(dir, 'bt.yaml');
  writeFileSync(
    config,
    `mode: backtest
strategies:
  - { name: s, strategy: sma-cross, markets: [BTCUSDT], resolution: "60s", params: { fast: ${fast}, slow: ${slow}, fraction: 0.5 } }
backtest:
  data: [ { symbol: BTCUSDT, file: c.csv } ]
  from: ${T0}
  to: ${T0 + minutes * 60}
  balances: { USDT: 10000 }
journal: { file: ":memory:" }
logging: { level: warn }
`,
  );
  return config;
}

describe('mizan CLI consistency (issue 34 item 10)', () => {
  it('every command of mizan --help is described in the same style: lower-case first word, no final full stop', async () => {
    const r = await mizan(['--help']);
    expect(r.code, r.stderr).toBe(0);
    const commands = entries(r.stdout, 'Commands');
    expect(commands.map(([t]) => t.split(' ')[0])).toEqual(expect.arrayContaining(['run', 'sim', 'book', 'candles', 'markets', 'halt', 'journal', 'init']));
    for (const [term, desc] of commands) {
      expect(desc, term).toMatch(/^[a-z]/);
      expect(desc, term).not.toMatch(/\.$/);
    }
  });

  it('mizan sim --help names both stream routes: the plain WebSocket /ws and socket.io', async () => {
    const r = await mizan(['sim', '--help']);
    expect(r.code, r.stderr).toBe(0);
    const first = r.stdout.split('\n\n')[1]!;
    expect(first).toContain('/ws');
    expect(first).toContain('socket.io');
  });

  it('journal, halt, resume and status name the journal with the same options (-f/--file, -c/--config)', async () => {
    const helps = await Promise.all(
      [['halt'], ['resume'], ['status'], ['journal', 'orders'], ['journal', 'fills'], ['journal', 'pnl']].map(
        async (cmd) => [cmd.join(' '), (await mizan([...cmd, '--help'])).stdout] as const,
      ),
    );
    const byCommand = helps.map(([cmd, help]) => [cmd, new Map(entries(help, 'Options'))] as const);
    const [, first] = byCommand[0]!;
    for (const [cmd, opts] of byCommand) {
      expect(opts.get('-f, --file <journal>'), cmd).toBe(first.get('-f, --file <journal>'));
      expect(opts.get('-c, --config <file>'), cmd).toBe(first.get('-c, --config <file>'));
      expect(opts.get('-f, --file <journal>'), cmd).toMatch(/journal/);
    }
  });

  it('mizan halt without a reason halts with a default reason; status and journal -f read it', async () => {
    const dir = tempDir();
    const file = join(dir, 'bot.sqlite');
    Journal.open(file).close();
    const halt = await mizan(['halt', '-f', file]);
    expect(halt.code, halt.stderr).toBe(0);
    expect(halt.stderr).toBe('');
    expect(halt.stdout).toMatch(/^trading state: halted since \S+ \(halted from the command line\)/);
    const status = await mizan(['status', '--file', file]);
    expect(status.stdout).toMatch(/trading state: halted since \S+ \(halted from the command line\)/);
    const fills = await mizan(['journal', 'fills', '-f', file]);
    expect(fills.code, fills.stderr).toBe(0);
    expect(fills.stdout).toBe('no fills\n');
  }, 60_000);

  it('the sweep table: every column right-aligned under its header, the params after them', async () => {
    const dir = tempDir();
    const rows = Array.from({ length: 300 }, (_, i) => {
      const p = 100 + 10 * Math.sin(i / 9) + (i % 5);
      return `${T0 + i * 60},${p},${p + 2},${p - 2},${p + 1},5`;
    });
    const config = writeBacktest(dir, rows, 3, 8, 300);
    const r = await mizan(['sweep', config, '--param', 'fast=2,3,12', '--param', 'slow=5,40', '--workers', '1', '--out', join(dir, 's.csv')], {
      cwd: dir,
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const h = lines.findIndex((l) => l.startsWith('rank'));
    const table = lines.slice(h, h + 7);
    const ends = (l: string) => [...l.matchAll(/\S+/g)].map((m) => m.index + m[0].length);
    const header = ends(table[0]!);
    const paramsAt = table[0]!.indexOf('params');
    expect(table.slice(1).filter((l) => /^\s*\d+ /.test(l))).toHaveLength(6);
    for (const row of table.slice(1)) {
      // The numeric columns end where their headers end; the params start under "params".
      expect(ends(row).slice(0, header.length - 1), `${table[0]}\n${row}`).toEqual(header.slice(0, -1));
      expect(row.indexOf('{'), row).toBe(paramsAt);
    }
  }, 150_000);

  it('mizan backtest --to is exclusive: the candle starting at --to is not traded; one period later it is', async () => {
    const dir = tempDir();
    // Flat, then one jump at minute 30: with fast 2 / slow 3 the cross is decided on the candle at T0+30 min.
    const rows = Array.from({ length: 40 }, (_, i) => {
      const p = i < 30 ? 100 : 120;
      return `${T0 + i * 60},${p},${p},${p},${p},5`;
    });
    const config = writeBacktest(dir, rows, 2, 3, 40);
    const run = async (to: number, out: string) => {
      const r = await mizan(['backtest', config, '--to', String(to), '--out', join(dir, out)], { cwd: dir, timeoutMs: 90_000 });
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(readFileSync(join(dir, out, 'result.json'), 'utf8')) as Record<string, unknown>;
    };
    const fills = (res: Record<string, unknown>) => JSON.stringify(res).match(/"side":"BUY"/g)?.length ?? 0;
    expect(fills(await run(T0 + 30 * 60, 'a'))).toBe(0);
    expect(fills(await run(T0 + 32 * 60, 'b'))).toBeGreaterThan(0);
  }, 150_000);
});
