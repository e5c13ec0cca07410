/**
 * Background checkpoints: a bot's journal turns SQLite's in-commit checkpoint off and a worker thread
 * with its own connection copies the WAL into the database, so no commit on the way to the exchange
 * pays a checkpoint's fsync. Real SQLite files in a temp dir.
 */
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { Journal } from '../../src/store/journal.js';
import { waitFor } from '../support/wait-for.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mizan-ckpt-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function writeOrders(j: Journal, n: number, from = 0): void {
  for (let i = from; i < from + n; i++) {
    j.recordOrder({
      clientId: `c_${i}`,
      strategy: 's',
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      venue: 'live',
      price: d('60000'),
      quantity: d('0.01'),
      status: 'pending',
      final: false,
      ts: i,
      detail: { pad: 'x'.repeat(200) },
    });
  }
}

const autoCheckpoint = (j: Journal): number => Number((j as unknown as { db: Database.Database }).db.pragma('wal_autocheckpoint', { simple: true }));

describe('journal background checkpoints', () => {
  it('moves checkpoints to a worker: none in commits, the WAL copied in the background, nothing lost at close', async () => {
    const file = join(dir, 'bot.sqlite');
    const j = Journal.open(file, { clock: new ManualClock(1), checkpoint: 'background', checkpointIntervalMs: 60_000 });
    expect(autoCheckpoint(j)).toBe(0);
    // Far past SQLite's 1,000-page automatic threshold: without the worker the WAL only grows.
    writeOrders(j, 3_000);
    const walBefore = statSync(`${file}-wal`).size;
    expect(walBefore).toBeGreaterThan(1_000 * 4096);
    await j.checkpointer!.checkpointNow();
    expect(j.checkpointer!.completed).toBe(1);
    expect(j.checkpointer!.last!.log).toBeGreaterThan(1_000);
    expect(j.checkpointer!.last!.checkpointed).toBe(j.checkpointer!.last!.log);
    // The database file itself now holds the rows: a reader that ignores the WAL sees them.
    const copy = new Database(file, { readonly: true });
    expect(copy.prepare('SELECT count(*) AS n FROM orders').get()).toEqual({ n: 3_000 });
    copy.close();
    // Writing goes on (the WAL restarts from its beginning instead of growing).
    writeOrders(j, 500, 3_000);
    expect(statSync(`${file}-wal`).size).toBeLessThanOrEqual(walBefore);
    j.close();
    expect(!existsSync(`${file}-wal`) || statSync(`${file}-wal`).size === 0).toBe(true);
    const again = Journal.open(file, { readonly: true });
    expect(again.order('c_3499')?.status).toBe('pending');
    expect(again.order('c_0')?.status).toBe('pending');
    again.close();
  });

  it('runs on its interval without being asked', async () => {
    const file = join(dir, 'timed.sqlite');
    const j = Journal.open(file, { clock: new ManualClock(1), checkpoint: 'background', checkpointIntervalMs: 20 });
    writeOrders(j, 50);
    await waitFor(() => j.checkpointer!.completed >= 2, {
      what: 'two checkpoints run on the 20 ms interval',
      timeout: 10_000,
      interval: 10,
      detail: () => `completed: ${j.checkpointer!.completed}`,
    });
    expect(j.checkpointer!.completed).toBeGreaterThanOrEqual(2);
    j.close();
  });

  it('is off by default, and for in-memory journals', () => {
    const plain = Journal.open(join(dir, 'cli.sqlite'), { clock: new ManualClock(1) });
    expect(plain.checkpointer).toBeUndefined();
    expect(autoCheckpoint(plain)).toBe(1000);
    plain.close();
    const mem = Journal.open(':memory:', { checkpoint: 'background' });
    expect(mem.checkpointer).toBeUndefined();
    mem.close();
  });

  it('refuses a bad interval by name', () => {
    expect(() => Journal.open(join(dir, 'bad.sqlite'), { checkpoint: 'background', checkpointIntervalMs: 0 })).toThrow(
      /checkpoint intervalMs must be positive, got 0/,
    );
  });
});
