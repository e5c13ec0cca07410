import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseBalances, parseDepth } from '../../src/exchange/parse/index.js';
import { runSim, type RunningSim } from '../../src/sim/cli-command.js';

const here = dirname(fileURLToPath(import.meta.url));
const repo = resolve(here, '../..');

let running: RunningSim | undefined;
afterEach(async () => {
  await running?.stop();
  running = undefined;
});

describe('mizan sim', () => {
  it('prints its REST and stream address and a funded key, serves until SIGINT', async () => {
    const child = spawn(process.execPath, [resolve(repo, 'bin/run-ts.js'), resolve(here, 'fixtures/sim-cli.ts'), 'sim', '--port', '0', '--no-replay', '--seed', '5'], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    for (let i = 0; i < 300 && !out.includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out, err).toContain('Ctrl-C');
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
  });

  it('--no-ws serves the stream on socket.io only: /ws answers 404 and the banner says so', async () => {
    const child = spawn(process.execPath, [resolve(repo, 'bin/run-ts.js'), resolve(here, 'fixtures/sim-cli.ts'), 'sim', '--port', '0', '--no-replay', '--no-ws'], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    for (let i = 0; i < 300 && !out.includes('Ctrl-C'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out).toMatch(/ws\s+not served \(--no-ws\)/);
    const url = /REST\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    const ws = new WebSocket(url.replace('http:', 'ws:') + '/ws');
    const refused = await new Promise<string>((r) => ws.on('error', (e) => r(e.message)));
    expect(refused).toMatch(/404/);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('prints the plain WebSocket address when it serves /ws', async () => {
    running = await runSim({ port: 0, replay: false, seed: 2 });
    const { banner } = await import('../../src/sim/cli-command.js');
    expect(banner(running)).toMatch(new RegExp(`ws\\s+${running.server.wsUrl!.replace(/[.]/g, '\\.')}\\s+\\(plain WebSocket`));
  });

  it('serves the other desks\' endpoints (profile, instant, margin) through their routes', async () => {
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
    for (let i = 0; i < 600 && !(sim.lastPrice('BTCUSDT') && sim.lastPrice('USDTTMN') && sim.lastPrice('ETHTMN')); i++) await new Promise((r) => setTimeout(r, 50));
    const res = await fetch(`${running.server.url}/v1/depth?symbol=BTCTMN`);
    const depth = parseDepth(((await res.json()) as { result: unknown }).result, 'BTCTMN');
    expect(depth.bids.length).toBeGreaterThan(0);
    expect(depth.asks[0]!.price.gt(depth.bids[0]!.price)).toBe(true);
    expect(depth.asks[0]!.price.decimalPlaces()).toBe(0);
    expect(sim.lastPrice('BTCUSDT')!.gt(50_000)).toBe(true);
  });
});
