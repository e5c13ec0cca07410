/**
 * `mizan book` and `mizan markets` against the simulator's wire server on 127.0.0.1 (no replay: the
 * seeded books; sides are replaced by the test to drive live updates).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import { runSim, type RunningSim } from '../../../src/sim/run-sim.js';
import { capture, program } from './helpers.js';

let running: RunningSim;
let url: string;

beforeAll(async () => {
  running = await runSim({ port: 0, replay: false, apiKey: 'cli-test-key-5f3a9c1d7e2b' });
  url = running.server.url;
});
afterAll(async () => {
  await running.stop();
});

describe('mizan markets', () => {
  it('lists every market with exact limits; fees unknown without an API key', async () => {
    const out = capture();
    const err = capture();
    await program({ stdout: out, stderr: err, env: {} }).parseAsync(['markets', '--url', url], { from: 'user' });
    const lines = out.text.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^symbol\s+base\s+quote\s+qty step\s+price tick\s+min qty\s+max qty\s+min notional\s+maker\s+taker\s+trading$/);
    expect(lines).toHaveLength(1 + running.sim.markets().length);
    const btcusdt = lines.find((l) => l.startsWith('BTCUSDT '))!.split(/\s+/);
    expect(btcusdt).toEqual(['BTCUSDT', 'BTC', 'USDT', '0.000001', '0.01', '0.000001', '100', '10', '-', '-', 'spot']);
    const btctmn = lines.find((l) => l.startsWith('BTCTMN '))!.split(/\s+/);
    expect(btctmn.slice(3, 8)).toEqual(['0.000001', '1', '0.000001', '100000', '100000']);
    expect(err.text).toMatch(/5 markets from http:\/\/127\.0\.0\.1:\d+; fees: set WALLEX_API_KEY/);
  });

  it("shows the account's fees with WALLEX_API_KEY and never prints the key", async () => {
    const out = capture();
    const err = capture();
    const env = { WALLEX_API_KEY: running.account.apiKey };
    await program({ stdout: out, stderr: err, env }).parseAsync(['markets', '--url', url, '--filter', 'tmn'], { from: 'user' });
    const rows = out.text
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/));
    expect(rows.map((r) => r[0])).toEqual(['BTCTMN', 'ETHTMN', 'USDTTMN']);
    for (const r of rows) expect(r.slice(8, 10)).toEqual(['0.3%', '0.4%']);
    expect(out.text + err.text).not.toContain(running.account.apiKey);
    expect(err.text).toContain("fees: the account's rates");
  });
});

describe('mizan book', () => {
  it('--once prints the top of the book equal to the exchange book', async () => {
    const out = capture();
    await program({ stdout: out, stderr: capture() }).parseAsync(['book', 'btctmn', '--url', url, '--once', '--depth', '3'], { from: 'user' });
    const lines = out.text.trimEnd().split('\n');
    const book = running.sim.book('BTCTMN', 3);
    expect(lines[0]).toMatch(/^BTCTMN {2}\d{4}-\d\d-\d\dT/);
    const bid = book.bids[0]!.price;
    const ask = book.asks[0]!.price;
    expect(lines[1]).toBe(
      `mid ${bid.plus(ask).div(2).toFixed()}   spread ${ask.minus(bid).toFixed()} (${ask.minus(bid).div(bid.plus(ask).div(2)).mul(10_000).toDecimalPlaces(2).toFixed()} bps)`,
    );
    expect(lines[2]).toMatch(/^healthy {3}bid side \d+ ms old, ask side \d+ ms old$/);
    expect(lines[4]).toMatch(/bid qty\s+bid │ ask\s+ask qty/);
    expect(lines.at(-1)).toBe('stream  ws (plain WebSocket /ws)');
    const rows = lines.slice(5, -1).map((l) => l.replace('│', ' ').trim().split(/\s+/));
    expect(rows).toHaveLength(3);
    rows.forEach((r, i) => {
      expect(r).toEqual([book.bids[i]!.quantity.toFixed(), book.bids[i]!.price.toFixed(), book.asks[i]!.price.toFixed(), book.asks[i]!.quantity.toFixed()]);
    });
  });

  it('prints a line per stream update when not on a terminal, and stops on the signal', async () => {
    const out = capture(false);
    const ac = new AbortController();
    const run = program({ stdout: out, stderr: capture(), signal: ac.signal }).parseAsync(['book', 'ETHUSDT', '--url', url], { from: 'user' });
    await out.waitFor(/ETHUSDT .*healthy\n/);
    const asks = running.sim.book('ETHUSDT').asks;
    const newBest = asks[0]!.price.minus('0.01');
    running.sim.replaceBookSide('ETHUSDT', 'ask', [{ price: newBest, quantity: new Decimal('1.2345') }, ...asks.slice(1, 10)]);
    const text = await out.waitFor(new RegExp(`ask ${newBest.toFixed().replace('.', '\\.')} x 1\\.2345 .*healthy\\n`));
    ac.abort();
    await run;
    const line = text.split('\n').find((l) => l.includes('x 1.2345'))!;
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z {2}ETHUSDT {2}bid [\d.]+ x [\d.]+ {2}ask /);
    expect(line).toContain(`mid ${running.sim.mid('ETHUSDT')!.toFixed()}`);
    // A line only when the top of the book or the health changed.
    const bodies = text
      .trimEnd()
      .split('\n')
      .map((l) => l.slice(l.indexOf(' ')));
    for (let i = 1; i < bodies.length; i++) expect(bodies[i]).not.toBe(bodies[i - 1]);
  });

  it('redraws in place on a terminal', async () => {
    const out = capture(true);
    const ac = new AbortController();
    const run = program({ stdout: out, stderr: capture(), signal: ac.signal }).parseAsync(['book', 'BTCUSDT', '--url', url, '--depth', '2'], { from: 'user' });
    await out.waitFor(/\x1b\[H.*healthy/s);
    ac.abort();
    await run;
    expect(out.text.startsWith('\x1b[2J\x1b[?25l')).toBe(true);
    expect(out.text.endsWith('\x1b[?25h\n')).toBe(true);
    const frames = out.text.split('\x1b[H').slice(1);
    const last = frames.filter((f) => f.includes('healthy')).at(-1)!;
    expect(last.split('\n').filter((l) => /│/.test(l))).toHaveLength(3); // header + 2 levels
  });

  it('names an unknown symbol and a bad option value', async () => {
    await expect(program({ stdout: capture(), stderr: capture() }).parseAsync(['book', 'NOPETMN', '--url', url, '--once'], { from: 'user' })).rejects.toThrow(
      /invalid <symbol>: "?NOPETMN"? \(a market of http:\/\/127\.0\.0\.1:\d+, e\.g\. /,
    );
    await expect(program({ stdout: capture(), stderr: capture() }).parseAsync(['book', 'BTCTMN', '--depth', '0'], { from: 'user' })).rejects.toThrow(
      /--depth.*"?0"?/,
    );
    await expect(program({ stdout: capture(), stderr: capture() }).parseAsync(['book', 'BTCTMN', '--protocol', '5'], { from: 'user' })).rejects.toThrow(
      /--protocol.*5/,
    );
  });
});
