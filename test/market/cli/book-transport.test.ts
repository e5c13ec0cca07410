/**
 * `mizan book <symbol> --transport ws|socketio|auto` as a user runs it: `node bin/mizan.js` in a
 * child process against the simulator's wire server on 127.0.0.1 (started with and without `/ws`).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSim, type RunningSim } from '../../../src/sim/run-sim.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
let withWs: RunningSim;
let withoutWs: RunningSim;

beforeAll(async () => {
  withWs = await runSim({ port: 0, seed: 4, replay: false });
  withoutWs = await runSim({ port: 0, seed: 4, replay: false, stream: { ws: false } });
});
afterAll(async () => {
  await withWs?.stop();
  await withoutWs?.stop();
});

function mizan(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['bin/mizan.js', ...args], { cwd: REPO, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('mizan book --transport', () => {
  it('auto uses the plain WebSocket when the exchange serves /ws', async () => {
    const r = await mizan(['book', 'BTCTMN', '--url', withWs.server.url, '--once', '--depth', '2', '--transport', 'auto']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^stream {2}ws \(plain WebSocket \/ws\)$/m);
    const bid = withWs.sim.book('BTCTMN', 1).bids[0]!.price.toFixed();
    expect(r.stdout.replace(/,/g, '')).toContain(bid);
  }, 30_000);

  it('auto falls back to socket.io when /ws is not served', async () => {
    const r = await mizan(['book', 'BTCTMN', '--url', withoutWs.server.url, '--once', '--transport', 'auto', '--protocol', '3']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^stream {2}socketio \(protocol 3\)$/m);
  }, 30_000);

  it('socketio and ws use the route asked for', async () => {
    const io = await mizan(['book', 'ETHUSDT', '--url', withWs.server.url, '--once', '--transport', 'socketio']);
    expect(io.code, io.stderr).toBe(0);
    expect(io.stdout).toMatch(/^stream {2}socketio \(protocol 4\)$/m);
    const ws = await mizan(['book', 'ETHUSDT', '--url', withWs.server.url, '--once', '--transport', 'ws']);
    expect(ws.code, ws.stderr).toBe(0);
    expect(ws.stdout).toMatch(/^stream {2}ws /m);
  }, 30_000);

  it('refuses an unknown transport, naming the option and the value', async () => {
    const r = await mizan(['book', 'BTCTMN', '--url', withWs.server.url, '--once', '--transport', 'sse']);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--transport/);
    expect(r.stderr).toMatch(/sse/);
  }, 30_000);
});
