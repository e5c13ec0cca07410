/**
 * Reading the journal back: open orders (recovery), orders, fills, events, positions, equity, the
 * trading state and strategies' state. TEXT money columns come back as exact Decimals.
 */
import type Database from 'better-sqlite3';
import { toDecimal } from '../core/decimal.js';
import type { Decimal } from '../core/decimal.js';
import type { Side } from '../core/types/market.js';
import type {
  EquityRow,
  FillRow,
  IntentRow,
  OrderEventRow,
  OrderRow,
  PageFilter,
  PositionRow,
  QueryFilter,
  TradingStateName,
  TradingStateRecord,
} from './types.js';

interface OrderSql {
  client_id: string;
  strategy: string;
  symbol: string;
  side: Side;
  type: string;
  venue: string;
  account: string;
  price: string | null;
  quantity: string;
  executed_qty: string;
  status: string;
  final: number;
  created_ts: number;
  updated_ts: number;
  intent_id: number | null;
  tag: string | null;
  json: string | null;
}

interface FillSql {
  id: number;
  client_id: string;
  fill_key: string;
  strategy: string;
  symbol: string;
  side: Side;
  price: string;
  qty: string;
  fee: string;
  fee_asset: string;
  ts: number;
  tag: string | null;
}

const parse = (s: string | null): unknown => (s === null ? undefined : (JSON.parse(s) as unknown));

function orderRow(r: OrderSql): OrderRow {
  const row: OrderRow = {
    clientId: r.client_id,
    strategy: r.strategy,
    symbol: r.symbol,
    side: r.side,
    type: r.type,
    venue: r.venue,
    account: r.account,
    quantity: toDecimal(r.quantity, `orders[${r.client_id}].quantity`),
    executedQty: toDecimal(r.executed_qty, `orders[${r.client_id}].executed_qty`),
    status: r.status,
    final: r.final === 1,
    createdTs: r.created_ts,
    updatedTs: r.updated_ts,
  };
  if (r.price !== null) row.price = toDecimal(r.price, `orders[${r.client_id}].price`);
  if (r.intent_id !== null) row.intentId = r.intent_id;
  if (r.tag !== null) row.tag = r.tag;
  if (r.json !== null) row.detail = parse(r.json);
  return row;
}

function fillRow(r: FillSql): FillRow {
  const row: FillRow = {
    id: r.id,
    clientId: r.client_id,
    fillKey: r.fill_key,
    strategy: r.strategy,
    symbol: r.symbol,
    side: r.side,
    price: toDecimal(r.price, `fills[${r.id}].price`),
    quantity: toDecimal(r.qty, `fills[${r.id}].qty`),
    fee: toDecimal(r.fee, `fills[${r.id}].fee`),
    feeAsset: r.fee_asset,
    ts: r.ts,
  };
  if (r.tag !== null) row.tag = r.tag;
  return row;
}

/** WHERE clause for strategy / symbol / since / until on a table with the given time column. */
function where(f: QueryFilter, tsColumn: string): { sql: string; params: Record<string, string | number> } {
  const parts: string[] = [];
  const params: Record<string, string | number> = {};
  if (f.strategy !== undefined) {
    parts.push('strategy = @strategy');
    params.strategy = f.strategy;
  }
  if (f.symbol !== undefined) {
    parts.push('symbol = @symbol');
    params.symbol = f.symbol;
  }
  if (f.since !== undefined) {
    parts.push(`${tsColumn} >= @since`);
    params.since = f.since;
  }
  if (f.until !== undefined) {
    parts.push(`${tsColumn} < @until`);
    params.until = f.until;
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

export class JournalQueries {
  constructor(protected readonly db: Database.Database) {}

  /** Applied schema version. */
  schemaVersion(): number {
    return (this.db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  }

  /** SQLite's journal mode (`wal` for a file journal). */
  journalMode(): string {
    return String(this.db.pragma('journal_mode', { simple: true }));
  }

  /** Orders that are not final: what recovery must look up on the exchange by client id. */
  openOrders(): OrderRow[] {
    return (this.db.prepare('SELECT * FROM orders WHERE final = 0 ORDER BY created_ts, client_id').all() as OrderSql[]).map(orderRow);
  }

  order(clientId: string): OrderRow | undefined {
    const r = this.db.prepare('SELECT * FROM orders WHERE client_id = ?').get(clientId) as OrderSql | undefined;
    return r && orderRow(r);
  }

  orders(f: QueryFilter = {}): OrderRow[] {
    const w = where(f, 'created_ts');
    return (this.db.prepare(`SELECT * FROM orders ${w.sql} ORDER BY created_ts, client_id`).all(w.params) as OrderSql[]).map(orderRow);
  }

  /** A page of orders, newest first, and how many match in all. */
  ordersPage(f: PageFilter): { rows: OrderRow[]; total: number } {
    const w = where(f, 'created_ts');
    let sql = w.sql;
    if (f.status !== undefined) {
      sql = `${sql ? `${sql} AND` : 'WHERE'} status = @status`;
      w.params.status = f.status;
    }
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM orders ${sql}`).get(w.params) as { n: number }).n;
    const rows = this.db
      .prepare(`SELECT * FROM orders ${sql} ORDER BY created_ts DESC, client_id DESC LIMIT @limit OFFSET @offset`)
      .all({ ...w.params, limit: f.limit, offset: f.offset ?? 0 }) as OrderSql[];
    return { rows: rows.map(orderRow), total };
  }

  /** A page of fills, newest first (with `afterId`: oldest first, a tail), and how many match in all. */
  fillsPage(f: PageFilter): { rows: FillRow[]; total: number } {
    const w = where(f, 'ts');
    let sql = w.sql;
    if (f.afterId !== undefined) {
      sql = `${sql ? `${sql} AND` : 'WHERE'} id > @afterId`;
      w.params.afterId = f.afterId;
    }
    const total = (this.db.prepare(`SELECT COUNT(*) AS n FROM fills ${sql}`).get(w.params) as { n: number }).n;
    const order = f.afterId !== undefined ? 'id ASC' : 'ts DESC, id DESC';
    const rows = this.db
      .prepare(`SELECT * FROM fills ${sql} ORDER BY ${order} LIMIT @limit OFFSET @offset`)
      .all({ ...w.params, limit: f.limit, offset: f.offset ?? 0 }) as FillSql[];
    return { rows: rows.map(fillRow), total };
  }

  orderEvents(clientId: string): OrderEventRow[] {
    const rows = this.db.prepare('SELECT client_id, ts, state, detail FROM order_events WHERE client_id = ? ORDER BY id').all(clientId) as {
      client_id: string;
      ts: number;
      state: string;
      detail: string | null;
    }[];
    return rows.map((r) =>
      r.detail === null ? { clientId: r.client_id, ts: r.ts, state: r.state } : { clientId: r.client_id, ts: r.ts, state: r.state, detail: parse(r.detail) },
    );
  }

  fills(f: QueryFilter = {}): FillRow[] {
    const w = where(f, 'ts');
    return (this.db.prepare(`SELECT * FROM fills ${w.sql} ORDER BY ts, id`).all(w.params) as FillSql[]).map(fillRow);
  }

  intents(f: Omit<QueryFilter, 'symbol'> = {}): IntentRow[] {
    const w = where(f, 'i.ts');
    const sql = `SELECT i.id, i.ts, i.strategy, i.kind, i.json, v.ok, v.rule, v.reason, v.adjustments, v.ts AS vts
      FROM intents i LEFT JOIN verdicts v ON v.intent_id = i.id ${w.sql.replace('strategy =', 'i.strategy =')} ORDER BY i.id`;
    const rows = this.db.prepare(sql).all(w.params) as {
      id: number;
      ts: number;
      strategy: string;
      kind: string;
      json: string;
      ok: number | null;
      rule: string | null;
      reason: string | null;
      adjustments: string | null;
      vts: number | null;
    }[];
    return rows.map((r) => {
      const row: IntentRow = { id: r.id, ts: r.ts, strategy: r.strategy, kind: r.kind, intent: JSON.parse(r.json) as Record<string, unknown> };
      if (r.ok !== null) {
        row.verdict = { ok: r.ok === 1, adjustments: (parse(r.adjustments) as unknown[] | undefined) ?? [], ts: r.vts ?? r.ts };
        if (r.rule !== null) row.verdict.rule = r.rule;
        if (r.reason !== null) row.verdict.reason = r.reason;
      }
      return row;
    });
  }

  /** Margin positions; `open: true` keeps those whose state is `open`. */
  positions(opts: { open?: boolean } = {}): PositionRow[] {
    const sql = `SELECT * FROM positions ${opts.open ? "WHERE state = 'open'" : ''} ORDER BY id`;
    const rows = this.db.prepare(sql).all() as { id: number; strategy: string | null; market: string; state: string; updated_ts: number; json: string }[];
    return rows.map((r) => {
      const row: PositionRow = { id: r.id, market: r.market, state: r.state, updatedTs: r.updated_ts, position: JSON.parse(r.json) as Record<string, unknown> };
      if (r.strategy !== null) row.strategy = r.strategy;
      return row;
    });
  }

  equity(f: Pick<QueryFilter, 'since' | 'until'> = {}): EquityRow[] {
    const w = where(f, 'ts');
    const rows = this.db.prepare(`SELECT ts, asset, equity, balances FROM equity ${w.sql} ORDER BY ts, id`).all(w.params) as {
      ts: number;
      asset: string;
      equity: string;
      balances: string;
    }[];
    return rows.map((r) => {
      const balances: Record<string, Decimal> = {};
      for (const [k, v] of Object.entries(JSON.parse(r.balances) as Record<string, string>)) balances[k] = toDecimal(v, `equity.balances.${k}`);
      return { ts: r.ts, asset: r.asset, equity: toDecimal(r.equity, 'equity.equity'), balances };
    });
  }

  tradingState(): TradingStateRecord | undefined {
    const r = this.db.prepare('SELECT state, reason, since FROM trading_state WHERE id = 1').get() as
      { state: TradingStateName; reason: string | null; since: number } | undefined;
    if (!r) return undefined;
    return r.reason === null ? { state: r.state, since: r.since } : { state: r.state, reason: r.reason, since: r.since };
  }

  /** A strategy's stored value (as JSON gave it back), or undefined. */
  kvGet(strategy: string, key: string): unknown {
    const r = this.db.prepare('SELECT value FROM kv WHERE strategy = ? AND key = ?').get(strategy, key) as { value: string } | undefined;
    return r ? (JSON.parse(r.value) as unknown) : undefined;
  }

  /** All of a strategy's stored values. */
  kvAll(strategy: string): Record<string, unknown> {
    const rows = this.db.prepare('SELECT key, value FROM kv WHERE strategy = ? ORDER BY key').all(strategy) as { key: string; value: string }[];
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value) as unknown]));
  }
}
