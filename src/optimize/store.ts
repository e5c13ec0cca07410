/**
 * Studies in SQLite (better-sqlite3; default file .mizan/studies.sqlite, `--storage` to choose).
 *
 *   studies: name, config file and hash, param space, sampler, seed, objective, direction,
 *            constraints, range, the code of each strategy it runs (strategy_code: JSON of
 *            StrategyCode[]; null in a study stored before it was recorded), the pid of the process
 *            running it (or null)
 *   trials:  study, number, params, state (running | complete | infeasible | failed), value,
 *            metrics, reason, started/finished times
 *
 * Every state change is written at once (synchronous=FULL), so a trial is never lost to a kill.
 * A trial still `running` when its process died is run again (same number, same params) when the
 * study resumes; it is counted once, when it finishes.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { MetricKey } from '../backtest/metrics/index.js';
import type { StrategyCode } from '../queue/wire.js';
import type { Constraints, Direction, TrialState } from './objectives.js';
import type { Params } from './space.js';

export interface StudyRecord {
  id: number;
  name: string;
  configFile: string;
  configHash: string;
  /** The canonical JSON of the search space (spaceKey). */
  space: string;
  sampler: string;
  seed: number;
  objective: string;
  direction: Direction;
  constraints: Constraints;
  rangeFrom: number;
  rangeTo: number;
  /** Each strategy instance's code (the queue's identity: SHA-256 of its file); null: stored before it was recorded. */
  strategyCode: StrategyCode[] | null;
  createdAt: number;
  ownerPid: number | null;
}

export interface TrialRecord {
  number: number;
  params: Params;
  state: TrialState;
  value: number | null;
  metrics: Partial<Record<MetricKey, number | null>>;
  reason: string | null;
  startedAt: number;
  finishedAt: number | null;
}

interface StudyRow {
  id: number;
  name: string;
  config_file: string;
  config_hash: string;
  space: string;
  sampler: string;
  seed: number;
  objective: string;
  direction: string;
  constraints: string;
  range_from: number;
  range_to: number;
  strategy_code: string | null;
  created_at: number;
  owner_pid: number | null;
}
interface TrialRow {
  number: number;
  params: string;
  state: string;
  value: number | null;
  metrics: string;
  reason: string | null;
  started_at: number;
  finished_at: number | null;
}

const toStudy = (r: StudyRow): StudyRecord => ({
  id: r.id,
  name: r.name,
  configFile: r.config_file,
  configHash: r.config_hash,
  space: r.space,
  sampler: r.sampler,
  seed: r.seed,
  objective: r.objective,
  direction: r.direction as Direction,
  constraints: JSON.parse(r.constraints) as Constraints,
  rangeFrom: r.range_from,
  rangeTo: r.range_to,
  strategyCode: r.strategy_code === null ? null : (JSON.parse(r.strategy_code) as StrategyCode[]),
  createdAt: r.created_at,
  ownerPid: r.owner_pid,
});
const toTrial = (r: TrialRow): TrialRecord => ({
  number: r.number,
  params: JSON.parse(r.params) as Params,
  state: r.state as TrialState,
  value: r.value,
  metrics: JSON.parse(r.metrics) as TrialRecord['metrics'],
  reason: r.reason,
  startedAt: r.started_at,
  finishedAt: r.finished_at,
});

export class StudyStore {
  private readonly db: Database.Database;

  constructor(readonly file: string) {
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS studies (
        id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, config_file TEXT NOT NULL, config_hash TEXT NOT NULL,
        space TEXT NOT NULL, sampler TEXT NOT NULL, seed INTEGER NOT NULL, objective TEXT NOT NULL, direction TEXT NOT NULL,
        constraints TEXT NOT NULL, range_from INTEGER NOT NULL, range_to INTEGER NOT NULL, created_at INTEGER NOT NULL, owner_pid INTEGER,
        strategy_code TEXT
      );
      CREATE TABLE IF NOT EXISTS trials (
        study_id INTEGER NOT NULL REFERENCES studies(id), number INTEGER NOT NULL, params TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('running', 'complete', 'infeasible', 'failed')), value REAL, metrics TEXT NOT NULL,
        reason TEXT, started_at INTEGER NOT NULL, finished_at INTEGER, PRIMARY KEY (study_id, number)
      );
      CREATE TABLE IF NOT EXISTS walk_forward (
        study_name TEXT PRIMARY KEY, result TEXT NOT NULL, updated_at INTEGER NOT NULL
      );
    `);
    // A file from before strategy_code: the column is added, null in its studies (resumed unchecked once, see openStudy).
    const columns = this.db.prepare('PRAGMA table_info(studies)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'strategy_code')) {
      try {
        this.db.exec('ALTER TABLE studies ADD COLUMN strategy_code TEXT');
      } catch (err) {
        // Another process opening the same file added it first.
        if (!/duplicate column name/.test((err as Error).message)) throw err;
      }
    }
  }

  close(): void {
    this.db.close();
  }

  study(name: string): StudyRecord | undefined {
    const r = this.db.prepare('SELECT * FROM studies WHERE name = ?').get(name) as StudyRow | undefined;
    return r && toStudy(r);
  }

  studies(): StudyRecord[] {
    return (this.db.prepare('SELECT * FROM studies ORDER BY created_at, id').all() as StudyRow[]).map(toStudy);
  }

  createStudy(s: Omit<StudyRecord, 'id' | 'ownerPid'>): StudyRecord {
    this.db
      .prepare(
        `INSERT INTO studies (name, config_file, config_hash, space, sampler, seed, objective, direction, constraints, range_from, range_to, strategy_code, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        s.name,
        s.configFile,
        s.configHash,
        s.space,
        s.sampler,
        s.seed,
        s.objective,
        s.direction,
        JSON.stringify(s.constraints),
        s.rangeFrom,
        s.rangeTo,
        s.strategyCode === null ? null : JSON.stringify(s.strategyCode),
        s.createdAt,
      );
    return this.study(s.name)!;
  }

  /** Records the strategy code of a study stored without it (see openStudy). */
  setStrategyCode(studyId: number, code: readonly StrategyCode[]): void {
    this.db.prepare('UPDATE studies SET strategy_code = ? WHERE id = ?').run(JSON.stringify(code), studyId);
  }

  /**
   * Marks the study as run by `pid`; refuses while another live process holds it. A holder that
   * died (killed) no longer counts.
   */
  claim(studyId: number, pid: number): void {
    const tx = this.db.transaction(() => {
      const r = this.db.prepare('SELECT name, owner_pid FROM studies WHERE id = ?').get(studyId) as { name: string; owner_pid: number | null };
      if (r.owner_pid !== null && r.owner_pid !== pid && processAlive(r.owner_pid)) {
        throw new Error(`study ${r.name} is being run by process ${r.owner_pid}: stop it first (or wait for it to finish)`);
      }
      this.db.prepare('UPDATE studies SET owner_pid = ? WHERE id = ?').run(pid, studyId);
    });
    tx();
  }

  release(studyId: number, pid: number): void {
    this.db.prepare('UPDATE studies SET owner_pid = NULL WHERE id = ? AND owner_pid = ?').run(studyId, pid);
  }

  trials(studyId: number): TrialRecord[] {
    return (this.db.prepare('SELECT * FROM trials WHERE study_id = ? ORDER BY number').all(studyId) as TrialRow[]).map(toTrial);
  }

  nextNumber(studyId: number): number {
    const r = this.db.prepare('SELECT MAX(number) AS n FROM trials WHERE study_id = ?').get(studyId) as { n: number | null };
    return r.n === null ? 0 : r.n + 1;
  }

  addTrial(studyId: number, number: number, params: Params, now: number): void {
    this.db
      .prepare("INSERT INTO trials (study_id, number, params, state, metrics, started_at) VALUES (?, ?, ?, 'running', '{}', ?)")
      .run(studyId, number, JSON.stringify(params), now);
  }

  /** A trial left `running` by a dead process starts again (same number and params). */
  restartTrial(studyId: number, number: number, now: number): void {
    this.db.prepare("UPDATE trials SET started_at = ?, finished_at = NULL WHERE study_id = ? AND number = ? AND state = 'running'").run(now, studyId, number);
  }

  finishTrial(
    studyId: number,
    number: number,
    r: { state: Exclude<TrialState, 'running'>; value: number | null; metrics: TrialRecord['metrics']; reason?: string },
    now: number,
  ): void {
    const res = this.db
      .prepare("UPDATE trials SET state = ?, value = ?, metrics = ?, reason = ?, finished_at = ? WHERE study_id = ? AND number = ? AND state = 'running'")
      .run(r.state, r.value, JSON.stringify(r.metrics), r.reason ?? null, now, studyId, number);
    if (res.changes !== 1) throw new Error(`trial ${number} of study ${studyId} is not running (finished twice?)`);
  }

  saveWalkForward(studyName: string, result: unknown, now: number): void {
    this.db
      .prepare(
        'INSERT INTO walk_forward (study_name, result, updated_at) VALUES (?, ?, ?) ON CONFLICT(study_name) DO UPDATE SET result = excluded.result, updated_at = excluded.updated_at',
      )
      .run(studyName, JSON.stringify(result), now);
  }

  walkForward(studyName: string): unknown {
    const r = this.db.prepare('SELECT result FROM walk_forward WHERE study_name = ?').get(studyName) as { result: string } | undefined;
    return r ? (JSON.parse(r.result) as unknown) : undefined;
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
