/**
 * What mizan keeps in Redis besides BullMQ's own queue (`mizan:trials:*`):
 * - `mizan:data:<sha256>`: a sweep's candles (wire.ts packColumns), written once by the coordinator;
 * - `mizan:sweep:<id>:spec`: what every trial of sweep <id> needs besides its parameters (config,
 *   data hash, code hashes);
 * - `mizan:sweep:<id>:results`: a hash, trial key (a sweep's trial number) -> its row (JSON), written once (HSETNX);
 * - `mizan:sweep:<id>:done`: a stream with one entry per trial at its first result, which the
 *   coordinator reads in order (a trial done twice, by two workers, is recorded and counted once).
 * These keys expire KEEP_SECONDS after the sweep last started (a rerun refreshes them).
 */
import type { Redis } from 'ioredis';
import type { TrialRequest } from '../backtest/sweep-trial.js';
import type { CodeId, StrategyCode } from './wire.js';

export const PREFIX = 'mizan';
export const QUEUE_NAME = 'trials';
export const KEEP_SECONDS = 7 * 24 * 3600;

export const dataKey = (hash: string) => `${PREFIX}:data:${hash}`;
export const specKey = (sweep: string) => `${PREFIX}:sweep:${sweep}:spec`;
export const resultsKey = (sweep: string) => `${PREFIX}:sweep:${sweep}:results`;
export const doneKey = (sweep: string) => `${PREFIX}:sweep:${sweep}:done`;
/** A trial's job id: the sweep and the trial's key (BullMQ refuses `:` in ids). */
export const jobId = (sweep: string, key: string) => `${sweep}-${key}`;

export interface SweepSpec {
  v: 1;
  /** The config (wire.ts configToWire). */
  config: string;
  /** `fees: account` rates the coordinator read, as strings. */
  accountFees?: Record<string, { maker: string; taker: string }>;
  /** SHA-256 of the packed candles (`mizan:data:<hash>`). */
  data: string;
  dataBytes: number;
  mizan: CodeId;
  strategies: StrategyCode[];
}

/** What a job carries: the sweep (or study), the trial's key in it (a sweep's trial number), and the trial. */
export interface TrialJob {
  sweep: string;
  key: string;
  req: TrialRequest;
}

/** A trial's row as stored. */
export interface StoredRow {
  metrics: Record<string, number | null>;
  error?: string;
  equity?: { times: number[]; values: number[] };
  /** How long the trial took on its worker (ms). */
  ms?: number;
  /** The trial failed on the queue (refused by a worker, or failing every attempt), not in the backtest: a rerun runs it again. */
  failed?: boolean;
}

const RECORD = `
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('XADD', KEYS[2], '*', 'k', ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
  return 1
end
return 0`;

/**
 * Records a trial's row unless one is there already; true when this call recorded it. Atomic (one
 * script), so a trial run twice (a stalled worker that comes back) is recorded and announced once.
 */
export async function recordRow(redis: Redis, sweep: string, key: string, row: StoredRow): Promise<boolean> {
  const r = await redis.eval(RECORD, 2, resultsKey(sweep), doneKey(sweep), key, JSON.stringify(row), String(KEEP_SECONDS));
  return r === 1;
}
