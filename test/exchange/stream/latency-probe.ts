/**
 * Latency probe (not a test: timing belongs in benchmarks). A socket.io 4 server in a child process
 * streams depth snapshots of 20 markets (both sides, 20 levels each) at a total rate over loopback;
 * the StreamClient in this process measures the time from the server's emit to the `depth` callback
 * (after parsing into Decimals), and separately the part spent in the client (from the `message`
 * event to the `depth` callback: parsing and dispatch). Clock: process.hrtime (CLOCK_MONOTONIC, the same in both processes on
 * Linux). The server sends by elapsed time (catching up when a timer fires late), so the rate holds.
 *
 *   npx tsx test/exchange/stream/latency-probe.ts [rate=5000] [seconds=10] [protocol=4]
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { StreamClient } from '../../../src/exchange/stream/index.js';

const now = (): number => Number(process.hrtime.bigint()) / 1e6;
const MARKETS = Array.from({ length: 20 }, (_, i) => `M${String(i).padStart(2, '0')}TMN`);
const LEVELS = 20;

async function serve(rate: number): Promise<void> {
  const http = createServer();
  const io = new Server(http, { allowEIO3: true, serveClient: false });
  io.on('connection', (s) => s.on('subscribe', (m: { channel: string }) => void s.join(m.channel)));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  process.send?.({ port: (http.address() as AddressInfo).port });
  const channels = MARKETS.flatMap((m) => [`${m}@buyDepth`, `${m}@sellDepth`]);
  let k = 0;
  process.on('message', (msg: { start?: boolean }) => {
    if (!msg.start) return;
    const start = now();
    setInterval(() => {
      const due = Math.floor(((now() - start) * rate) / 1000);
      for (; k < due; k++) {
        const ch = channels[k % channels.length]!;
        const bid = ch.endsWith('buyDepth');
        const payload: Record<string, unknown> = {};
        for (let i = 0; i < LEVELS; i++) {
          const price = 100_000 + (bid ? -i : i + 1) * 10;
          const quantity = Math.round((1 + ((k * 7 + i * 13) % 500) / 100) * 1e4) / 1e4;
          payload[i] = { price: `${price}.0000000000000000`, quantity, sum: price * quantity };
        }
        payload.t = now();
        io.to(ch).emit('Broadcaster', ch, payload);
      }
    }, 1);
  });
}

async function measure(rate: number, seconds: number, protocol: 3 | 4): Promise<void> {
  const child = fork(process.argv[1]!, ['--server', String(rate)], { execArgv: process.execArgv });
  const port = await new Promise<number>((r) => child.once('message', (m: { port: number }) => r(m.port)));
  const client = new StreamClient({ url: `http://127.0.0.1:${port}`, transport: 'socketio', protocol });
  for (const m of MARKETS) {
    client.subscribe(`${m}@buyDepth`);
    client.subscribe(`${m}@sellDepth`);
  }
  let sentAt = 0;
  let arrivedAt = 0;
  const samples: number[] = [];
  const inClient: number[] = [];
  let recording = false;
  client.on('message', (_ch, data) => {
    arrivedAt = now();
    sentAt = (data as { t: number }).t;
  });
  client.on('depth', () => {
    if (!recording) return;
    const t = now();
    samples.push(t - sentAt);
    inClient.push(t - arrivedAt);
  });
  await client.connect();
  child.send({ start: true });
  await new Promise((r) => setTimeout(r, 1000)); // warm-up
  recording = true;
  const cpu0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  recording = false;
  const cpu = process.cpuUsage(cpu0);
  client.close();
  child.kill();
  samples.sort((a, b) => a - b);
  inClient.sort((a, b) => a - b);
  const at = (xs: number[], p: number): string => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(3);
  const q = (p: number): string => at(samples, p);
  console.log(
    JSON.stringify({
      protocol,
      rate,
      seconds,
      received: samples.length,
      perSecond: Math.round(samples.length / seconds),
      p50ms: q(0.5),
      p90ms: q(0.9),
      p99ms: q(0.99),
      maxMs: samples.at(-1)?.toFixed(3),
      parseAndDispatchP50ms: at(inClient, 0.5),
      parseAndDispatchP99ms: at(inClient, 0.99),
      clientCpuPct: Math.round(((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100),
      malformed: client.stats().malformedTotal,
    }),
  );
}

if (process.argv[2] === '--server') {
  void serve(Number(process.argv[3] ?? 5000));
} else {
  const [rate = '5000', seconds = '10', protocol = '4'] = process.argv.slice(2);
  void measure(Number(rate), Number(seconds), protocol === '3' ? 3 : 4);
}
