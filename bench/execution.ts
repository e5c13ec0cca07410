/**
 * Benchmark of the execution path (issue #8 item 8), on loopback against the simulator's wire server:
 *
 * 1. Latency: time from `ExecutionEngine.submitOrder` (an intent the risk module passed) to the
 *    order's HTTP request (a) leaving the client and (b) arriving at the simulator's HTTP server
 *    (its `request` event). Same process, one monotonic clock (process.hrtime). "Leaving" is the
 *    request handed to the OS: with the default order transport (node:http, kept alive) the
 *    ClientRequest's `finish` event (found through the `http.client.request.start` diagnostics
 *    channel); with ky/fetch, undici's `undici:client:sendHeaders` channel (request line and headers
 *    written to the socket). The path measured is the real one: client id, journal write (a SQLite
 *    file in WAL mode, as live), venue, REST client (validation, order-rate limiter, transport). Orders are sent one at
 *    a time. The simulator's and the client's order limits are RAISED for this run (1e9 per 10 s),
 *    so the limiter never waits: this measures the code, not the exchange's budget. Both transports
 *    are measured; the target applies to the default (node-http).
 * 2. Sustained rate within the exchange's real limit (the simulator at 20 order calls per 10 s):
 *    many orders submitted at once; reports orders accepted per second after the first window's
 *    burst, the most accepted in any 10 s window (<= 20) and how many the simulator refused. Run
 *    twice: the client limiter at the exact window (10 s), and with a 500 ms margin (10.5 s). The
 *    client stamps a slot when the request starts, the exchange when it arrives, so with the exact
 *    window a new burst can reach the exchange before the old burst's last arrivals left its window
 *    and gets 429 (handled: looked up, re-sent with the same client id, never duplicated).
 *
 * Run alone: `node bin/run-ts.js bench/execution.ts`; results go to bench/results/execution.json.
 */
import dc from 'node:diagnostics_channel';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import type { ClientRequest, IncomingMessage } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SystemClock } from '../src/core/clock.js';
import { Decimal } from '../src/core/decimal.js';
import type { SpotOrderIntent } from '../src/core/intents.js';
import { silentLogger } from '../src/core/logger.js';
import { WallexRestClient } from '../src/exchange/rest/client.js';
import { ClientIdGenerator } from '../src/execution/client-id.js';
import { ExecutionEngine } from '../src/execution/engine.js';
import { RestVenue } from '../src/venues/rest-venue.js';
import { JournalExecutionAdapter } from '../src/runtime/journal-adapters.js';
import { createTestAccount, DEFAULT_PRICES, startingBook } from '../src/sim/default.js';
import { SimulatedExchange } from '../src/sim/exchange.js';
import { Prng } from '../src/sim/prng.js';
import { createWireServer, type WireServer } from '../src/sim/wire/server.js';
import { Journal } from '../src/store/journal.js';

type OrderTransport = 'node-http' | 'ky';

export interface ExecutionBenchResult {
  /** The default order transport (node:http, kept alive): the figure the target applies to. */
  latency: LatencyResult;
  /** The same with order calls sent through ky/fetch, for comparison. */
  latencyKy: LatencyResult;
  /** Client limiter at the exchange's exact window, and with a 500 ms margin. */
  sustained: SustainedResult[];
  machine: { cpus: string; cores: number; node: string; platform: string; loadAverage1m: number };
  date: string;
}

export interface LatencyResult {
  transport: OrderTransport;
  orders: number;
  /** submitOrder -> request headers written to the socket (client side). */
  toLeaveUs: { p50: number; p99: number; mean: number; max: number };
  /** submitOrder -> request received by the simulator's HTTP server. */
  toArriveUs: { p50: number; p99: number; mean: number; max: number };
  /** submitOrder -> order tracked as open (full round trip). */
  roundTripUs: { p50: number; p99: number; mean: number };
  targetP99Us: number;
  met: boolean;
  rateLimit: string;
}

export interface SustainedResult {
  orders: number;
  seconds: number;
  ordersPerSecond: number;
  maxIn10s: number;
  refusedBySimulator: number;
  limit: string;
}

const ORDER_PATH = '/v1/account/orders';
const clock = new SystemClock();

async function setup(limit: { limit: number; windowMs: number }, clientLimit = limit, orderTransport: OrderTransport = 'node-http') {
  const sim = new SimulatedExchange({ clock, seed: 1, orderRateLimit: limit });
  const prng = new Prng(1);
  const m = sim.market('BTCUSDT')!;
  const book = startingBook(m, new Decimal(DEFAULT_PRICES.BTCUSDT!), 50, prng);
  sim.replaceBookSide('BTCUSDT', 'bid', book.bids);
  sim.replaceBookSide('BTCUSDT', 'ask', book.asks);
  sim.setLastPrice('BTCUSDT', new Decimal(DEFAULT_PRICES.BTCUSDT!));
  const account = createTestAccount(sim, { balances: { USDT: '100000000', BTC: '100' } });
  const server = await createWireServer({ sim, port: 0 });
  const rest = new WallexRestClient({
    baseUrl: server.url,
    apiKey: account.apiKey,
    timeoutMs: 5_000,
    orderRateLimit: clientLimit,
    logger: silentLogger,
    orderTransport,
  });
  const venue = new RestVenue(rest);
  // A journal file like a live bot's (WAL, synchronous NORMAL), in a temp dir.
  const journal = Journal.open(path.join(mkdtempSync(path.join(os.tmpdir(), 'mizan-bench-')), 'journal.sqlite'), { clock, checkpoint: 'background' });
  const engine = new ExecutionEngine({
    venueFor: () => venue,
    clock,
    logger: silentLogger,
    ids: new ClientIdGenerator(clock, 'bench'),
    journal: new JournalExecutionAdapter(journal, 'live'),
  });
  return { sim, server, account, engine, journal, rest };
}

function intent(i: number): SpotOrderIntent {
  // Resting buys 5-10% under the market: they never fill, so every order costs one create.
  const price = new Decimal(56_000 + (i % 2_000)).toFixed(2);
  return {
    kind: 'order',
    strategy: 'bench',
    symbol: 'BTCUSDT',
    side: 'BUY',
    type: 'LIMIT',
    size: { kind: 'base', quantity: new Decimal('0.0002') },
    price: new Decimal(price),
  };
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  const round = (x: number) => Math.round(x * 10) / 10;
  return { p50: round(q(0.5)), p99: round(q(0.99)), mean: round(s.reduce((a, b) => a + b, 0) / s.length), max: round(s.at(-1)!) };
};

async function latency(orders: number, warmup: number, transport: OrderTransport): Promise<LatencyResult> {
  const s = await setup({ limit: 1_000_000_000, windowMs: 10_000 }, undefined, transport);
  let t0 = 0n;
  let leave = 0n;
  let arrive = 0n;
  const onHeaders = (msg: unknown) => {
    const r = (msg as { request: { method: string; path: string } }).request;
    if (leave === 0n && r.method === 'POST' && r.path === ORDER_PATH) leave = process.hrtime.bigint();
  };
  const onStart = (msg: unknown) => {
    const req = (msg as { request: ClientRequest }).request;
    if (req.method === 'POST' && req.path === ORDER_PATH) {
      req.once('finish', () => {
        if (leave === 0n) leave = process.hrtime.bigint();
      });
    }
  };
  const onRequest = (req: IncomingMessage) => {
    if (arrive === 0n && req.method === 'POST' && req.url === ORDER_PATH) arrive = process.hrtime.bigint();
  };
  dc.subscribe('undici:client:sendHeaders', onHeaders);
  dc.subscribe('http.client.request.start', onStart);
  s.server.http.prependListener('request', onRequest);
  const toLeave: number[] = [];
  const toArrive: number[] = [];
  const round: number[] = [];
  try {
    for (let i = 0; i < warmup + orders; i++) {
      leave = 0n;
      arrive = 0n;
      t0 = process.hrtime.bigint();
      const o = await s.engine.submitOrder(intent(i));
      const t3 = process.hrtime.bigint();
      if (o.state !== 'open') throw new Error(`bench order ${o.clientOrderId} ended ${o.state}: ${o.reason ?? ''}`);
      if (leave === 0n || arrive === 0n) throw new Error('the order request was not seen at the boundary');
      if (i < warmup) continue;
      toLeave.push(Number(leave - t0) / 1000);
      toArrive.push(Number(arrive - t0) / 1000);
      round.push(Number(t3 - t0) / 1000);
    }
  } finally {
    dc.unsubscribe('undici:client:sendHeaders', onHeaders);
    dc.unsubscribe('http.client.request.start', onStart);
    s.rest.close();
    await close(s.server);
    s.journal.close();
  }
  const r = stats(round);
  const leaveStats = stats(toLeave);
  return {
    transport,
    orders,
    toLeaveUs: leaveStats,
    toArriveUs: stats(toArrive),
    roundTripUs: { p50: r.p50, p99: r.p99, mean: r.mean },
    targetP99Us: 1000,
    met: leaveStats.p99 < 1000,
    rateLimit: 'raised to 1e9 per 10 s in the simulator and the client (the limiter never waits)',
  };
}

async function sustained(orders: number, clientWindowMs: number): Promise<SustainedResult> {
  const s = await setup({ limit: 20, windowMs: 10_000 }, { limit: 20, windowMs: clientWindowMs });
  const accepted: number[] = [];
  let refused = 0;
  const consume = s.sim.consumeOrderCall.bind(s.sim);
  s.sim.consumeOrderCall = (account) => {
    const r = consume(account);
    if (r.allowed) accepted.push(Date.now());
    else refused++;
    return r;
  };
  try {
    const all = await Promise.all(Array.from({ length: orders }, (_, i) => s.engine.submitOrder(intent(i))));
    const notOpen = all.filter((o) => o.state !== 'open');
    if (notOpen.length) throw new Error(`${notOpen.length} orders did not open: ${notOpen[0]!.reason ?? notOpen[0]!.state}`);
    const onSim = s.sim.orders(s.account.accountId).length;
    if (onSim !== orders) throw new Error(`${orders} intents gave ${onSim} orders on the simulator`);
  } finally {
    s.rest.close();
    await close(s.server);
    s.journal.close();
  }
  const seconds = (accepted.at(-1)! - accepted[0]!) / 1000;
  let maxIn10s = 0;
  for (const t of accepted) maxIn10s = Math.max(maxIn10s, accepted.filter((u) => u >= t && u < t + 10_000).length);
  // Long-run rate: the orders after the first window's burst, over the time they took.
  const afterBurst = accepted.length - 20;
  return {
    orders: accepted.length,
    seconds: Math.round(seconds * 100) / 100,
    ordersPerSecond: Math.round((afterBurst / seconds) * 100) / 100,
    maxIn10s,
    refusedBySimulator: refused,
    limit: `simulator: 20 order calls per 10 s (the exchange's); client limiter: 20 per ${clientWindowMs / 1000} s`,
  };
}

async function close(server: WireServer): Promise<void> {
  await server.close();
}

export async function run(opts: { orders?: number; warmup?: number; sustainedOrders?: number } = {}): Promise<ExecutionBenchResult> {
  const lat = await latency(opts.orders ?? 3_000, opts.warmup ?? 300, 'node-http');
  const latKy = await latency(opts.orders ?? 3_000, opts.warmup ?? 300, 'ky');
  const n = opts.sustainedOrders ?? 40;
  const sus = [await sustained(n, 10_000), await sustained(n, 10_500)];
  const cpus = os.cpus();
  const result: ExecutionBenchResult = {
    latency: lat,
    latencyKy: latKy,
    sustained: sus,
    machine: {
      cpus: cpus[0]?.model ?? 'unknown',
      cores: cpus.length,
      node: process.version,
      platform: `${process.platform}-${process.arch}`,
      loadAverage1m: Math.round(os.loadavg()[0]! * 100) / 100,
    },
    date: new Date().toISOString(),
  };
  const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'execution.json'), JSON.stringify(result, null, 2) + '\n');
  return result;
}

const self = fileURLToPath(import.meta.url);
if (process.argv[1] && path.resolve(process.argv[1]) === self) {
  const r = await run();
  const line = (l: LatencyResult) =>
    `[${l.transport}] submit -> request leaves: p50 ${l.toLeaveUs.p50} µs, p99 ${l.toLeaveUs.p99} µs; -> arrives at the simulator: p50 ${l.toArriveUs.p50} µs, p99 ${l.toArriveUs.p99} µs; ` +
    `round trip p50 ${l.roundTripUs.p50} µs (${l.orders} orders, ${l.rateLimit})\n`;
  process.stdout.write(
    line(r.latency) +
      line(r.latencyKy) +
      r.sustained
        .map(
          (s) =>
            `sustained: ${s.ordersPerSecond} orders/s after the first burst, ${s.orders} accepted in ${s.seconds} s, max ${s.maxIn10s} in any 10 s, ${s.refusedBySimulator} refused by the simulator (${s.limit})\n`,
        )
        .join(''),
  );
}
