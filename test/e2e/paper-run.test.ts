/**
 * `npm start` as a user runs it: `mizan run` on a copy of config/default.yaml (its journal in a temp
 * dir), paper trading on the embedded simulator, in its own process group; Ctrl-C is SIGINT to the
 * group, as a terminal sends it. Issue 16 items 17 (status line, fill log lines, the summary table,
 * a paper restart) and 18 (halt / resume / status through the bot's config).
 * The three tests run at the same time (each bot its own config, journal and embedded simulator):
 * most of each is waiting for the bot's status lines.
 */
import { join } from 'node:path';
import { afterAll, describe, it, type ExpectStatic } from 'vitest';
import { Journal } from '../../src/store/journal.js';
import { defaultConfigWith, mizan, REPO, startRun, tempDir, type Running } from './cli.js';

const tmp = tempDir();
const running: Running[] = [];
// After all the tests (they run at the same time: one's end must not kill another's bot).
afterAll(() => {
  for (const r of running.splice(0)) r.kill();
});
afterAll(() => tmp.remove());

function start(args: string[]): Running {
  const r = startRun(args);
  running.push(r);
  return r;
}

const money = (s: string) => Number(s.replace(/,/g, ''));
const STATUS = /\[paper \d+m\d\ds\] equity ([\d,.]+) USDT {2}pnl ([+-][\d,.]+) \(trades ([+-][\d,.]+), prices ([+-][\d,.]+)\)/g;
const STRATEGIES = ['btc-sma', 'eth-mm', 'btc-grid', 'usdt-dca'];

/** The summary's table: header and one line per strategy and market. */
function summaryTable(expect: ExpectStatic, out: string): string[] {
  const lines = out.split('\n');
  const h = lines.findIndex((l) => /^\s+strategy\s+market\s+position\s+realized\s+unrealized\s+fees$/.test(l));
  expect(h, out).toBeGreaterThan(0);
  const rows: string[] = [lines[h]!];
  for (let i = h + 1; i < lines.length && lines[i]!.trim(); i++) rows.push(lines[i]!);
  return rows;
}

describe.concurrent('npm start (mizan run config/default.yaml)', () => {
  it('status lines whose pnl is the equity change, split into trades and prices; Ctrl-C stops with a table of every strategy', async ({ expect }) => {
    const config = tmp.file('paper.yaml', defaultConfigWith(join(tmp.dir, 'paper.sqlite')));
    const bot = start(['run', config]);
    await bot.waitFor(/mizan paper: embedded simulator/);
    await bot.waitFor(/\[paper 0m1\ds\] equity/, 30_000);
    bot.interrupt();
    const r = await bot.exited;
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain('mizan: stopping (Ctrl-C)');
    const start0 = /equity {3}([\d,.]+) -> ([\d,.]+) USDT \(([+-][\d,.]+)\)/.exec(r.stdout);
    expect(start0, r.stdout).not.toBeNull();
    const startEquity = money(start0![1]!);
    const statuses = [...r.stdout.matchAll(STATUS)];
    expect(statuses.length, r.stdout).toBeGreaterThanOrEqual(2);
    for (const m of statuses) {
      const [equity, pnl, trades, prices] = [m[1]!, m[2]!, m[3]!, m[4]!].map(money);
      // pnl agrees with equity: it is the change since the start equity the summary shows
      expect(Math.abs(pnl! - (equity! - startEquity)), m[0]).toBeLessThanOrEqual(0.011);
      expect(Math.abs(pnl! - (trades! + prices!)), m[0]).toBeLessThanOrEqual(0.011);
    }
    // every strategy of the config, aligned columns, each amount with its currency
    const table = summaryTable(expect, r.stdout);
    expect(table.slice(1).map((l) => l.trim().split(/\s+/)[0])).toEqual(STRATEGIES);
    const ends = (l: string) => [...l.matchAll(/\S+(?= {2}|$)/g)].map((m) => m.index! + m[0].length);
    for (const l of table.slice(1)) expect(ends(l).slice(-3), `${table[0]}\n${l}`).toEqual(ends(table[0]!).slice(-3));
    const row = (s: string) => table.find((l) => l.trim().startsWith(`${s} `))!;
    expect(row('btc-sma')).toMatch(/BTCUSDT\s+[\d.]+ BTC\s+[+-][\d,.]+ USDT\s+[+-][\d,.]+ USDT\s+[\d,.]+ USDT$/);
    expect(row('eth-mm')).toMatch(/ETHUSDT\s+[\d.]+ ETH\s+[+-][\d,.]+ USDT/);
    expect(row('btc-grid')).toMatch(/BTCTMN\s+[\d.]+ BTC\s+[+-][\d,]+ TMN\s+[+-][\d,]+ TMN\s+[\d,]+ TMN$/);
    expect(row('usdt-dca')).toMatch(/USDTTMN\s+[\d.]+ USDT\s+[+-][\d,]+ TMN/);
    expect(r.all).not.toMatch(/TypeError|ReferenceError|Unhandled|uncaught/);
  }, 90_000);

  it('mizan halt / status / resume with --config reach the running bot; Ctrl-C still stops it cleanly', async ({ expect }) => {
    const journal = join(tmp.dir, 'halt.sqlite');
    const config = tmp.file('halt.yaml', defaultConfigWith(journal));
    const bot = start(['run', config]);
    await bot.waitFor(/\[paper 0m0\ds\] equity/, 30_000);
    const h = await mizan(['halt', 'e2e', 'halt', '--config', config]);
    expect(h.code, h.all).toBe(0);
    expect(h.stdout).toContain('trading state: halted');
    await bot.waitFor(/state HALTED/, 20_000);
    expect((await mizan(['status', '--config', config])).stdout).toMatch(/trading state: halted since .* \(e2e halt\)/);
    const before = bot.output().length;
    const res = await mizan(['resume', '--config', config]);
    expect(res.code, res.all).toBe(0);
    // a status line after the resume, without the state
    await bot.waitFor(/\[paper \d+m\d\ds\] equity (?![^\n]*state HALTED)[^\n]*\n/, 20_000, before);
    expect((await mizan(['status', '--config', config])).stdout).toContain('trading state: active');
    bot.interrupt();
    const r = await bot.exited;
    expect(r.code, r.all).toBe(0);
    expect(r.stdout).toContain('mizan stopped after');
    expect(r.all).not.toMatch(/TypeError|ReferenceError|Unhandled|uncaught/);
  }, 90_000);

  it("spot fills are logged; a restart after kill -9 closes the earlier paper run's open orders once, with one clear line", async ({ expect }) => {
    const journal = join(tmp.dir, 'restart.sqlite');
    const fixture = join(REPO, 'test/e2e/fixtures/buy-once.ts');
    const config = tmp.file(
      'restart.yaml',
      defaultConfigWith(journal, (t) => t.replace('paper:\n', `  - { name: e2e-buy, strategy: ${fixture}, markets: [BTCUSDT], resolution: "1" }\npaper:\n`)),
    );
    const first = start(['run', config]);
    // the market buy fills at once: logged like the instant desk's fills
    const fill = await first.waitFor(/market order filled/, 40_000);
    expect(fill).toBeTruthy();
    const line = first
      .output()
      .split('\n')
      .find((l) => l.includes('market order filled'))!;
    const rec = JSON.parse(line) as Record<string, unknown>;
    expect(rec).toMatchObject({ strategy: 'e2e-buy', symbol: 'BTCUSDT', side: 'BUY', msg: 'market order filled' });
    expect(rec.quantity).toMatch(/^\d+\.\d+$/);
    expect(rec.fee).toMatch(/^[\d.]+ BTC$/);
    await first.waitFor(/\[paper [^\n]*orders [1-9]\d* open/, 30_000);
    first.kill(); // kill -9: the journal keeps the open orders of this run
    await first.exited;
    const j = Journal.open(journal, { readonly: true });
    const left = j.openOrders().length;
    j.close();
    expect(left).toBeGreaterThan(0);

    const second = await mizan(['run', config, '--duration', '6']);
    expect(second.code, second.all).toBe(0);
    const said = second.all.match(/journal: (\d+) open order\(s\) of an earlier paper run closed \(the paper exchange starts empty each run\)/g) ?? [];
    expect(said, second.all).toHaveLength(1);
    expect(said[0]).toContain(`journal: ${left} open order(s)`);
    expect(second.all).not.toMatch(/missing/);
    const after = Journal.open(journal, { readonly: true });
    try {
      expect(after.openOrders()).toEqual([]);
    } finally {
      after.close();
    }
  }, 120_000);
});
