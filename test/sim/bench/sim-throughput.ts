/**
 * Throughput of the simulator (not a test: run `node bin/run-ts.js test/sim/bench/sim-throughput.ts`).
 * Measures in-process order placement and cancel, market orders, replayed side snapshots, public
 * trades, and order create round trips over loopback HTTP.
 */
import { ManualClock } from '../../../src/core/clock.js';
import { Decimal } from '../../../src/core/decimal.js';
import { createDefaultSimulator, createTestAccount } from '../../../src/sim/default.js';
import { createWireServer } from '../../../src/sim/wire/server.js';

function rate(label: string, n: number, ms: number): void {
  process.stdout.write(`${label.padEnd(48)} ${String(Math.round((n / ms) * 1000)).padStart(8)} /s  (${n} in ${ms.toFixed(0)} ms)\n`);
}

const clock = new ManualClock(Date.UTC(2024, 7, 8));
const sim = createDefaultSimulator({ clock, seed: 1 });
const acc = createTestAccount(sim, { balances: { USDT: '1e12', BTC: '1e6', TMN: '1e15', ETH: '1e6' } });
sim.on('depth', () => {});

// Rounds of 100 resting orders (what a busy paper account holds), placed then cancelled.
let n = 20_000;
let placeMs = 0;
let cancelMs = 0;
for (let r = 0; r < n / 100; r++) {
  let t = performance.now();
  for (let i = 0; i < 100; i++) {
    sim.placeOrder(acc.accountId, {
      symbol: 'BTCUSDT',
      side: 'BUY',
      type: 'LIMIT',
      quantity: new Decimal('0.01'),
      price: new Decimal(60000 - i),
      clientId: `b${r}_${i}`,
    });
  }
  placeMs += performance.now() - t;
  t = performance.now();
  for (let i = 0; i < 100; i++) sim.cancelOrder(acc.accountId, `b${r}_${i}`);
  cancelMs += performance.now() - t;
}
rate('resting limit orders placed (in-process)', n, placeMs);
rate('orders cancelled (in-process)', n, cancelMs);
let t0: number;

n = 5_000;
t0 = performance.now();
const asks = sim.book('BTCUSDT').asks;
for (let i = 0; i < n; i++) {
  sim.placeOrder(acc.accountId, { symbol: 'BTCUSDT', side: i % 2 ? 'SELL' : 'BUY', type: 'MARKET', quantity: new Decimal('0.001') });
  if (i % 100 === 0) sim.replaceBookSide('BTCUSDT', 'ask', asks);
}
rate('market orders filled (in-process)', n, performance.now() - t0);

const bids = sim.book('BTCUSDT').bids;
n = 20_000;
t0 = performance.now();
for (let i = 0; i < n; i++) sim.replaceBookSide('BTCUSDT', i % 2 ? 'bid' : 'ask', i % 2 ? bids : asks);
rate('50-level side snapshots applied + depth events', n, performance.now() - t0);

t0 = performance.now();
for (let i = 0; i < n; i++) {
  clock.advance(10);
  sim.recordTrade({ symbol: 'BTCUSDT', price: new Decimal(62550 + (i % 7)), quantity: new Decimal('0.01'), isBuyOrder: i % 2 === 0, timestamp: clock.now() });
}
rate('public trades recorded (stats, candles, events)', n, performance.now() - t0);

const server = await createWireServer({ sim });
const http = createTestAccount(sim, { id: 'http', balances: { TMN: '1e15' } });
n = 20; // the order-call limit: 20 per 10 s per account
t0 = performance.now();
for (let i = 0; i < n; i++) {
  const res = await fetch(`${server.url}/v1/account/orders`, {
    method: 'POST',
    headers: { 'x-api-key': http.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ symbol: 'USDTTMN', side: 'BUY', type: 'LIMIT', price: '80000', quantity: '2' }),
  });
  if (res.status !== 201) throw new Error(`create answered ${res.status}`);
  await res.arrayBuffer();
}
const ms = performance.now() - t0;
process.stdout.write(`${'order create over loopback HTTP, mean latency'.padEnd(48)} ${(ms / n).toFixed(2).padStart(8)} ms\n`);
n = 500;
t0 = performance.now();
for (let i = 0; i < n; i++) await (await fetch(`${server.url}/v1/depth?symbol=BTCUSDT`)).arrayBuffer();
rate('GET /v1/depth (50+50 levels) over loopback HTTP', n, performance.now() - t0);
await server.close();
