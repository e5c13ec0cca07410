/**
 * `exchange.stream.transport` as a user sets it: `node bin/mizan.js run <file>` in a child process,
 * paper mode on the embedded simulator (which serves both routes), logging JSON. The bot's stream
 * takes the route the file names, and logs it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mizan-transport-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the bot until it logs the stream route, then stops it with SIGINT. */
function routeOf(transport: string | undefined): Promise<{ line: Record<string, unknown>; code: number | null }> {
  const name = transport ?? 'default';
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    [
      'mode: paper',
      'simulator: { seed: 3, speed: 2 }',
      ...(transport !== undefined ? ['exchange:', '  stream:', `    transport: ${transport}`] : []),
      'strategies:',
      '  - { name: sma, strategy: sma-cross, markets: [BTCUSDT], resolution: 1s, params: { fast: 2, slow: 4, fraction: 0.01 } }',
      `journal: { file: ${join(dir, `${name}.sqlite`)} }`,
      'logging: { pretty: false }',
      '',
    ].join('\n'),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/mizan.js', 'run', file], {
      cwd: REPO,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let found: Record<string, unknown> | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      if (found !== undefined) return;
      for (const text of out.split('\n')) {
        if (!text.includes('stream transport in use')) continue;
        found = JSON.parse(text) as Record<string, unknown>;
        child.kill('SIGINT');
        break;
      }
    });
    child.stderr.on('data', (b: Buffer) => (out += b.toString()));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (found === undefined) reject(new Error(`no stream transport line; output:\n${out.slice(-2000)}`));
      else resolve({ line: found, code });
    });
  });
}

describe('exchange.stream.transport in a bot', () => {
  it('defaults to auto, which takes the plain WebSocket the simulator serves', async () => {
    const { line } = await routeOf(undefined);
    expect(line).toMatchObject({ transport: 'ws', setting: 'auto' });
    expect(String(line.address)).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/ws$/);
  }, 60_000);

  it('socketio takes socket.io even where /ws is served', async () => {
    const { line } = await routeOf('socketio');
    expect(line).toMatchObject({ transport: 'socketio', setting: 'socketio' });
    expect(String(line.address)).toMatch(/\/socket\.io$/);
  }, 60_000);
});
