/**
 * Shared pieces of the fault drills: a simulator on 127.0.0.1, a live bot (or a paper bot) running
 * the pinger fixture against it, waiting helpers, and the order-by-order comparison of the journal
 * with the simulator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../../src/config/index.js';
import type { MizanConfig } from '../../src/config/schema.js';
import { silentLogger, type Logger } from '../../src/core/logger.js';
import { startBot, type Bot } from '../../src/runtime/bot.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import type { FaultConfig } from '../../src/sim/faults.js';
import type { SimOrder } from '../../src/sim/order-types.js';
import { Journal } from '../../src/store/journal.js';
import type { OrderRow } from '../../src/store/types.js';
import { waitFor as waitForCondition } from '../support/wait-for.js';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(here, '../..');
export const PINGER = resolve(here, 'fixtures/pinger.ts');
export const DRILL_KEY = 'drillkey_0123456789abcdef0123456789abcdef';
export const KEY_ENV = 'MIZAN_DRILL_API_KEY';

export function tempDir(prefix = 'mizan-drill-'): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startDrillSim(opts: { seed?: number; speed?: number; faults?: FaultConfig } = {}): Promise<RunningSim> {
  return runSim({ port: 0, apiKey: DRILL_KEY, seed: opts.seed ?? 7, speed: opts.speed ?? 1, ...(opts.faults ? { faults: opts.faults } : {}) });
}

export interface PingerParams {
  everyMs?: number;
  maxOrders?: number;
  maxOpen?: number;
  fillEvery?: number;
  quantity?: number;
  restBps?: number;
  crossBps?: number;
}

/** The YAML of a live config pointed at a simulator's wire server, with the key from `${KEY_ENV}`. */
export function liveYaml(o: { url: string; journal: string; params?: PingerParams; timeoutMs?: number; name?: string }): string {
  return [
    'mode: live',
    'exchange:',
    '  simulator: false',
    `  baseUrl: ${o.url}`,
    `  apiKey: \${${KEY_ENV}}`,
    `  timeoutMs: ${o.timeoutMs ?? 1500}`,
    'strategies:',
    `  - name: ${o.name ?? 'ping'}`,
    `    strategy: ${PINGER}`,
    '    markets: [BTCUSDT]',
    '    resolution: "1"',
    `    params: ${JSON.stringify(o.params ?? {})}`,
    `journal: { file: ${o.journal} }`,
    'logging: { level: warn, pretty: false }',
    '',
  ].join('\n');
}

export function liveConfig(o: Parameters<typeof liveYaml>[0]): MizanConfig {
  return parseConfig(liveYaml(o), { env: { [KEY_ENV]: DRILL_KEY }, baseDir: REPO });
}

export async function startLiveBot(config: MizanConfig, opts: { pollMs?: number; logger?: Logger } = {}): Promise<Bot> {
  return startBot(config, {
    live: true,
    logger: opts.logger ?? silentLogger,
    intervals: { statusEveryMs: 0, pollMs: opts.pollMs ?? 200, syncMs: 1000, equityMs: 60_000 },
  });
}

/** A logger that keeps the messages of warn and above (for asserting that a fault path was taken). */
export function capturingLogger(): Logger & { messages: string[] } {
  const messages: string[] = [];
  const keep = (obj: object | string, msg?: string) => void messages.push(typeof obj === 'string' ? obj : (msg ?? ''));
  const noop = () => {};
  const logger: Logger & { messages: string[] } = { messages, trace: noop, debug: noop, info: noop, warn: keep, error: keep, fatal: keep, child: () => logger };
  return logger;
}

export async function waitFor(what: string, cond: () => boolean, timeoutMs: number, stepMs = 100): Promise<void> {
  await waitForCondition(cond, { what, timeout: timeoutMs, interval: stepMs });
}

/** Journal state of a simulator order: the tracker's name for it. */
function simState(o: SimOrder): string {
  if (o.active) return o.executedQty.gt(0) ? 'partially_filled' : 'open';
  if (o.origQty.gt(0) && o.executedQty.gte(o.origQty)) return 'filled';
  return 'cancelled';
}

export interface Agreement {
  /** Orders of the strategy's prefix on the simulator. */
  simOrders: SimOrder[];
  journalOrders: OrderRow[];
  /** Human-readable disagreements; empty when the two agree. */
  problems: string[];
}

/**
 * Compare, order by order, the journal file with the simulator's account: the same client ids
 * (none on one side only), the same executed quantity, the same final state, and one order per
 * client id on the simulator. Journal rows closed as rejected must not exist on the simulator.
 */
export function compareJournal(file: string, running: RunningSim, prefix: string): Agreement {
  const journal = Journal.open(file, { readonly: true });
  try {
    const rows = journal.orders({}).filter((r) => r.clientId.startsWith(`${prefix}_`));
    const sims = running.sim.orders(running.account.accountId).filter((o) => o.clientOrderId.startsWith(`${prefix}_`));
    const problems: string[] = [];
    const byId = new Map<string, SimOrder>();
    for (const o of sims) {
      if (byId.has(o.clientOrderId)) problems.push(`${o.clientOrderId}: twice on the simulator`);
      byId.set(o.clientOrderId, o);
    }
    const seen = new Set<string>();
    for (const r of rows) {
      seen.add(r.clientId);
      const o = byId.get(r.clientId);
      if (!o) {
        if (r.status !== 'rejected') problems.push(`${r.clientId}: journal says ${r.status} but the simulator has no such order`);
        continue;
      }
      if (!o.executedQty.eq(r.executedQty))
        problems.push(`${r.clientId}: executed ${r.executedQty.toFixed()} in the journal, ${o.executedQty.toFixed()} on the simulator`);
      if (r.status !== simState(o)) problems.push(`${r.clientId}: state ${r.status} in the journal, ${simState(o)} on the simulator`);
      if (r.final === o.active) problems.push(`${r.clientId}: final=${r.final} in the journal but active=${o.active} on the simulator`);
    }
    for (const o of sims)
      if (!seen.has(o.clientOrderId)) problems.push(`${o.clientOrderId}: on the simulator (${simState(o)}) but not in the journal (orphan)`);
    return { simOrders: sims, journalOrders: rows, problems };
  } finally {
    journal.close();
  }
}

/** Wait until the pinger placed `orders` orders and every one of them is final, then stop the bot. */
export async function finishPinger(bot: Bot, orders: number, timeoutMs: number): Promise<void> {
  try {
    await waitFor(`${orders} orders placed and final`, () => bot.engine.orders.size >= orders && bot.engine.liveOrders().length === 0, timeoutMs);
  } catch (err) {
    const states = [...bot.engine.orders.values()].map((o) => `${o.clientOrderId} ${o.state} ${o.filled.toFixed()}${o.reason ? ` (${o.reason})` : ''}`);
    await bot.stop();
    throw new Error(`${(err as Error).message}; orders: ${states.join('; ')}`);
  }
  await bot.stop();
}
