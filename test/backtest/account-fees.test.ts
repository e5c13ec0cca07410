/**
 * `backtest.fees: account`: `mizan backtest` reads the account's own maker and taker rates from the
 * exchange (here the simulator on 127.0.0.1, GET /v1/account/fee) before the run and charges them.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerBacktestCommands } from '../../src/cli/backtest.js';
import { Decimal } from '../../src/core/decimal.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { REPO } from './helpers.js';

const KEY_VAR = 'MIZAN_TEST_ACCOUNT_FEES_KEY';
let sim: RunningSim;

beforeAll(async () => {
  sim = await runSim({ port: 0, replay: false, desks: false });
  sim.sim.setAccountFees(sim.account.accountId, 'BTCUSDT', { makerFee: new Decimal('0.0007'), takerFee: new Decimal('0.0011') });
});
afterAll(async () => {
  delete process.env[KEY_VAR];
  await sim.stop();
});

function configFile(withKey: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'mizan-bt-fees-'));
  const file = join(dir, 'bt.yaml');
  writeFileSync(
    file,
    `mode: backtest
exchange: { baseUrl: ${JSON.stringify(sim.server.url)}${withKey ? `, apiKey: "\${${KEY_VAR}}"` : ''} }
strategies:
  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: "300s", params: { fast: 10, slow: 30, fraction: 0.5 } }
backtest:
  data: [ { symbol: BTCUSDT, file: ${JSON.stringify(resolve(REPO, 'backtest/data/BTCUSDT-5m-freqtrade-2023.csv.gz'))} } ]
  from: 2023-01-03
  to: 2023-01-10
  balances: { USDT: 10000 }
  fees: account
journal: { file: ":memory:" }
`,
  );
  return file;
}

function backtest(file: string, out: string): Promise<string> {
  return cli(['backtest', file, '--out', out]);
}

/** Runs a CLI command of the backtest family; what it printed (stdout and stderr). */
async function cli(args: string[]): Promise<string> {
  const program = new Command().exitOverride();
  registerBacktestCommands(program);
  let printed = '';
  const write = process.stdout.write.bind(process.stdout);
  const errWrite = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((printed += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((printed += s), true)) as typeof process.stderr.write;
  try {
    await program.parseAsync(['node', 'mizan', ...args]);
  } finally {
    process.stdout.write = write;
    process.stderr.write = errWrite;
  }
  return printed;
}

interface Result {
  run: { fillModel: { fees: unknown } };
  orders: { side: string; type: string; state: string; filled: string; avgPrice: string | null; fee: string; feeAsset: string | null }[];
}

describe('backtest fees from the account', () => {
  it("charges the account's own rates, read from GET /v1/account/fee before the run", async () => {
    process.env[KEY_VAR] = sim.account.apiKey;
    const out = mkdtempSync(join(tmpdir(), 'mizan-bt-fees-out-'));
    const printed = await backtest(configFile(true), out);
    const text = readFileSync(join(out, 'result.json'), 'utf8');
    const r = JSON.parse(text) as Result;
    expect(r.run.fillModel.fees).toEqual({ account: { BTCUSDT: { maker: '0.0007', taker: '0.0011' } } });
    const filled = r.orders.filter((o) => o.state === 'filled' && o.type === 'MARKET');
    expect(filled.length).toBeGreaterThan(2);
    for (const o of filled) {
      // Taker rate on every market order: a buy pays it in BTC on the quantity, a sell in USDT on the value.
      const expected = o.side === 'BUY' ? new Decimal(o.filled).mul('0.0011') : new Decimal(o.filled).mul(o.avgPrice!).mul('0.0011');
      expect(new Decimal(o.fee).minus(expected).abs().lte('0.00000001')).toBe(true);
    }
    // The key reaches only the x-api-key header: never the output or the result.
    expect(printed).not.toContain(sim.account.apiKey);
    expect(text).not.toContain(sim.account.apiKey);
  }, 60_000);

  it('sweeps with the same rates: the workers get what the parent read', async () => {
    process.env[KEY_VAR] = sim.account.apiKey;
    const file = configFile(true);
    const out = mkdtempSync(join(tmpdir(), 'mizan-bt-fees-out-'));
    await backtest(file, out);
    const single = JSON.parse(readFileSync(join(out, 'result.json'), 'utf8')) as { metrics: { feesPaid: { value: number } } };
    const csv = join(out, 'sweep.csv');
    const printed = await cli(['sweep', file, '--param', 'fast=10', '--workers', '1', '--out', csv]);
    const [header, row] = readFileSync(csv, 'utf8').trimEnd().split('\n') as [string, string];
    const cells = Object.fromEntries(header.split(',').map((k, i) => [k, row.split(',')[i]]));
    expect(cells.error).toBe('');
    expect(Number(cells.feesPaid)).toBe(single.metrics.feesPaid.value);
    expect(printed).not.toContain(sim.account.apiKey);
  }, 60_000);

  it('stops before the run, naming exchange.apiKey, when there is no key', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mizan-bt-fees-out-'));
    await expect(backtest(configFile(false), out)).rejects.toThrow(/backtest\.fees: account .*needs exchange\.apiKey/);
  });
});
