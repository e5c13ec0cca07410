/**
 * Versioned schema migrations of the journal. Each runs once, in its own transaction, and is
 * recorded in `schema_migrations` (and PRAGMA user_version). Never edit a released migration:
 * append a new version. Money, prices and quantities are TEXT holding exact Decimal strings, never REAL.
 */
import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'journal tables',
    sql: `
CREATE TABLE intents (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  strategy TEXT NOT NULL,
  kind TEXT NOT NULL,
  json TEXT NOT NULL
);
CREATE INDEX intents_strategy_ts ON intents (strategy, ts);

CREATE TABLE verdicts (
  intent_id INTEGER PRIMARY KEY REFERENCES intents (id),
  ts INTEGER NOT NULL,
  ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
  rule TEXT,
  reason TEXT,
  adjustments TEXT NOT NULL DEFAULT '[]'
);

CREATE TABLE orders (
  client_id TEXT PRIMARY KEY,
  strategy TEXT NOT NULL,
  symbol TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('BUY', 'SELL')),
  type TEXT NOT NULL,
  venue TEXT NOT NULL,
  account TEXT NOT NULL DEFAULT 'main',
  price TEXT,
  quantity TEXT NOT NULL,
  executed_qty TEXT NOT NULL DEFAULT '0',
  status TEXT NOT NULL,
  final INTEGER NOT NULL DEFAULT 0 CHECK (final IN (0, 1)),
  created_ts INTEGER NOT NULL,
  updated_ts INTEGER NOT NULL,
  intent_id INTEGER REFERENCES intents (id),
  tag TEXT,
  json TEXT
);
CREATE INDEX orders_open ON orders (final) WHERE final = 0;
CREATE INDEX orders_strategy_created ON orders (strategy, created_ts);
CREATE INDEX orders_created ON orders (created_ts);

CREATE TABLE order_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  client_id TEXT NOT NULL REFERENCES orders (client_id),
  ts INTEGER NOT NULL,
  state TEXT NOT NULL,
  detail TEXT
);
CREATE INDEX order_events_client ON order_events (client_id, id);

CREATE TABLE fills (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  client_id TEXT NOT NULL,
  fill_key TEXT NOT NULL,
  strategy TEXT NOT NULL,
  symbol TEXT NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('BUY', 'SELL')),
  price TEXT NOT NULL,
  qty TEXT NOT NULL,
  fee TEXT NOT NULL,
  fee_asset TEXT NOT NULL,
  ts INTEGER NOT NULL,
  tag TEXT,
  UNIQUE (client_id, fill_key)
);
CREATE INDEX fills_strategy_ts ON fills (strategy, ts);
CREATE INDEX fills_ts ON fills (ts);

CREATE TABLE positions (
  id INTEGER PRIMARY KEY,
  strategy TEXT,
  market TEXT NOT NULL,
  state TEXT NOT NULL,
  updated_ts INTEGER NOT NULL,
  json TEXT NOT NULL
);

CREATE TABLE equity (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  asset TEXT NOT NULL,
  equity TEXT NOT NULL,
  balances TEXT NOT NULL
);
CREATE INDEX equity_ts ON equity (ts);

CREATE TABLE trading_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  state TEXT NOT NULL CHECK (state IN ('active', 'reducing', 'halted')),
  reason TEXT,
  since INTEGER NOT NULL
);

CREATE TABLE kv (
  strategy TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_ts INTEGER NOT NULL,
  PRIMARY KEY (strategy, key)
);
`,
  },
];

/** Thrown when the file was written by a newer mizan: opening it could corrupt it. */
export class JournalVersionError extends Error {
  constructor(
    readonly fileVersion: number,
    readonly knownVersion: number,
  ) {
    super(`journal schema version ${fileVersion} is newer than this mizan knows (${knownVersion}); upgrade mizan or use another journal file`);
    this.name = 'JournalVersionError';
  }
}

export function currentVersion(db: Database.Database): number {
  const row = db.prepare('SELECT MAX(version) AS v FROM schema_migrations').get() as { v: number | null };
  return row.v ?? 0;
}

/**
 * Apply the migrations the file has not seen, in version order, each in a transaction (all or
 * nothing). Returns the versions applied (empty when up to date).
 */
export function migrate(db: Database.Database, migrations: readonly Migration[], now: number): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_ts INTEGER NOT NULL)');
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  sorted.forEach((m, i) => {
    if (!Number.isInteger(m.version) || m.version !== i + 1) {
      throw new RangeError(`migrations must be numbered 1, 2, 3, ... without gaps; found version ${m.version} at position ${i + 1}`);
    }
  });
  const known = sorted.length;
  const have = currentVersion(db);
  if (have > known) throw new JournalVersionError(have, known);
  const applied: number[] = [];
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_ts) VALUES (?, ?, ?)');
  for (const m of sorted) {
    if (m.version <= have) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, now);
      db.pragma(`user_version = ${m.version}`);
    })();
    applied.push(m.version);
  }
  return applied;
}
