/**
 * A strategy may not sell another strategy's coins (the risk module's ownership rule,
 * src/risk/ownership.ts), through the CLI (`node bin/mizan.js backtest <config> --out <dir>`, a child
 * process, real files). `buyer` buys half the USDT in BTC; `sellr`, on the same market and holding
 * nothing, asks to sell 0.1 BTC, then `fraction(1)`: both denied (rule `ownership`) with the strategy,
 * the asset, what it asked and what it may sell (0). `buyer` then sells its whole position, its trade
 * closes, and the trades add up exactly to the account's change (the accounting invariant,
 * test/backtest/accounting-invariant.test.ts). Before the rule, sellr's sell filled from buyer's coins
 * and buyer's own sell was denied by the balance rule, leaving its trade `open at end`.
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
const dir = mkdtempSync(join(tmpdir(), 'mizan-e2e-shared-coins-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// result.json is read field by field in the assertions.
type Json = Record<string, any>;

const instance = (name: string, role: string) => [
  `  - name: ${name}`,
  `    strategy: ${join(FIX, 'shared-coins.ts')}`,
  '    markets: [BTCUSDT]',
  '    resolution: "300s"',
  `    params: { role: ${role} }`,
];

describe("mizan backtest: a strategy may not sell another strategy's coins", () => {
  it("sellr's sells are denied by ownership with the numbers; buyer closes its whole position; the trades add up to the equity change", async () => {
    const cfg = join(dir, 'two.yaml');
    writeFileSync(
      cfg,
      [
        'mode: backtest',
        'strategies:',
        ...instance('buyer', 'buy'),
        ...instance('sellr', 'sell'),
        'backtest:',
        `  data: [{ symbol: BTCUSDT, file: ${join(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz')} }]`,
        '  from: 2023-01-03',
        '  to: 2023-01-04',
        '  balances: { USDT: 10000 }',
        'journal: { file: ":memory:" }',
        'logging: { level: warn, pretty: false }',
        '',
      ].join('\n'),
    );
    const out = join(dir, 'out');
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['bin/mizan.js', 'backtest', cfg, '--out', out], {
      cwd: REPO,
      env: { ...process.env, NO_COLOR: '1' },
      maxBuffer: 1 << 24,
    }).catch((err: { stdout?: string; stderr?: string; code?: number }) => {
      throw new Error(`mizan backtest exited ${err.code}: ${err.stdout}\n${err.stderr}`);
    });
    const r = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as Json;

    // Both sells of sellr denied by ownership, each naming what it asked and what it may sell.
    // The strategies' log lines (pino, JSON lines on stderr while stdout carries the summary).
    const logged = `${stdout}\n${stderr}`
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Json);
    const denials = logged.filter((l) => l.msg === 'shared-coins denied');
    expect(denials.map((l) => [l.strategy, l.rule])).toEqual([
      ['sellr', 'ownership'],
      ['sellr', 'ownership'],
    ]);
    const N = String.raw`\d+\.\d+`;
    expect(denials[0]!.reason).toMatch(new RegExp(`^sellr may sell 0 BTC, asked 0\\.1 \\(account free (${N}); buyer holds \\1\\)$`));
    expect(denials[1]!.reason).toMatch(new RegExp(`^sellr may sell 0 BTC, asked fraction 1 of it \\(account free (${N}); buyer holds \\1\\)$`));
    // What buyer holds: its position (the buy's quantity less the fee taken in BTC).
    const held = new Decimal(/holds (\S+)\)$/.exec(denials[0]!.reason as string)![1]!);
    expect(held.gt(0.29) && held.lt(0.3)).toBe(true);
    expect(r.denied.total).toBe(2);
    expect((r.denied.byRule as Json[]).map((x) => [x.rule, x.count])).toEqual([['ownership', 2]]);

    // Only buyer's orders reached the exchange, both filled; its sell sold what it held (to the step).
    const orders = (r.orders as Json[]).map((o) => `${o.strategy} ${o.side} ${o.state}`);
    expect(orders).toEqual(['buyer BUY filled', 'buyer SELL filled']);
    const sell = logged.find((l) => l.msg === 'shared-coins fill' && l.strategy === 'buyer' && l.side === 'SELL') as Json;
    expect(held.minus(sell.quantity).gte(0) && held.minus(sell.quantity).lt('0.000001')).toBe(true);
    // Its trade closed by that sell, none left open.
    expect((r.trades as Json[]).map((t) => [t.strategy, t.exit])).toEqual([['buyer', 'signal']]);
    expect(stdout).toMatch(/trades 1, denied intents 2\n/);

    // The accounting invariant: exactly, in decimal.
    expect(Object.keys(r.accounting.pnl)).toEqual(['USDT']);
    expect(new Decimal(r.accounting.pnl.USDT).toFixed()).toBe(ledgerValue(r).minus(10000).toFixed());
  }, 120_000);
});
