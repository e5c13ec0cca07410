/**
 * Leaving a position while its bracket rests (issue 34 item 4), through the CLI
 * (`node bin/mizan.js backtest <config> --out <dir>`, a child process, real files). The bracket's
 * resting stop locks the coins, so a plain sell of them is denied by the balance rule; `exit(symbol)`
 * cancels the bracket's legs, then sells at market, as freqtrade's exit does.
 *  - exit(): no denial, every entry left by a market sell after its stop was cancelled, and the
 *    trades add up exactly to the account's change (the accounting invariant,
 *    test/backtest/accounting-invariant.test.ts);
 *  - a plain sell: denied, and the summary, the report and result.json give the denial's numbers
 *    (their range), say that the bracket's stop locks the coins and name exit(); no `#` template.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../src/core/decimal.js';
import { ledgerValue } from './cli.js';

const REPO = resolve(import.meta.dirname, '../..');
const FIX = resolve(import.meta.dirname, 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-bracket-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// result.json is read field by field in the assertions.
type Json = Record<string, any>;

async function backtest(how: 'exit' | 'sell'): Promise<{ result: Json; stdout: string; html: string }> {
  const cfg = join(dir, `${how}.yaml`);
  writeFileSync(
    cfg,
    [
      'mode: backtest',
      'strategies:',
      '  - name: leaver',
      `    strategy: ${join(FIX, 'bracket-exit.ts')}`,
      '    markets: [BTCUSDT]',
      '    resolution: "300s"',
      `    params: { amount: 1000, pct: 10, every: 12, hold: 4, how: ${how} }`,
      'backtest:',
      `  data: [{ symbol: BTCUSDT, file: ${join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz')} }]`,
      '  from: 2023-01-03',
      '  to: 2023-01-06',
      '  balances: { USDT: 10000 }',
      '  slippagePct: 0.05',
      'journal: { file: ":memory:" }',
      '',
    ].join('\n'),
  );
  const out = join(dir, how);
  const { stdout } = await promisify(execFile)(process.execPath, ['bin/mizan.js', 'backtest', cfg, '--out', out], {
    cwd: REPO,
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 1 << 24,
  }).catch((err: { stdout?: string; stderr?: string; code?: number }) => {
    throw new Error(`mizan backtest exited ${err.code}: ${err.stdout}\n${err.stderr}`);
  });
  const result = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Json;
  const html = readFileSync(join(out, 'report.html'), 'utf8');
  return { result, stdout, html };
}

describe('mizan backtest: leaving a position while its bracket rests', () => {
  it("exit(): the bracket's stop is cancelled, then the position sold at market; no denial; the trades add up to the equity change", async () => {
    const { result: r, stdout } = await backtest('exit');
    expect(r.denied.total, JSON.stringify(r.denied)).toBe(0);
    expect(stdout).toMatch(/denied intents 0\n/);
    const entries = (r.orders as Json[]).filter((o) => o.tag === 'entry' && o.state === 'filled');
    expect(entries.length).toBeGreaterThanOrEqual(5);
    // Each entry: its stop placed, cancelled by the exit, then a market sell of what the bracket held.
    const brief = (r.orders as Json[]).map((o) => `${o.type} ${o.side} ${o.state} ${String(o.tag ?? '').split(':')[0]}`);
    const exits = brief.filter((b) => b === 'MARKET SELL filled bracket-x');
    expect(exits.length).toBe(entries.length - (r.trades as Json[]).filter((t) => t.exit === 'open at end').length);
    expect(brief.filter((b) => b === 'STOP_MARKET SELL cancelled bracket-sl').length).toBe(exits.length);
    expect(brief.filter((b) => b.includes('bracket-tp') || b === 'STOP_MARKET SELL filled bracket-sl')).toEqual([]);
    const closed = (r.trades as Json[]).filter((t) => t.exit !== 'open at end');
    expect(closed.length).toBe(exits.length);
    for (const t of closed) expect(t.exit).toBe('signal');
    // The accounting invariant: exactly, in decimal.
    expect(Object.keys(r.accounting.pnl)).toEqual(['USDT']);
    const trades = new Decimal(r.accounting.pnl.USDT);
    expect(trades.toFixed()).toBe(ledgerValue(r).minus(10000).toFixed());
    const listed = (r.trades as Json[]).reduce((a, t) => a.plus(t.pnl), new Decimal(0));
    expect(listed.minus(trades).abs().toNumber()).toBeLessThan(1e-9 * Math.max(1, r.trades.length));
    // Nothing is left in BTC but what an open trade holds.
    expect(new Decimal(r.finalBalances.BTC?.locked ?? 0).isZero()).toBe(true);
  }, 120_000);

  it('a plain sell is denied, and the summary, the report and result.json give the numbers, the lock and the way out', async () => {
    const { result: r, stdout, html } = await backtest('sell');
    expect(r.denied.total).toBeGreaterThan(3);
    const balance = (r.denied.byRule as Json[]).find((x) => x.rule === 'balance')!;
    expect(balance.count).toBe(r.denied.total);
    const reason = balance.reasons[0].reason as string;
    expect(reason).not.toMatch(/(^|\s)#(\s|$)/);
    // The numbers (a range where they differed between the denials), the lock and exit() named.
    const N = String.raw`\d+(?:\.\d+)?(?:–\d+(?:\.\d+)?)?`;
    expect(reason).toMatch(
      new RegExp(
        `^needs ${N} BTC \\(fees included\\) but only ${N} is free on main \\(value ${N} − locked ${N} − reserved ${N}\\); ${N} BTC of it is locked by the resting stop loss of leaver's bracket on BTCUSDT: exit\\('BTCUSDT'\\) cancels the bracket's legs, then sells$`,
      ),
    );
    expect(stdout).toContain(`${String(balance.reasons[0].count).padStart(6)} × ${reason}`);
    expect(stdout).not.toMatch(/ # /);
    expect(html.includes(`&nbsp;&nbsp;${balance.reasons[0].count} × ${reason}`), 'the report lists the reason with its numbers').toBe(true);
  }, 120_000);
});
