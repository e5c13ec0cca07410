/**
 * Benchmark: market-data latency from the moment a message leaves the exchange to the strategy
 * callback, over each of the exchange's stream routes, side by side. A server in a child process
 * broadcasts like the simulator's wire server for 20 markets, 40 depth channels, at 5,000 messages
 * per second in total over loopback:
 * - `socketio`: socket.io 4 with allowEIO3, `Broadcaster (channel, data)`, 50-level side snapshots
 *   in the keyed-object form of `streamDepth` (string prices); the client is StreamClient protocol 4;
 * - `ws`: the plain WebSocket `/ws`, `[channel, data]` frames, the same snapshots as arrays of levels
 *   with numbers (`streamDepthArray`); the client is StreamClient transport ws.
 * In this process: StreamClient -> MarketDataEngine (book update, integrity checks, health) ->
 * `book` event wired as the bot wires it -> StrategyRunner -> a trivial strategy's `onBook`, which
 * reads the best bid and ask. Each message carries its send time `t` (process.hrtime,
 * CLOCK_MONOTONIC: the same clock in both processes on Linux) and a sequence number `s` (gaps =
 * dropped messages): as members of the keyed object on socket.io, and as the `sum` of the first and
 * second level on /ws (an array has no room for members; the engine does not read sums). Pacing goes
 * by elapsed time, so the rate holds when a timer fires late. Each route gets a fresh server process.
 *
 *   node bin/run-ts.js bench/market-latency.ts [rate=5000] [seconds=10] [preencoded|emit] [ws,socketio]
 * Results: bench/results/market-latency.json ({ws, socketio}).
 */
import { fork } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SystemClock } from '../src/core/clock.js';
import { Decimal } from '../src/core/decimal.js';
import { silentLogger } from '../src/core/logger.js';
import { StreamClient } from '../src/exchange/stream/client.js';
import { MarketDataEngine } from '../src/market/engine.js';
import { bookView } from '../src/runtime/views.js';
import { CandleWindow } from '../src/strategy/candle-window.js';
import type { StrategyContext } from '../src/strategy/define.js';
import { StrategyRunner } from '../src/strategy/runner.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { WebSocket, WebSocketServer } from 'ws';
import type { StreamTransport } from '../src/exchange/stream/transport.js';
import type { RawLevel } from '../src/market/ports.js';
import type { LevelInput } from '../src/sim/order-types.js';
import { streamDepth, streamDepthArray } from '../src/sim/wire/format.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const now = (): number => Number(process.hrtime.bigint()) / 1e6;
const MARKETS = Array.from({ length: 20 }, (_, i) => `M${String(i).padStart(2, '0')}TMN`);
const LEVELS = 50;
const VARIANTS = 64;

/** Side snapshots as the wire server sends them (`streamDepth`); prices drift, books never cross. */
function sidePayloads(symbol: string, side: 'bid' | 'ask', variants = VARIANTS): Record<string, unknown>[] {
  return sideLevels(symbol, side, variants).map(streamDepth);
}

/** The same snapshots in the /ws form (`streamDepthArray`: arrays of levels with numbers). */
function sideArrays(symbol: string, side: 'bid' | 'ask', variants = VARIANTS): Record<string, unknown>[][] {
  return sideLevels(symbol, side, variants).map(streamDepthArray);
}

function sideLevels(symbol: string, side: 'bid' | 'ask', variants: number): LevelInput[][] {
  const base = 1_000_000 * (1 + MARKETS.indexOf(symbol));
  const out: LevelInput[][] = [];
  for (let v = 0; v < variants; v++) {
    const levels: LevelInput[] = [];
    for (let i = 0; i < LEVELS; i++) {
      const offset = 100 + (v % 8) * 10 + i * 25;
      levels.push({
        price: new Decimal(side === 'bid' ? base - offset : base + offset),
        quantity: new Decimal(((i * 7 + v * 13) % 997) + 1).div(1000),
      });
    }
    out.push(levels);
  }
  return out;
}

/** The child process: a socket.io server like the simulator's, paced by elapsed time. */
/**
 * `emit`: socket.io's own `io.to(channel).emit` (JSON-encodes and walks the payload for binary on
 * every message, as the simulator's wire server does). `preencoded` (default): the same bytes
 * (`2["Broadcaster","<channel>",{…,"s":k,"t":…}]`) built from a payload stringified once, written
 * to each subscriber's engine.io connection. On this 2-core machine the server shares the CPU
 * with the client under test; against the real exchange it does not, so the server is kept light.
 */
type ServerMode = 'emit' | 'preencoded';

async function serve(rate: number, mode: ServerMode): Promise<void> {
  const http = createServer();
  const io = new Server(http, { path: '/socket.io', allowEIO3: true, serveClient: false, pingInterval: 20_000, pingTimeout: 20_000 });
  io.on('connection', (s) => s.on('subscribe', (m: { channel?: string }) => void (typeof m?.channel === 'string' && s.join(m.channel))));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const channels = MARKETS.flatMap((m) => [`${m}@buyDepth`, `${m}@sellDepth`]);
  const payloads = MARKETS.flatMap((m) => [sidePayloads(m, 'bid'), sidePayloads(m, 'ask')]);
  // Packet text without the closing `}]`, so `s` and `t` can be appended per message.
  const heads = payloads.map((vs, c) => vs.map((p) => `2${JSON.stringify(['Broadcaster', channels[c], p]).slice(0, -2)}`));
  const rooms = io.sockets.adapter.rooms;
  // /ws: `[channel, levels]` with the first level's sum = t and the second's = s, split around them.
  // noServer: with `server` set, ws would answer every other upgrade path (socket.io's) with 400.
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  http.on('upgrade', (req, socket, head) => {
    if ((req.url ?? '').split('?')[0] === '/ws') wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  const wsRooms = new Map<string, Set<WebSocket>>();
  wss.on('connection', (ws) => {
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as [string, { channel?: string }];
      if (frame[0] !== 'subscribe' || typeof frame[1]?.channel !== 'string') return;
      const room = wsRooms.get(frame[1].channel) ?? new Set<WebSocket>();
      wsRooms.set(frame[1].channel, room.add(ws));
    });
    ws.on('close', () => {
      for (const room of wsRooms.values()) room.delete(ws);
    });
  });
  const arrays = MARKETS.flatMap((m) => [sideArrays(m, 'bid'), sideArrays(m, 'ask')]);
  const wsParts = arrays.map((vs, c) =>
    vs.map((levels) => {
      const marked = levels.map((l, i) => (i === 0 ? { ...l, sum: '__T__' } : i === 1 ? { ...l, sum: '__S__' } : l));
      const text = JSON.stringify([channels[c], marked]);
      const [a, rest] = text.split('"__T__"') as [string, string];
      const [b, z] = rest.split('"__S__"') as [string, string];
      return [a, b, z] as const;
    }),
  );
  process.send?.({ port: (http.address() as AddressInfo).port });
  let k = 0;
  let cpu0 = process.cpuUsage();
  let t0 = now();
  process.on('message', (msg: { start?: boolean; mark?: boolean; report?: boolean }) => {
    if (msg.mark) {
      cpu0 = process.cpuUsage();
      t0 = now();
      return;
    }
    if (msg.report) {
      const cpu = process.cpuUsage(cpu0);
      process.send?.({ cpuPct: Math.round(((cpu.user + cpu.system) / 1000 / (now() - t0)) * 100), sent: k });
      return;
    }
    if (!msg.start) return;
    const start = now();
    setInterval(() => {
      const due = Math.floor(((now() - start) * rate) / 1000);
      for (; k < due; k++) {
        const c = k % channels.length;
        const variant = Math.floor(k / channels.length) % VARIANTS;
        if (mode === 'emit') {
          const payload = payloads[c]![variant]!;
          payload.s = k;
          payload.t = now();
          io.to(channels[c]!).emit('Broadcaster', channels[c], payload);
          continue;
        }
        const wsRoom = wsRooms.get(channels[c]!);
        if (wsRoom !== undefined && wsRoom.size > 0) {
          const [a, b, z] = wsParts[c]![variant]!;
          const frame = `${a}${now()}${b}${k}${z}`;
          for (const ws of wsRoom) if (ws.readyState === WebSocket.OPEN) ws.send(frame);
        }
        const ids = rooms.get(channels[c]!);
        if (!ids) continue;
        const packet = `${heads[c]![variant]},"s":${k},"t":${now()}}]`;
        for (const id of ids) io.sockets.sockets.get(id)?.conn.write(packet);
      }
    }, 1);
  });
  process.on('disconnect', () => process.exit(0));
}

export interface MarketLatencyResult {
  /** The stream route measured. */
  transport: StreamTransport;
  /** How the server sends (see ServerMode; /ws frames are always preencoded). */
  serverMode: ServerMode;
  markets: number;
  channels: number;
  levelsPerSide: number;
  targetRate: number;
  seconds: number;
  /** Strategy callbacks measured in the window, and per second. */
  received: number;
  perSecond: number;
  /** Sequence numbers missing in the window (messages sent and never delivered). */
  dropped: number;
  /** Messages that arrived with a sequence number not above the channel's highest seen (should be 0). */
  outOfOrder: number;
  /** Send -> strategy callback, ms. */
  latencyMs: { p50: number; p90: number; p99: number; p999: number; max: number; mean: number };
  /** p99 of each second of the window: shows when other load on the machine got in the way. */
  p99EachSecondMs: number[];
  /** Send -> the StreamClient's `message` event (the transport), ms. */
  wireMs: { p50: number; p99: number };
  /** `message` event -> strategy callback (parse, book, health, events, runner), ms. */
  inProcessMs: { p50: number; p99: number };
  targets: { p99UnderMs: number; met: boolean };
  clientCpuPct: number;
  /** CPU of the server process over the window (its JSON encoding and socket writes). */
  serverCpuPct: number;
  malformed: number;
  machine: { cpus: string; cores: number; node: string; loadAverage1m: number };
  date: string;
}

function pct(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return Math.round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! * 1000) / 1000;
}

/** The strategy context a runner needs; the bench's strategy only reads the book it is handed. */
function context(): StrategyContext {
  const clock = new SystemClock();
  return {
    name: 'latency',
    params: {},
    markets: MARKETS,
    resolutionSec: 60,
    clock,
    log: silentLogger,
    state: { get: () => undefined, set: () => undefined, delete: () => undefined },
    now: () => clock.now(),
    market: (s) => {
      throw new RangeError(`no market view for ${s} in the latency bench`);
    },
    book: () => undefined,
    candles: () => new CandleWindow(1),
    balance: (asset) => ({ asset, value: new Decimal(0), locked: new Decimal(0), free: new Decimal(0) }),
    position: () => undefined,
    marginPositions: () => [],
    openOrders: () => [],
    plot: () => {},
  };
}

export interface MarketLatencyResults {
  ws?: MarketLatencyResult;
  socketio?: MarketLatencyResult;
}

/** Both routes, one after the other, each with a fresh server; written side by side. */
export async function run(
  rate = 5000,
  seconds = 10,
  serverMode: ServerMode = 'preencoded',
  transports: readonly StreamTransport[] = ['ws', 'socketio'],
): Promise<MarketLatencyResults> {
  const results: MarketLatencyResults = {};
  for (const t of transports) results[t] = await runOne(t, rate, seconds, serverMode);
  mkdirSync(path.join(here, 'results'), { recursive: true });
  writeFileSync(path.join(here, 'results', 'market-latency.json'), JSON.stringify(results, null, 2) + '\n');
  return results;
}

/** The headline numbers of each route, one row each. */
export function sideBySide(r: MarketLatencyResults): string {
  const rows = (['ws', 'socketio'] as const).flatMap((t) => {
    const x = r[t];
    if (x === undefined) return [];
    const l = x.latencyMs;
    return [
      `${t.padEnd(9)} ${String(x.perSecond).padStart(6)}/s  p50 ${l.p50.toFixed(3)}  p90 ${l.p90.toFixed(3)}  p99 ${l.p99.toFixed(3)}  p99.9 ${l.p999.toFixed(3)}  max ${l.max.toFixed(2)} ms` +
        `  wire p50 ${x.wireMs.p50.toFixed(3)} p99 ${x.wireMs.p99.toFixed(3)}  in-process p50 ${x.inProcessMs.p50.toFixed(3)} p99 ${x.inProcessMs.p99.toFixed(3)}` +
        `  dropped ${x.dropped}  client CPU ${x.clientCpuPct}%  server CPU ${x.serverCpuPct}%  load ${x.machine.loadAverage1m}`,
    ];
  });
  return rows.join('\n');
}

async function runOne(transport: StreamTransport, rate: number, seconds: number, serverMode: ServerMode): Promise<MarketLatencyResult> {
  const child = fork(path.join(here, '..', 'bin', 'run-ts.js'), [fileURLToPath(import.meta.url), '--server', String(rate), serverMode], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`latency server exited early (code ${code})`)));
  });
  const clock = new SystemClock();
  const stream = new StreamClient({ url: `http://127.0.0.1:${port}`, transport, protocol: 4, clock });
  const first = new Map(MARKETS.map((m) => [m, { bids: sidePayloads(m, 'bid', 1)[0]!, asks: sidePayloads(m, 'ask', 1)[0]! }]));
  const market = new MarketDataEngine({
    stream,
    depth: {
      getDepth: async (s) => {
        const f = first.get(s)!;
        return { bids: Object.values(f.bids) as RawLevel[], asks: Object.values(f.asks) as RawLevel[] };
      },
    },
    clock,
    options: { subscribeStats: false },
  });

  // Ring of send times, one per book event, consumed in order by the strategy (one runner, one queue).
  const cap = rate * (seconds + 10);
  const lat = new Float64Array(cap);
  const wire = new Float64Array(cap);
  const inProc = new Float64Array(cap);
  const second = new Uint16Array(cap);
  let recStart = 0;
  const pendingSent: number[] = [];
  const pendingArrived: number[] = [];
  let n = 0;
  let recording = false;
  let sent = 0;
  let arrived = 0;
  // Sequence numbers per channel: channel c carries s = c, c + 40, c + 80, … (the engine's 60
  // channels, trades included, spread over two connections, so order holds per channel only).
  const lastSeq = new Map<string, number>();
  const step = MARKETS.length * 2;
  let gaps = 0;
  let outOfOrder = 0;
  stream.on('message', (channel, data) => {
    const p = Array.isArray(data) ? { t: (data[0] as { sum: number }).sum, s: (data[1] as { sum: number }).sum } : (data as { t: number; s: number });
    arrived = now();
    sent = p.t;
    const last = lastSeq.get(channel);
    if (recording && last !== undefined) {
      if (p.s > last + step) gaps += (p.s - last) / step - 1;
      else if (p.s <= last) outOfOrder++;
    }
    if (last === undefined || p.s > last) lastSeq.set(channel, p.s);
  });
  const runner = new StrategyRunner({
    ctx: context(),
    logger: silentLogger,
    sink: () => undefined,
    handlers: {
      onBook: (_symbol, book) => {
        const t = now();
        const s = pendingSent.shift()!;
        const a = pendingArrived.shift()!;
        if (book.bestBid() === undefined || book.bestAsk() === undefined) throw new Error('empty book side');
        if (!recording || s === undefined || n >= cap) return;
        lat[n] = t - s;
        wire[n] = a - s;
        inProc[n] = t - a;
        second[n] = Math.floor((t - recStart) / 1000);
        n++;
      },
    },
  });
  // Wired as the bot wires its core (src/runtime/bot.ts): a view per event, dispatched to the runner.
  market.on('book', (symbol, book) => {
    pendingSent.push(sent);
    pendingArrived.push(arrived);
    void runner.dispatch({ type: 'book', symbol, book: bookView(symbol, book, () => market.health(symbol)) });
  });

  await market.start(MARKETS);
  await stream.connect();
  if (stream.transport !== transport) throw new Error(`latency bench: asked for ${transport}, the stream uses ${String(stream.transport)}`);
  pendingSent.length = 0;
  pendingArrived.length = 0;
  await runner.drain();
  child.send({ start: true });
  await new Promise((r) => setTimeout(r, 2000)); // warm-up (JIT, socket buffers)
  const load = os.loadavg()[0] ?? 0;
  child.send({ mark: true });
  recStart = now();
  recording = true;
  const cpu0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  recording = false;
  const cpu = process.cpuUsage(cpu0);
  const server = await new Promise<{ cpuPct: number; sent: number }>((resolve) => {
    child.on('message', (m: { cpuPct?: number; sent?: number }) => m.cpuPct !== undefined && resolve(m as { cpuPct: number; sent: number }));
    child.send({ report: true });
  });
  await runner.drain();
  child.disconnect(); // the server exits on disconnect (and writes its --cpu-prof profile, if any)
  market.stop();
  stream.close();

  const sorted = lat.slice(0, n).sort();
  const w = wire.slice(0, n).sort();
  const ip = inProc.slice(0, n).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += lat[i]!;
  const p99 = pct(sorted, 0.99);
  const perSecondP99: number[] = [];
  for (let sec = 0; sec < seconds; sec++) {
    const xs: number[] = [];
    for (let i = 0; i < n; i++) if (second[i] === sec) xs.push(lat[i]!);
    if (xs.length) perSecondP99.push(pct(Float64Array.from(xs).sort(), 0.99));
  }
  return {
    transport,
    serverMode,
    markets: MARKETS.length,
    channels: MARKETS.length * 2,
    levelsPerSide: LEVELS,
    targetRate: rate,
    seconds,
    received: n,
    perSecond: Math.round(n / seconds),
    dropped: gaps,
    outOfOrder,
    latencyMs: {
      p50: pct(sorted, 0.5),
      p90: pct(sorted, 0.9),
      p99,
      p999: pct(sorted, 0.999),
      max: pct(sorted, 1),
      mean: Math.round((sum / Math.max(1, n)) * 1000) / 1000,
    },
    p99EachSecondMs: perSecondP99,
    wireMs: { p50: pct(w, 0.5), p99: pct(w, 0.99) },
    inProcessMs: { p50: pct(ip, 0.5), p99: pct(ip, 0.99) },
    // The target (#18): stream message -> strategy callback p99 under 1 ms at 20 markets x 5,000 msg/s.
    targets: { p99UnderMs: 1, met: p99 < 1 },
    clientCpuPct: Math.round(((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100),
    serverCpuPct: server.cpuPct,
    malformed: stream.stats().malformedTotal + market.counters.malformed,
    machine: { cpus: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version, loadAverage1m: Math.round(load * 100) / 100 },
    date: new Date().toISOString(),
  };
}

if (process.argv[2] === '--server') {
  await serve(Number(process.argv[3] ?? 5000), process.argv[4] === 'emit' ? 'emit' : 'preencoded');
} else if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [rate = '5000', seconds = '10', mode = 'preencoded', which = 'ws,socketio'] = process.argv.slice(2);
  const transports = which.split(',').filter((t): t is StreamTransport => t === 'ws' || t === 'socketio');
  const r = await run(Number(rate), Number(seconds), mode === 'emit' ? 'emit' : 'preencoded', transports);
  process.stdout.write(JSON.stringify(r, null, 2) + '\n\n' + sideBySide(r) + '\n');
}
