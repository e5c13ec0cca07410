/**
 * Issue 16 item 22, through the CLI: `logging.file` gets every log line as JSON while the terminal
 * stays pretty; a log line names each key once; `mizan journal pnl` rounds its amounts for display;
 * a journal that is not one (corrupt) is named in the error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { Journal } from '../../src/store/journal.js';
import { defaultConfigWith, mizan, tempDir } from './cli.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

/** Top-level keys of one JSON line that occur more than once (JSON.parse would keep the last silently). */
function repeatedKeys(line: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  let i = 0;
  while (i < line.length) {
    const ch = line[i]!;
    if (ch === '"') {
      let j = i + 1;
      while (line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      const s = line.slice(i + 1, j);
      if (depth === 1 && line[j + 1] === ':') keys.push(s);
      i = j + 1;
      continue;
    }
    if (ch === '{' || ch === '[') depth++;
    if (ch === '}' || ch === ']') depth--;
    i++;
  }
  return keys.filter((k, n) => keys.indexOf(k) !== n);
}

describe('logging and journal output', { timeout: 120_000 }, () => {
  it('logging.file: JSON lines in the file, pretty lines on the terminal, no key twice in a line', async () => {
    const log = join(tmp.dir, 'logs/bot.log');
    const config = tmp.file(
      'logging.yaml',
      defaultConfigWith(join(tmp.dir, 'log-run.sqlite'), (t) =>
        t.replace(/logging:\n {2}level: info\s*$/, `logging:\n  level: info\n  pretty: true\n  file: ${log}\n`),
      ),
    );
    expect(readFileSync(config, 'utf8')).toContain(`file: ${log}`);
    const r = await mizan(['run', config, '--duration', '8']);
    expect(r.code, r.all).toBe(0);
    expect(existsSync(log)).toBe(true);
    const lines = readFileSync(log, 'utf8').trimEnd().split('\n');
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const msgs = records.map((o) => o.msg);
    expect(msgs).toContain('market catalog refreshed');
    expect(msgs).toContain('stream connection up');
    // the stream client's logger is a child of the bot's `component: stream` child: one key
    const stream = lines.find((l) => l.includes('stream connection up'))!;
    expect(repeatedKeys(stream)).toEqual([]);
    for (const l of lines) expect(repeatedKeys(l), l).toEqual([]);
    // the terminal got the same lines, pretty (not JSON)
    expect(r.stdout).toMatch(/INFO.*market catalog refreshed/);
    expect(r.stdout).not.toContain('"msg":"market catalog refreshed"');
  });

  it('journal pnl rounds amounts to the precision of the fills, not 40 digits', async () => {
    const file = join(tmp.dir, 'pnl.sqlite');
    const j = Journal.open(file);
    const d = (v: string) => new Decimal(v);
    const fills: [string, 'BUY' | 'SELL', string, string][] = [
      ['s_1', 'BUY', '60001.37', '0.000123'],
      ['s_2', 'BUY', '59999.91', '0.000077'],
      ['s_3', 'SELL', '60100.11', '0.00013'],
    ];
    fills.forEach(([id, side, price, qty], n) => {
      const ts = Date.UTC(2026, 0, 1, 0, n);
      j.recordOrder({
        clientId: id,
        strategy: 's',
        symbol: 'BTCUSDT',
        side,
        type: 'LIMIT',
        venue: 'paper',
        price: d(price),
        quantity: d(qty),
        status: 'filled',
        final: true,
        ts,
      });
      j.recordFill({
        clientId: id,
        strategy: 's',
        symbol: 'BTCUSDT',
        side,
        price: d(price),
        quantity: d(qty),
        fee: d(price).mul(qty).mul('0.002'),
        feeAsset: 'USDT',
        ts,
      });
    });
    j.close();
    // A journal that does not record its markets' instruments: named, and --market supplies them.
    const unknown = await mizan(['journal', 'pnl', '--file', file]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('does not record the base and quote of BTCUSDT');
    expect(unknown.stderr).toContain('--market BTCUSDT=BASE/QUOTE');
    const r = await mizan(['journal', 'pnl', '--file', file, '--market', 'BTCUSDT=BTC/USDT']);
    expect(r.code, r.all).toBe(0);
    // the exact realised PnL (average cost, fees included) has dozens of digits
    const row = r.stdout.split('\n').find((l) => l.startsWith('s '))!;
    expect(row).toMatch(/^s\s+BTCUSDT\s+3\s+0\.00007\s+\d+\.\d{1,2}\s+0\.\d{1,8} USDT\s+-?0\.\d{1,8} USDT$/);
    expect(r.stdout).toMatch(/^total realized USDT: -?0\.\d{1,8}$/m);
    for (const n of r.stdout.match(/\d+\.\d+/g) ?? []) expect(n.split('.')[1]!.length, n).toBeLessThanOrEqual(8);
  });

  it('a corrupt journal: the error names the file, for journal, status and run', async () => {
    const bad = tmp.file('corrupt.sqlite', 'this is not a SQLite database, it is a text file that got in the way\n'.repeat(100));
    for (const args of [
      ['journal', 'orders', '--file', bad],
      ['status', '--file', bad],
    ]) {
      const r = await mizan(args);
      expect(r.code, r.all).toBe(1);
      expect(r.stderr).toContain(`journal ${bad}: file is not a database`);
      expect(r.stderr).toContain('not a mizan journal or is damaged');
    }
    const config = tmp.file('corrupt.yaml', defaultConfigWith(bad));
    const run = await mizan(['run', config, '--duration', '5']);
    expect(run.code, run.all).toBe(1);
    expect(run.stderr).toContain(`journal ${bad}: file is not a database`);
  });
});
