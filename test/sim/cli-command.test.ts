import { spawn, type ChildProcess, type ChildProcessByStdio } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseBalances, parseDepth } from '../../src/exchange/parse/index.js';
import { runSim, type RunningSim } from '../../src/sim/run-sim.js';
import { RateLimitError } from '../../src/core/errors.js';
import { WallexRestClient } from '../../src/exchange/rest/client.js';
import { waitFor } from '../support/wait-for.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');

let running: RunningSim | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  await running?.stop();
  running = undefined;
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Spawns `mizan sim <args>` (the CLI fixture), killed after the test if still running. */
function spawnSim(args: string[]): ChildProcessByStdio<null, Readable, Readable> {
  const child = spawn(process.execPath, [resolve(repo, 'bin/run-ts.js'), resolve(here, 'fixtures/sim-cli.ts'), 'sim', ...args], {
    cwd: repo,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

/** Waits until a `mizan sim` child has printed its banner (it ends with how to stop it: Ctrl-C). */
const waitForBanner = (out: () => string, err: () => string = () => '') =>
  waitFor(() => out().includes('Ctrl-C'), {
    what: "mizan sim's banner",
    timeout: 30_000,
    interval: 100,
    detail: () => `--- stdout ---\n${out()}\n--- stderr ---\n${err()}`,
  });

describe('mizan sim', () => {
  it('prints its REST and stream address and a funded key, serves until SIGINT', async () => {
    const child = spawnSim(['--port', '0', '--no-replay', '--seed', '5']);
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitForBanner(
      () => out,
      () => err,
    );
    const url = /REST\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const key = /API key\s+(\S+)/.exec(out)![1]!;
    expect(out).toMatch(/stream\s+http:\/\/127\.0\.0\.1:\d+/);
    const res = await fetch(`${url}/v1/account/balances`, { headers: { 'x-api-key': key } });
    expect(res.status).toBe(200);
    const balances = parseBalances(((await res.json()) as { result: unknown }).result);
    expect(balances.USDT!.value.toFixed()).toBe('100000');
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(out).toContain('stopped');
  }, 60_000);

  it('--no-ws serves the stream on socket.io only: /ws answers 404 and the banner says so', async () => {
    const child = spawnSim(['--port', '0', '--no-replay', '--no-ws']);
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitForBanner(() => out);
    expect(out).toMatch(/ws\s+not served \(--no-ws\)/);
    const url = /REST\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const ws = new WebSocket(url.replace('http:', 'ws:') + '/ws');
    const refused = await new Promise<string>((r) => ws.on('error', (e) => r(e.message)));
    expect(refused).toMatch(/404/);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 60_000);

  it('--public-rate-limit makes a polling client meet 429s; --max-channels caps channels per /ws connection', async () => {
    const child = spawnSim(['--port', '0', '--no-replay', '--public-rate-limit', '5/60', '--max-channels', '2']);
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await waitForBanner(() => out);
    const url = /REST\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const key = /API key\s+(\S+)/.exec(out)![1]!;
    // A client polling depth: five calls pass, the sixth is refused with the typed error.
    const client = new WallexRestClient({ baseUrl: url, retries: 0 });
    for (let i = 0; i < 5; i++) await client.getDepth('USDTTMN');
    const refused = await client.getDepth('USDTTMN').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).retryAfterMs).toBeGreaterThan(0);
    const raw = await fetch(`${url}/v1/trades?symbol=USDTTMN`);
    expect([raw.status, raw.headers.get('x-ratelimit-remaining')]).toEqual([429, '0']);
    // Private calls are not public calls: they still pass.
    expect((await fetch(`${url}/v1/account/balances`, { headers: { 'x-api-key': key } })).status).toBe(200);
    client.close();

    // /ws with at most 2 channels: a third is not served until one is left.
    const ws = new WebSocket(url.replace('http:', 'ws:') + '/ws');
    const seen: string[] = [];
    ws.on('message', (b: Buffer) => seen.push((JSON.parse(b.toString()) as [string])[0]));
    await new Promise((r) => ws.once('open', r));
    const waitSeen = (n: number) =>
      waitFor(() => seen.length >= n, { what: `${n} channel snapshots on /ws`, timeout: 10_000, detail: () => `seen: ${seen.join(', ')}` });
    const sub = (c: string, kind = 'subscribe') => ws.send(JSON.stringify([kind, { channel: c }]));
    sub('USDTTMN@buyDepth');
    sub('USDTTMN@sellDepth');
    sub('BTCUSDT@buyDepth'); // refused: the connection has its 2 channels
    sub('USDTTMN@buyDepth'); // already held: its snapshot again, after anything the refused one would have sent
    await waitSeen(3);
    expect(seen.slice(0, 3)).toEqual(['USDTTMN@buyDepth', 'USDTTMN@sellDepth', 'USDTTMN@buyDepth']);
    sub('USDTTMN@sellDepth', 'unsubscribe');
    sub('BTCUSDT@buyDepth');
    await waitSeen(4);
    expect(seen[3]).toBe('BTCUSDT@buyDepth');
    ws.close();
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  }, 60_000);

  it('refuses a --public-rate-limit that is not <calls>/<seconds>, naming it and the value', async () => {
    const child = spawnSim(['--port', '0', '--no-replay', '--public-rate-limit', 'lots']);
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).not.toBe(0);
    expect(err).toContain('--public-rate-limit must be <calls>/<seconds>');
    expect(err).toContain('"lots"');
  });

  it('prints the plain WebSocket address when it serves /ws', async () => {
    running = await runSim({ port: 0, replay: false, seed: 2 });
    const { banner } = await import('../../src/sim/run-sim.js');
    expect(banner(running)).toMatch(new RegExp(`ws\\s+${running.server.wsUrl!.replace(/[.]/g, '\\.')}\\s+\\(plain WebSocket`));
  });

  it("serves the other desks' endpoints (profile, instant, margin) through their routes", async () => {
    running = await runSim({ port: 0, replay: false, seed: 2 });
    const key = running.account.apiKey;
    const profile = await fetch(`${running.server.url}/v1/account/profile`, { headers: { 'x-api-key': key } });
    expect(profile.status).toBe(200);
    const quote = await fetch(`${running.server.url}/v1/account/otc/price?symbol=USDTTMN&side=BUY`, { headers: { 'x-api-key': key } });
    expect(quote.status).toBe(200);
    expect((await fetch(`${running.server.url}/margin-trade/v1/positions`, { headers: { 'x-api-key': key } })).status).not.toBe(501);
  });

  it('replays the bundled market data into the books', async () => {
    running = await runSim({ port: 0, speed: 0, seed: 3 });
    expect(running.feed).toContain('replaying');
    const sim = running.sim;
    await waitFor(() => !!(sim.lastPrice('BTCUSDT') && sim.lastPrice('USDTTMN') && sim.lastPrice('ETHTMN')), {
      what: 'a replayed price of BTCUSDT, USDTTMN and ETHTMN',
      timeout: 30_000,
    });
    const res = await fetch(`${running.server.url}/v1/depth?symbol=BTCTMN`);
    const depth = parseDepth(((await res.json()) as { result: unknown }).result, 'BTCTMN');
    expect(depth.bids.length).toBeGreaterThan(0);
    expect(depth.asks[0]!.price.gt(depth.bids[0]!.price)).toBe(true);
    expect(depth.asks[0]!.price.decimalPlaces()).toBe(0);
    expect(sim.lastPrice('BTCUSDT')!.gt(50_000)).toBe(true);
  }, 60_000);
});
