/**
 * Pieces of the end-to-end tests: a simulator on 127.0.0.1 whose BTCUSDT market the test moves by
 * hand (no replay), a live config pointed at it, and `node bin/mizan.js run <config> --live` as a
 * child process that can be killed with SIGKILL and started again on the same journal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { d } from '../../src/core/decimal.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import type { SimOrder } from '../../src/sim/order-types.js';
import { DRILL_KEY, KEY_ENV, REPO } from '../scenario/helpers.js';

export { DRILL_KEY, REPO };
export { tempDir, waitFor } from '../scenario/helpers.js';

export interface Child {
  proc: ChildProcess;
  out(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `mizan run <config> --live` with the drill key in its environment. */
export function startMizan(config: string): Child {
  const proc = spawn(process.execPath, ['bin/mizan.js', 'run', config, '--live'], {
    cwd: REPO,
    env: { ...process.env, [KEY_ENV]: DRILL_KEY, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  proc.stdout!.on('data', (b: Buffer) => (text += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (text += b.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => proc.on('exit', (code, signal) => r({ code, signal })));
  return { proc, out: () => text, exited };
}

export async function kill9(c: Child): Promise<void> {
  c.proc.kill('SIGKILL');
  await c.exited;
}

/** A simulator without replay: the test sets the BTCUSDT market with `price()`, refreshed every 300 ms. */
export async function handSim(
  start = '62550',
): Promise<{ running: RunningSim; price(p: string): void; stop(): Promise<void>; orders(): SimOrder[]; open(): SimOrder[] }> {
  const running = await runSim({ port: 0, apiKey: DRILL_KEY, seed: 7, replay: false });
  let px = start;
  const set = () => {
    const p = d(px);
    running.sim.replaceBook(
      'BTCUSDT',
      [{ price: p.mul('0.9999').toDecimalPlaces(2), quantity: d('5') }],
      [{ price: p.mul('1.0001').toDecimalPlaces(2), quantity: d('5') }],
    );
    running.sim.recordTrade({ symbol: 'BTCUSDT', price: p, quantity: d('0.0001'), isBuyOrder: true, timestamp: Date.now() });
  };
  set();
  const timer = setInterval(set, 300);
  const acc = running.account.accountId;
  return {
    running,
    price: (p) => {
      px = p;
      set();
    },
    orders: () => running.sim.orders(acc),
    open: () => running.sim.openOrders(acc),
    stop: async () => {
      clearInterval(timer);
      await running.stop();
    },
  };
}

/** The YAML of a live config with one strategy on BTCUSDT (and any `more` beside it), pointed at a simulator's wire server. */
export function liveYaml(o: {
  url: string;
  journal: string;
  strategy: string;
  params: Record<string, unknown>;
  name?: string;
  resolution?: string;
  more?: { name: string; strategy: string; params?: Record<string, unknown> }[];
  /** The config's `risk` section. */
  risk?: Record<string, unknown>;
}): string {
  return [
    'mode: live',
    'exchange:',
    '  simulator: false',
    `  baseUrl: ${o.url}`,
    `  apiKey: \${${KEY_ENV}}`,
    '  timeoutMs: 2000',
    'strategies:',
    `  - name: ${o.name ?? 'e2e'}`,
    `    strategy: ${o.strategy}`,
    '    markets: [BTCUSDT]',
    `    resolution: "${o.resolution ?? '1'}"`,
    `    params: ${JSON.stringify(o.params)}`,
    ...(o.more ?? []).map(
      (m) => `  - { name: ${m.name}, strategy: ${m.strategy}, markets: [BTCUSDT], resolution: "1", params: ${JSON.stringify(m.params ?? {})} }`,
    ),
    ...(o.risk ? [`risk: ${JSON.stringify(o.risk)}`] : []),
    `journal: { file: ${o.journal} }`,
    'logging: { level: info, pretty: false }',
    '',
  ].join('\n');
}
