import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { Journal, computePnl, journalSplit, parseSince, recordInstruments, registerJournalCommand } from '../../src/store/index.js';
import type { FillRecord } from '../../src/store/index.js';
import { Portfolio } from '../../src/portfolio/portfolio.js';
import { recordFreshAccount } from '../../src/store/fresh-accounts.js';

let dir: string;
let file: string;
const DAY = 86_400_000;
const T0 = Date.UTC(2024, 0, 10);

const f = (over: Partial<FillRecord> & Pick<FillRecord, 'clientId' | 'side' | 'price' | 'quantity' | 'fee' | 'feeAsset' | 'ts'>): FillRecord => ({
  strategy: 'sma',
  symbol: 'BTCUSDT',
  ...over,
});

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mizan-pnl-'));
  file = join(dir, 'journal.sqlite');
  const j = Journal.open(file);
  j.transaction(() => {
    j.recordOrder({
      clientId: 'sma_1',
      strategy: 'sma',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      venue: 'sim',
      price: d('100'),
      quantity: d('1'),
      executedQty: d('1'),
      status: 'filled',
      final: true,
      ts: T0,
    });
    j.recordOrder({
      clientId: 'sma_2',
      strategy: 'sma',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      venue: 'sim',
      price: d('200'),
      quantity: d('1'),
      status: 'filled',
      final: true,
      ts: T0 + 1 * DAY,
    });
    j.recordOrder({
      clientId: 'sma_3',
      strategy: 'sma',
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'MARKET',
      venue: 'sim',
      quantity: d('1.999'),
      status: 'filled',
      final: true,
      ts: T0 + 2 * DAY,
    });
    j.recordOrder({
      clientId: 'rsi_1',
      strategy: 'rsi',
      symbol: 'ETHTMN',
      side: 'SELL',
      type: 'LIMIT',
      venue: 'sim',
      price: d('1200000'),
      quantity: d('1'),
      status: 'open',
      final: false,
      ts: T0 + 3 * DAY,
    });
  });
  // As `mizan run` records them from the market catalog.
  recordInstruments(j, [
    ['BTCUSDT', { base: 'BTC', quote: 'USDT' }],
    ['ETHTMN', { base: 'ETH', quote: 'TMN' }],
  ]);
  j.recordFills([
    f({ clientId: 'sma_1', side: 'BUY', price: d('100'), quantity: d('1'), fee: d('0.001'), feeAsset: 'BTC', ts: T0 }),
    f({ clientId: 'sma_2', side: 'BUY', price: d('200'), quantity: d('1'), fee: d('0.2'), feeAsset: 'USDT', ts: T0 + 1 * DAY }),
    f({ clientId: 'sma_3', side: 'SELL', price: d('300'), quantity: d('1.999'), fee: d('0.5997'), feeAsset: 'USDT', ts: T0 + 2 * DAY }),
    f({
      clientId: 'rsi_0',
      strategy: 'rsi',
      symbol: 'ETHTMN',
      side: 'BUY',
      price: d('1000000'),
      quantity: d('2'),
      fee: d('0'),
      feeAsset: 'TMN',
      ts: T0 + 1 * DAY,
    }),
    f({
      clientId: 'rsi_0b',
      strategy: 'rsi',
      symbol: 'ETHTMN',
      side: 'SELL',
      price: d('1100000'),
      quantity: d('1'),
      fee: d('100'),
      feeAsset: 'TMN',
      ts: T0 + 3 * DAY,
    }),
  ]);
  j.close();
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('PnL from the journal', () => {
  it('realises average-cost PnL per strategy and market, fees included, in exact Decimal', () => {
    const j = Journal.open(file);
    const rows = computePnl(j, { marks: { ETHTMN: d('1050000') } });
    j.close();
    expect(rows.map((r) => [r.strategy, r.symbol, r.fills, r.position.toFixed(), r.realized.toFixed(), r.fees.toFixed()])).toEqual([
      ['rsi', 'ETHTMN', 2, '1', '99900', '100'],
      // cost 100 (1 BTC, 0.001 BTC fee) + 200.2; sold 1.999 at 300 less 0.5997: 599.7 - 300.2 - 0.5997
      ['sma', 'BTCUSDT', 3, '0', '298.9003', '0.8997'],
    ]);
    expect(rows[0]?.avgPrice.toFixed()).toBe('1000000');
    expect(rows[0]?.unrealized?.toFixed()).toBe('50000');
    expect(rows[1]?.unrealized).toBeUndefined();
  });

  it('with since, earlier fills still set the cost basis but their PnL is not counted', () => {
    const j = Journal.open(file);
    const rows = computePnl(j, { since: T0 + 2 * DAY + 1 });
    expect(rows.map((r) => [r.strategy, r.fills, r.realized.toFixed()])).toEqual([['rsi', 1, '99900']]);
    expect(computePnl(j, { strategy: 'sma', since: T0 + 2 * DAY }).map((r) => r.realized.toFixed())).toEqual(['298.9003']);
    j.close();
  });

  it("splits symbols with the journal's recorded instruments, never by a suffix", () => {
    const j = Journal.open(join(dir, 'split.sqlite'));
    // SHIBIRT: SHI/BIRT on one suffix list, SHIB/IRT on another; the catalog's word is the only one.
    recordInstruments(j, [['SHIBIRT', { base: 'SHIB', quote: 'IRT' }]]);
    const split = journalSplit(j);
    expect(split('SHIBIRT')).toEqual({ base: 'SHIB', quote: 'IRT' });
    expect(() => split('BTCUSDT')).toThrow(/does not record the base and quote of BTCUSDT[\s\S]*--market BTCUSDT=BASE\/QUOTE/);
    expect(journalSplit(j, new Map([['BTCUSDT', { base: 'BTC', quote: 'USDT' }]]))('BTCUSDT')).toEqual({ base: 'BTC', quote: 'USDT' });
    j.close();
  });
});

describe('PnL from the journal, as the run booked it', () => {
  it('applies the dust rule with the minimum the run recorded: the same position and realised PnL as the portfolio', () => {
    // Before: the journal booked without the dust rule; the bot's summary and `mizan journal pnl`
    // disagreed on the position (the fee dust) and on the realised PnL (an audit: -7.8180 vs -7.8179).
    const fills: FillRecord[] = [
      f({ clientId: 'd_1', side: 'BUY', price: d('100'), quantity: d('1'), fee: d('0.001'), feeAsset: 'BTC', ts: T0 }),
      f({ clientId: 'd_2', side: 'SELL', price: d('110'), quantity: d('0.99'), fee: d('0.1089'), feeAsset: 'USDT', ts: T0 + 1 }),
      f({ clientId: 'd_3', side: 'BUY', price: d('120'), quantity: d('0.5'), fee: d('0.0005'), feeAsset: 'BTC', ts: T0 + 2 }),
      f({ clientId: 'd_4', side: 'SELL', price: d('90'), quantity: d('0.5'), fee: d('0.045'), feeAsset: 'USDT', ts: T0 + 3 }),
    ];
    const j = Journal.open(join(dir, 'dust.sqlite'));
    recordInstruments(j, [['BTCUSDT', { base: 'BTC', quote: 'USDT', minSellable: d('0.01') }]]);
    j.recordFills(fills);
    const rows = computePnl(j);
    j.close();
    const portfolio = new Portfolio({ split: () => ({ base: 'BTC', quote: 'USDT' }), price: () => undefined, reference: 'USDT', minSellable: () => d('0.01') });
    let realized = d('0');
    for (const x of fills) {
      realized = realized.plus(
        portfolio.applyFill({
          clientOrderId: x.clientId,
          strategy: x.strategy,
          symbol: x.symbol,
          side: x.side,
          price: x.price,
          quantity: x.quantity,
          fee: x.fee,
          feeAsset: x.feeAsset,
          timestamp: x.ts,
        }),
      );
    }
    const p = portfolio.positions.get('sma', 'BTCUSDT')!;
    expect(rows.map((r) => [r.position.toFixed(), r.realized.toFixed()])).toEqual([[p.quantity.toFixed(), realized.toFixed()]]);
  });
});

describe('PnL from the journal of several paper runs', () => {
  it("ends every position at a fresh account's start: the last run's positions, every run's realised PnL", () => {
    const j = Journal.open(join(dir, 'runs.sqlite'));
    recordInstruments(j, [['BTCUSDT', { base: 'BTC', quote: 'USDT' }]]);
    // Run 1 buys 2 and sells 1 (realised +10), ending with 1 BTC; run 2 buys 1 at 200 on its fresh account.
    recordFreshAccount(j, T0);
    j.recordFills([
      f({ clientId: 'r1_1', side: 'BUY', price: d('100'), quantity: d('2'), fee: d('0'), feeAsset: 'USDT', ts: T0 + 1 }),
      f({ clientId: 'r1_2', side: 'SELL', price: d('110'), quantity: d('1'), fee: d('0'), feeAsset: 'USDT', ts: T0 + 2 }),
    ]);
    recordFreshAccount(j, T0 + DAY);
    j.recordFills([f({ clientId: 'r2_1', side: 'BUY', price: d('200'), quantity: d('1'), fee: d('0.5'), feeAsset: 'USDT', ts: T0 + DAY + 1 })]);
    const row = (o: Parameters<typeof computePnl>[1] = {}) => {
      const [r] = computePnl(j, o);
      return [r!.fills, r!.position.toFixed(), r!.avgPrice.toFixed(), r!.realized.toFixed(), r!.fees.toFixed()];
    };
    // Before: one book over both runs, position 2 at an average of 150.
    expect(row()).toEqual([3, '1', '200.5', '10', '0.5']);
    // Up to the second run's start: the first run's account.
    expect(row({ until: T0 + DAY })).toEqual([2, '1', '100', '10', '0']);
    // A fresh account started after the last fill holds nothing.
    recordFreshAccount(j, T0 + 2 * DAY);
    expect(row()).toEqual([3, '0', '0', '10', '0.5']);
    expect(row({ until: T0 + 2 * DAY })).toEqual([3, '1', '200.5', '10', '0.5']);
    j.close();
  });
});

describe('mizan journal', () => {
  const run = async (...args: string[]) => {
    let text = '';
    const program = new Command('mizan').exitOverride();
    registerJournalCommand(program, { out: (t) => void (text += t), clock: new ManualClock(T0 + 4 * DAY) });
    await program.parseAsync(['journal', ...args], { from: 'user' });
    return text;
  };

  it('orders prints a table, filtered by strategy, since and --open', async () => {
    const all = await run('orders', '--file', file);
    const lines = all.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^created \(UTC\)\s+client id\s+strategy\s+symbol\s+side\s+type\s+price\s+stop\s+quantity\s+executed\s+status\s+venue$/);
    expect(lines[2]).toMatch(/^2024-01-10 00:00:00\s+sma_1\s+sma\s+BTCUSDT\s+BUY\s+LIMIT\s+100\s+-\s+1\s+1\s+filled\s+sim$/);
    expect(lines[4]).toMatch(/sma_3 .* MARKET\s+-\s+-\s+1\.999\s+0\s+filled/);
    expect(lines.at(-1)).toBe('4 orders');
    expect(await run('orders', '--file', file, '--strategy', 'rsi')).toMatch(/rsi_1[\s\S]*1 orders\n$/);
    expect(await run('orders', '--file', file, '--open')).toMatch(/rsi_1 .*1200000\s+-\s+1\s+0\s+open[\s\S]*^1 orders$/m);
    expect(await run('orders', '--file', file, '--since', '2d')).toMatch(/sma_3[\s\S]*rsi_1[\s\S]*2 orders\n$/);
    expect(await run('orders', '--file', file, '--strategy', 'nobody')).toBe('no orders\n');
  });

  it("orders shows a stop order's trigger price", async () => {
    // Before: a STOP_MARKET order showed no price at all, its trigger was not in the table.
    const stops = join(dir, 'stops.sqlite');
    const j = Journal.open(stops);
    j.recordOrder({
      clientId: 'brk_1',
      strategy: 'brk',
      symbol: 'BTCUSDT',
      side: 'SELL',
      type: 'STOP_MARKET',
      venue: 'sim',
      quantity: d('0.5'),
      status: 'open',
      final: false,
      ts: T0,
      detail: { stopPrice: '59000' },
    });
    j.close();
    const lines = (await run('orders', '--file', stops)).trimEnd().split('\n');
    expect(lines[2]).toMatch(/brk_1\s+brk\s+BTCUSDT\s+SELL\s+STOP_MARKET\s+-\s+59000\s+0\.5\s+0\s+open\s+sim$/);
  });

  it('fills prints price, quantity, value and fee', async () => {
    const out = await run('fills', '--file', file, '--strategy', 'sma', '--since', '2024-01-11');
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^time \(UTC\)\s+client id\s+strategy\s+symbol\s+side\s+price\s+quantity\s+value\s+fee$/);
    expect(lines[2]).toMatch(/^2024-01-11 00:00:00\s+sma_2\s+sma\s+BTCUSDT\s+BUY\s+200\s+1\s+200\s+0\.2 USDT$/);
    expect(lines[3]).toMatch(/sma_3\s+sma\s+BTCUSDT\s+SELL\s+300\s+1\.999\s+599\.7\s+0\.5997 USDT$/);
    expect(lines.at(-1)).toBe('2 fills');
  });

  it('pnl prints realised PnL per strategy and market, and totals per quote asset', async () => {
    const out = await run('pnl', '--file', file);
    expect(out).toMatch(/^strategy\s+symbol\s+fills\s+position\s+avg price\s+fees\s+realized$/m);
    expect(out).toMatch(/^rsi\s+ETHTMN\s+2\s+1\s+1000000\s+100 TMN\s+99900 TMN$/m);
    expect(out).toMatch(/^sma\s+BTCUSDT\s+3\s+0\s+-\s+0\.8997 USDT\s+298\.9003 USDT$/m);
    expect(out).toMatch(/^total realized TMN: 99900$/m);
    expect(out).toMatch(/^total realized USDT: 298\.9003$/m);
    expect(await run('pnl', '--file', file, '--strategy', 'sma', '--since', '1h')).toBe('no fills\n');
  });

  it('reads a journal that a running bot holds open and is writing (WAL)', async () => {
    const live = join(dir, 'live.sqlite');
    const writer = Journal.open(live);
    try {
      writer.recordOrder({
        clientId: 'w_1',
        strategy: 'w',
        symbol: 'BTCTMN',
        side: 'BUY',
        type: 'LIMIT',
        venue: 'wallex',
        price: d('3500000000'),
        quantity: d('0.0001'),
        status: 'open',
        final: false,
        ts: T0,
      });
      expect(await run('orders', '--file', live, '--open')).toMatch(/w_1 .*3500000000\s+-\s+0\.0001\s+0\s+open\s+wallex[\s\S]*1 orders\n$/);
      writer.updateOrder('w_1', { status: 'filled', final: true, executedQty: d('0.0001'), ts: T0 + 1 });
      expect(await run('orders', '--file', live, '--open')).toBe('no orders\n');
    } finally {
      writer.close();
    }
  });

  it('a missing file or a bad --since is an error that says what to do', async () => {
    await expect(run('orders', '--file', join(dir, 'none.sqlite'))).rejects.toThrow(
      /--file: journal ".*none\.sqlite" does not exist \(use --file <path> .*, or --config <file>/,
    );
    await expect(run('fills', '--file', file, '--since', 'yesterday')).rejects.toThrow(/--since: "yesterday" is not a time/);
  });

  it('parseSince understands dates, ISO times and spans', () => {
    expect(parseSince('2024-01-31', 0)).toBe(Date.UTC(2024, 0, 31));
    expect(parseSince('2024-01-31T10:00:00+03:30', 0)).toBe(Date.UTC(2024, 0, 31, 6, 30));
    expect(parseSince('90m', 10 * 3_600_000)).toBe(8.5 * 3_600_000);
    expect(parseSince('2w', 30 * DAY)).toBe(16 * DAY);
  });
});
