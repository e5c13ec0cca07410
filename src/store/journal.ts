/**
 * The journal: one SQLite file (better-sqlite3, WAL, synchronous=NORMAL, foreign keys on) that
 * records intents and verdicts, orders and their events, fills (each once), margin positions,
 * equity, the trading state and strategies' persistent state. Recovery reads it back at start.
 * Writes use prepared statements; multi-row writes run in one transaction.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../core/clock.js';
import { SystemClock } from '../core/clock.js';
import type { Intent, Verdict } from '../core/intents.js';
import type { Logger } from '../core/logger.js';
import { silentLogger } from '../core/logger.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { Decimal } from '../core/decimal.js';
import { MIGRATIONS, currentVersion, migrate } from './migrations.js';
import type { Migration } from './migrations.js';
import { scrub } from '../core/scrub.js';
import { Checkpointer } from './checkpointer.js';
import { JournalQueries } from './queries.js';
import type { FillRecord, OrderRecord, OrderUpdate, TradingStateRecord } from './types.js';
import { MAIN_ACCOUNT } from '../core/account.js';

export interface JournalDeps {
  clock?: Clock;
  logger?: Logger;
  /** Override for tests; default: MIGRATIONS. */
  migrations?: readonly Migration[];
  readonly?: boolean;
  /**
   * 'background' (a long-running bot's journal): WAL checkpoints in a worker thread, off the thread
   * that journals orders before sending them (see checkpointer.ts). Default 'auto': SQLite's own.
   */
  checkpoint?: 'auto' | 'background';
  /** Background checkpoint interval, ms (default 1,000). */
  checkpointIntervalMs?: number;
  /**
   * Values never written to the file (the API key, the stream key, the API tokens: see
   * runtime/secrets.ts): every free text written (reasons, details, intents, state) has them
   * replaced by `[REDACTED]`.
   */
  secrets?: readonly string[];
}

const json = (v: unknown): string => JSON.stringify(v ?? null);
const money = (d: Decimal | undefined): string | null => (d === undefined ? null : d.toFixed());

function defaultFillKey(f: FillRecord): string {
  return `${f.ts}:${f.price.toFixed()}:${f.quantity.toFixed()}`;
}

function prepare(db: Database.Database) {
  return {
    intent: db.prepare('INSERT INTO intents (ts, strategy, kind, json) VALUES (?, ?, ?, ?)'),
    verdict: db.prepare(
      'INSERT INTO verdicts (intent_id, ts, ok, rule, reason, adjustments) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (intent_id) DO UPDATE SET ts = excluded.ts, ok = excluded.ok, rule = excluded.rule, reason = excluded.reason, adjustments = excluded.adjustments',
    ),
    orderInsert:
      db.prepare(`INSERT INTO orders (client_id, strategy, symbol, side, type, venue, account, price, quantity, executed_qty, status, final, created_ts, updated_ts, intent_id, tag, json)
      VALUES (@clientId, @strategy, @symbol, @side, @type, @venue, @account, @price, @quantity, @executedQty, @status, @final, @ts, @ts, @intentId, @tag, @detail)`),
    orderUpdate: db.prepare(
      'UPDATE orders SET status = @status, final = @final, executed_qty = COALESCE(@executedQty, executed_qty), updated_ts = @ts, json = COALESCE(@detail, json) WHERE client_id = @clientId AND final = 0',
    ),
    event: db.prepare('INSERT INTO order_events (client_id, ts, state, detail) VALUES (?, ?, ?, ?)'),
    fill: db.prepare(`INSERT INTO fills (client_id, fill_key, strategy, symbol, side, price, qty, fee, fee_asset, ts, tag)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (client_id, fill_key) DO NOTHING`),
    position: db.prepare(
      'INSERT INTO positions (id, strategy, market, state, updated_ts, json) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET strategy = COALESCE(excluded.strategy, strategy), market = excluded.market, state = excluded.state, updated_ts = excluded.updated_ts, json = excluded.json',
    ),
    equity: db.prepare('INSERT INTO equity (ts, asset, equity, balances) VALUES (?, ?, ?, ?)'),
    state: db.prepare(
      'INSERT INTO trading_state (id, state, reason, since) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET state = excluded.state, reason = excluded.reason, since = excluded.since',
    ),
    kvSet: db.prepare(
      'INSERT INTO kv (strategy, key, value, updated_ts) VALUES (?, ?, ?, ?) ON CONFLICT (strategy, key) DO UPDATE SET value = excluded.value, updated_ts = excluded.updated_ts',
    ),
    kvDelete: db.prepare('DELETE FROM kv WHERE strategy = ? AND key = ?'),
  };
}

export class Journal extends JournalQueries {
  private readonly clock: Clock;
  private readonly st: ReturnType<typeof prepare>;
  /** Free text as it is written: the secrets removed. */
  private readonly text: <T extends string | null>(t: T) => T;
  /** Set for journals opened with checkpoint: 'background'. */
  readonly checkpointer: Checkpointer | undefined;

  private constructor(
    db: Database.Database,
    readonly file: string,
    deps: JournalDeps,
  ) {
    super(db);
    this.clock = deps.clock ?? new SystemClock();
    this.st = prepare(db);
    const secrets = deps.secrets ?? [];
    this.text = <T extends string | null>(t: T): T => (t === null || secrets.length === 0 ? t : (scrub(t, secrets) as T));
    if (deps.checkpoint === 'background' && file !== ':memory:' && !deps.readonly) {
      db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new Checkpointer(file, {
        logger: deps.logger ?? silentLogger,
        ...(deps.checkpointIntervalMs !== undefined ? { intervalMs: deps.checkpointIntervalMs } : {}),
      });
    }
  }

  /**
   * Open (creating the file and its directories) and migrate. `:memory:` gives a throw-away journal
   * (backtests that do not keep one).
   */
  static open(file: string, deps: JournalDeps = {}): Journal {
    const logger = deps.logger ?? silentLogger;
    const interval = deps.checkpointIntervalMs;
    if (interval !== undefined && !(Number.isFinite(interval) && interval > 0)) throw new RangeError(`checkpoint intervalMs must be positive, got ${interval}`);
    if (file !== ':memory:' && !deps.readonly) mkdirSync(dirname(file), { recursive: true });
    let db: Database.Database;
    try {
      db = new Database(file, { readonly: deps.readonly === true, fileMustExist: deps.readonly === true });
    } catch (err) {
      throw journalError(file, err);
    }
    try {
      if (!deps.readonly) db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('foreign_keys = ON');
      db.pragma('busy_timeout = 5000');
      if (deps.readonly) {
        const known = (deps.migrations ?? MIGRATIONS).length;
        const have = currentVersion(db);
        if (have > known) throw new Error(`journal schema version ${have} is newer than this mizan knows (${known})`);
      } else {
        const applied = migrate(db, deps.migrations ?? MIGRATIONS, (deps.clock ?? new SystemClock()).now());
        if (applied.length > 0) logger.info({ file, applied }, 'journal migrated');
      }
    } catch (err) {
      db.close();
      throw journalError(file, err);
    }
    return new Journal(db, file, deps);
  }

  close(): void {
    this.checkpointer?.stop();
    if (this.db.open) {
      // With background checkpoints SQLite's own were off: copy what is left before closing.
      if (this.checkpointer && !this.db.readonly) this.db.pragma('wal_checkpoint(TRUNCATE)');
      this.db.close();
    }
  }

  /** Run several writes as one transaction (all or nothing, and much faster than one each). */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // ------------------------------------------------------------------------------------ intents

  recordIntent(intent: Intent, ts = this.clock.now()): number {
    // String(): a malformed intent (denied by the shape rule) is journaled too, kind and all.
    return Number(this.st.intent.run(ts, String(intent.strategy), String(intent.kind), this.text(json(intent))).lastInsertRowid);
  }

  recordVerdict(intentId: number, verdict: Verdict, ts = this.clock.now()): void {
    if (verdict.ok) this.st.verdict.run(intentId, ts, 1, null, null, this.text(json(verdict.adjustments)));
    else this.st.verdict.run(intentId, ts, 0, this.text(verdict.rule), this.text(verdict.reason), '[]');
  }

  /** The intent and the risk module's verdict on it, in one transaction. Returns the intent id. */
  recordDecision(verdict: Verdict, ts = this.clock.now()): number {
    return this.transaction(() => {
      const id = this.recordIntent(verdict.intent, ts);
      this.recordVerdict(id, verdict, ts);
      return id;
    });
  }

  // ------------------------------------------------------------------------------------- orders

  /** A new order (before it is sent): stored with a first event. Throws if the client id exists. */
  recordOrder(o: OrderRecord): void {
    this.transaction(() => {
      this.st.orderInsert.run({
        clientId: o.clientId,
        strategy: o.strategy,
        symbol: o.symbol,
        side: o.side,
        type: o.type,
        venue: o.venue,
        account: o.account ?? MAIN_ACCOUNT,
        price: money(o.price),
        quantity: o.quantity.toFixed(),
        executedQty: (o.executedQty ?? o.quantity.minus(o.quantity)).toFixed(),
        status: o.status,
        final: o.final ? 1 : 0,
        ts: o.ts,
        intentId: o.intentId ?? null,
        tag: this.text(o.tag ?? null),
        detail: o.detail === undefined ? null : this.text(json(o.detail)),
      });
      const event = o.eventDetail ?? o.detail;
      this.st.event.run(o.clientId, o.ts, o.status, event === undefined ? null : this.text(json(event)));
    });
  }

  /**
   * A change of an order's state, with an event. Final orders never change: returns false when the
   * order is unknown or already final (the update is then not stored).
   */
  updateOrder(clientId: string, u: OrderUpdate): boolean {
    return this.transaction(() => {
      const detail = u.detail === undefined ? null : this.text(json(u.detail));
      const changed = this.st.orderUpdate.run({
        clientId,
        status: u.status,
        final: u.final ? 1 : 0,
        executedQty: money(u.executedQty),
        ts: u.ts,
        detail,
      }).changes;
      if (changed === 0) return false;
      this.st.event.run(clientId, u.ts, u.status, detail);
      return true;
    });
  }

  /** An event that does not change the order's state (a retry, a lookup after a timeout). */
  recordOrderEvent(clientId: string, state: string, detail?: unknown, ts = this.clock.now()): void {
    this.st.event.run(clientId, ts, this.text(state), detail === undefined ? null : this.text(json(detail)));
  }

  // -------------------------------------------------------------------------------------- fills

  /** Store a fill once: returns false when (clientId, fillKey) was already stored. */
  recordFill(f: FillRecord): boolean {
    const r = this.st.fill.run(
      f.clientId,
      f.fillKey ?? defaultFillKey(f),
      f.strategy,
      f.symbol,
      f.side,
      f.price.toFixed(),
      f.quantity.toFixed(),
      f.fee.toFixed(),
      f.feeAsset,
      f.ts,
      this.text(f.tag ?? null),
    );
    return r.changes > 0;
  }

  /** Several fills in one transaction; returns how many were new. */
  recordFills(fills: readonly FillRecord[]): number {
    return this.transaction(() => fills.reduce((n, f) => n + (this.recordFill(f) ? 1 : 0), 0));
  }

  // --------------------------------------------------------------- positions, equity, state, kv

  /** A margin position's row (its owning strategy; `account`: the account it is on, kept in the row's JSON). */
  upsertPosition(p: MarginPosition, strategy?: string, ts = this.clock.now(), account?: string): void {
    this.st.position.run(p.id, strategy ?? null, p.market, p.state, ts, this.text(json(account === undefined ? p : { ...p, account })));
  }

  /** The highest margin position id the journal holds (0: none). */
  maxPositionId(): number {
    const r = this.db.prepare('SELECT MAX(id) AS m FROM positions').get() as { m: number | null };
    return r.m ?? 0;
  }

  recordEquity(asset: string, equity: Decimal, balances: Readonly<Record<string, Decimal>>, ts = this.clock.now()): void {
    const b: Record<string, string> = {};
    for (const [k, v] of Object.entries(balances)) b[k] = v.toFixed();
    this.st.equity.run(ts, asset, equity.toFixed(), json(b));
  }

  setTradingState(s: TradingStateRecord): void {
    this.st.state.run(s.state, this.text(s.reason ?? null), s.since);
  }

  /** Store a strategy's value (anything JSON can hold; Decimals become strings). */
  kvSet(strategy: string, key: string, value: unknown, ts = this.clock.now()): void {
    if (value === undefined) throw new TypeError(`kv ${strategy}/${key}: undefined cannot be stored (use kvDelete)`);
    this.st.kvSet.run(strategy, key, this.text(json(value)), ts);
  }

  kvDelete(strategy: string, key: string): boolean {
    return this.st.kvDelete.run(strategy, key).changes > 0;
  }
}

/** An error opening a journal names the file (SQLite's own message does not), and says what a corrupt one means. */
function journalError(file: string, err: unknown): Error {
  const code = (err as { code?: unknown }).code;
  const msg = err instanceof Error ? err.message : String(err);
  const hint =
    code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT'
      ? ': the file is not a mizan journal or is damaged (move it away to start a new journal; its orders are then unknown to the bot)'
      : '';
  // The same error (its class and code stay), its message naming the file.
  if (err instanceof Error) {
    err.message = `journal ${file}: ${msg}${hint}`;
    return err;
  }
  return new Error(`journal ${file}: ${msg}${hint}`);
}
