import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import type { Verdict } from '../../src/core/intents.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import { Journal, JournalVersionError, MIGRATIONS } from '../../src/store/index.js';
import type { FillRecord, OrderRecord } from '../../src/store/index.js';

let dir: string;
let file: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mizan-journal-'));
  file = join(dir, 'nested', 'deeper', 'journal.sqlite');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const order = (over: Partial<OrderRecord> = {}): OrderRecord => ({
  clientId: 'sma_1',
  strategy: 'sma',
  symbol: 'BTCUSDT',
  side: 'BUY',
  type: 'LIMIT',
  venue: 'sim',
  price: d('0.00000001'),
  quantity: d('123456789012.12345678'),
  status: 'pending',
  final: false,
  ts: 1000,
  ...over,
});

const fill = (over: Partial<FillRecord> = {}): FillRecord => ({
  clientId: 'sma_1',
  strategy: 'sma',
  symbol: 'BTCUSDT',
  side: 'BUY',
  price: d('30000'),
  quantity: d('0.5'),
  fee: d('0.001'),
  feeAsset: 'BTC',
  ts: 2000,
  ...over,
});

describe('Journal: file, pragmas, migrations', () => {
  it('creates directories, runs in WAL mode with foreign keys, and records the schema version', () => {
    const j = Journal.open(file, { clock: new ManualClock(5) });
    expect(existsSync(file)).toBe(true);
    expect(j.journalMode()).toBe('wal');
    expect(j.schemaVersion()).toBe(MIGRATIONS.length);
    j.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(raw.prepare('SELECT version, name, applied_ts FROM schema_migrations').all()).toEqual([{ version: 1, name: 'journal tables', applied_ts: 5 }]);
    raw.close();
  });

  it('migrations are idempotent and versioned: reopening applies only new versions, newer files are refused', () => {
    Journal.open(file).close();
    Journal.open(file).close(); // no error: version 1 is not applied twice
    const v2 = { version: 2, name: 'add notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);' };
    const j = Journal.open(file, { migrations: [...MIGRATIONS, v2] });
    expect(j.schemaVersion()).toBe(2);
    j.close();
    const raw = new Database(file);
    expect(raw.prepare('SELECT version FROM schema_migrations ORDER BY version').all()).toEqual([{ version: 1 }, { version: 2 }]);
    raw.close();
    expect(() => Journal.open(file)).toThrow(JournalVersionError);
    expect(() => Journal.open(file)).toThrow(/schema version 2 is newer than this mizan knows \(1\)/);
  });

  it('a failing migration leaves nothing behind (one transaction per version)', () => {
    Journal.open(file).close();
    const bad = { version: 2, name: 'broken', sql: 'CREATE TABLE half (id INTEGER); INSERT INTO no_such_table VALUES (1);' };
    expect(() => Journal.open(file, { migrations: [...MIGRATIONS, bad] })).toThrow(/no such table/);
    const raw = new Database(file);
    expect(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").all()).toEqual([]);
    expect(raw.prepare('SELECT MAX(version) AS v FROM schema_migrations').get()).toEqual({ v: 1 });
    raw.close();
  });

  it('refuses migrations with gaps in their numbers', () => {
    expect(() => Journal.open(file, { migrations: [{ ...MIGRATIONS[0]!, version: 2 }] })).toThrow(/numbered 1, 2, 3/);
  });
});

describe('Journal: records survive reopening', () => {
  it('money round-trips exactly as TEXT', () => {
    const j = Journal.open(file);
    j.recordOrder(order());
    j.recordFill(fill({ price: d('123456789012.12345678'), quantity: d('0.00000001'), fee: d('0') }));
    j.close();
    const k = Journal.open(file);
    const o = k.order('sma_1');
    expect(o?.price?.toFixed()).toBe('0.00000001');
    expect(o?.quantity.toFixed()).toBe('123456789012.12345678');
    const [f] = k.fills();
    expect(f?.price.toFixed()).toBe('123456789012.12345678');
    expect(f?.quantity.toFixed()).toBe('0.00000001');
    k.close();
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare('SELECT typeof(price) AS t, price FROM orders').get()).toEqual({ t: 'text', price: '0.00000001' });
    raw.close();
  });

  it('orders: state changes with events, open orders for recovery, final orders never change', () => {
    const j = Journal.open(file);
    j.recordOrder(order());
    j.recordOrder(order({ clientId: 'sma_2', ts: 1100, symbol: 'ETHUSDT' }));
    j.recordOrder(order({ clientId: 'rsi_1', strategy: 'rsi', ts: 1200, side: 'SELL', type: 'MARKET', price: undefined }));
    expect(() => j.recordOrder(order())).toThrow(/UNIQUE/);
    expect(j.updateOrder('sma_1', { status: 'open', final: false, ts: 1500, detail: { exchangeStatus: 'NEW' } })).toBe(true);
    expect(j.updateOrder('sma_1', { status: 'filled', final: true, executedQty: d('123456789012.12345678'), ts: 1600 })).toBe(true);
    expect(j.updateOrder('sma_1', { status: 'canceled', final: true, ts: 1700 })).toBe(false);
    expect(j.updateOrder('nope', { status: 'open', final: false, ts: 1700 })).toBe(false);
    j.recordOrderEvent('sma_2', 'lookup', { after: 'timeout' }, 1800);
    j.close();

    const k = Journal.open(file);
    expect(k.openOrders().map((o) => o.clientId)).toEqual(['sma_2', 'rsi_1']);
    const filled = k.order('sma_1');
    expect(filled).toMatchObject({ status: 'filled', final: true, createdTs: 1000, updatedTs: 1600, detail: { exchangeStatus: 'NEW' } });
    expect(filled?.executedQty.toFixed()).toBe('123456789012.12345678');
    expect(k.orderEvents('sma_1').map((e) => e.state)).toEqual(['pending', 'open', 'filled']);
    expect(k.orderEvents('sma_2')).toEqual([
      { clientId: 'sma_2', ts: 1100, state: 'pending' },
      { clientId: 'sma_2', ts: 1800, state: 'lookup', detail: { after: 'timeout' } },
    ]);
    expect(k.orders({ strategy: 'sma' }).map((o) => o.clientId)).toEqual(['sma_1', 'sma_2']);
    expect(k.orders({ since: 1100 }).map((o) => o.clientId)).toEqual(['sma_2', 'rsi_1']);
    expect(k.order('rsi_1')?.price).toBeUndefined();
    k.close();
  });

  it('fills are deduplicated on (client id, fill key), also across reopen', () => {
    const j = Journal.open(file);
    expect(j.recordFill(fill())).toBe(true);
    expect(j.recordFill(fill())).toBe(false); // same default key: ts, price, quantity
    expect(j.recordFill(fill({ fillKey: 'trade-7' }))).toBe(true);
    expect(j.recordFills([fill({ fillKey: 'trade-7' }), fill({ fillKey: 'trade-8', ts: 3000 }), fill({ clientId: 'sma_2', fillKey: 'trade-7' })])).toBe(2);
    j.close();
    const k = Journal.open(file);
    expect(k.recordFill(fill({ fillKey: 'trade-8', ts: 3000 }))).toBe(false);
    expect(k.fills().map((f) => `${f.clientId}/${f.fillKey}`)).toEqual(['sma_1/2000:30000:0.5', 'sma_1/trade-7', 'sma_2/trade-7', 'sma_1/trade-8']);
    expect(k.fills({ since: 2500 })).toHaveLength(1);
    expect(k.fills({ strategy: 'other' })).toHaveLength(0);
    k.close();
  });

  it('pages of orders and fills: newest first, filtered, counted, and a fill tail by id (the API)', () => {
    const j = Journal.open(file);
    for (let i = 1; i <= 5; i++) j.recordOrder(order({ clientId: `sma_${i}`, ts: 1000 + i, symbol: i % 2 ? 'BTCUSDT' : 'ETHUSDT' }));
    j.updateOrder('sma_2', { status: 'open', final: false, ts: 1500 });
    j.updateOrder('sma_4', { status: 'open', final: false, ts: 1500 });
    const p = j.ordersPage({ limit: 2, offset: 1 });
    expect(p.total).toBe(5);
    expect(p.rows.map((o) => o.clientId)).toEqual(['sma_4', 'sma_3']);
    expect(j.ordersPage({ status: 'open', symbol: 'ETHUSDT', limit: 10 }).rows.map((o) => o.clientId)).toEqual(['sma_4', 'sma_2']);
    expect(j.ordersPage({ status: 'open', since: 1003, limit: 10 }).total).toBe(1);
    for (let i = 1; i <= 4; i++) j.recordFill(fill({ fillKey: `t${i}`, ts: 2000 + i, strategy: i === 3 ? 'rsi' : 'sma' }));
    const f = j.fillsPage({ limit: 2 });
    expect(f.total).toBe(4);
    expect(f.rows.map((x) => x.fillKey)).toEqual(['t4', 't3']);
    expect(j.fillsPage({ strategy: 'sma', limit: 10 }).total).toBe(3);
    const tail = j.fillsPage({ afterId: f.rows[1]!.id - 2, limit: 10 });
    expect(tail.rows.map((x) => x.fillKey)).toEqual(['t2', 't3', 't4']);
    j.close();
  });

  it('intents with verdicts, positions, equity', () => {
    const clock = new ManualClock(10_000);
    const j = Journal.open(file, { clock });
    const pass: Verdict = {
      ok: true,
      intent: {
        kind: 'order',
        strategy: 'sma',
        symbol: 'BTCUSDT',
        side: 'BUY',
        type: 'LIMIT',
        size: { kind: 'base', quantity: d('0.00000001') },
        price: d('30000.5'),
      },
      adjustments: [{ rule: 'precision', field: 'price', from: '30000.55', to: '30000.5', why: 'tick' }],
    };
    const deny: Verdict = { ok: false, intent: { kind: 'cancelAll', strategy: 'rsi', symbol: 'ETHUSDT' }, rule: 'halted', reason: 'trading halted' };
    const a = j.recordDecision(pass);
    clock.advance(5);
    const b = j.recordDecision(deny);
    const pos = { id: 42, market: 'BTCUSDT', side: 'long', state: 'open', riskCoef: d('2'), collateral: { value: d('100.5') } } as unknown as MarginPosition;
    j.upsertPosition(pos, 'sma');
    j.upsertPosition({ ...pos, state: 'closed' });
    j.recordEquity('USDT', d('10000.00000001'), { USDT: d('9000'), BTC: d('0.03333333') }, 20_000);
    j.close();

    const k = Journal.open(file);
    const rows = k.intents();
    expect(rows.map((r) => [r.id, r.kind, r.strategy, r.ts])).toEqual([
      [a, 'order', 'sma', 10_000],
      [b, 'cancelAll', 'rsi', 10_005],
    ]);
    expect(rows[0]?.intent).toMatchObject({ price: '30000.5', size: { kind: 'base', quantity: '0.00000001' } });
    expect(rows[0]?.verdict).toEqual({ ok: true, adjustments: pass.adjustments, ts: 10_000 });
    expect(rows[1]?.verdict).toEqual({ ok: false, rule: 'halted', reason: 'trading halted', adjustments: [], ts: 10_005 });
    expect(k.intents({ strategy: 'rsi' })).toHaveLength(1);
    expect(k.positions()).toMatchObject([{ id: 42, strategy: 'sma', state: 'closed', position: { collateral: { value: '100.5' } } }]);
    expect(k.positions({ open: true })).toEqual([]);
    const [e] = k.equity({ since: 15_000 });
    expect(e?.equity.toFixed()).toBe('10000.00000001');
    expect(e?.balances.BTC?.toFixed()).toBe('0.03333333');
    k.close();
  });

  it("trading state and strategies' kv survive reopening", () => {
    const j = Journal.open(file, { clock: new ManualClock(7) });
    expect(j.tradingState()).toBeUndefined();
    j.setTradingState({ state: 'reducing', reason: 'daily loss 3%', since: 100 });
    j.setTradingState({ state: 'halted', reason: 'drawdown 10%', since: 200 });
    j.kvSet('sma', 'lastCross', { at: 123, price: d('30000.1') });
    j.kvSet('sma', 'count', 3);
    j.kvSet('sma', 'count', 4);
    j.kvSet('rsi', 'count', 1);
    expect(() => j.kvSet('sma', 'x', undefined)).toThrow(/kvDelete/);
    j.kvSet('sma', 'gone', true);
    expect(j.kvDelete('sma', 'gone')).toBe(true);
    j.close();

    const k = Journal.open(file);
    expect(k.tradingState()).toEqual({ state: 'halted', reason: 'drawdown 10%', since: 200 });
    expect(k.kvGet('sma', 'lastCross')).toEqual({ at: 123, price: '30000.1' });
    expect(k.kvGet('sma', 'count')).toBe(4);
    expect(k.kvGet('sma', 'gone')).toBeUndefined();
    expect(k.kvAll('sma')).toEqual({ count: 4, lastCross: { at: 123, price: '30000.1' } });
    expect(k.kvAll('rsi')).toEqual({ count: 1 });
    k.setTradingState({ state: 'active', since: 300 });
    expect(k.tradingState()).toEqual({ state: 'active', since: 300 });
    k.close();
  });
});
