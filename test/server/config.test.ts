/**
 * The `server:` section's limits (issue 33 items 2 and 4): their defaults, and a clear error naming
 * the field and the value for each bad one (loadConfig on real files in a temp dir).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';

const dir = mkdtempSync(join(tmpdir(), 'mizan-server-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
async function load(serverLines: string[]) {
  const file = join(dir, `c${++n}.yaml`);
  writeFileSync(
    file,
    ['mode: paper', 'strategies:', '  - { name: a, strategy: sma-cross, markets: [BTCUSDT] }', 'server:', ...serverLines.map((l) => `  ${l}`), ''].join('\n'),
  );
  return loadConfig(file, { env: {} });
}

async function problems(serverLines: string[]): Promise<string> {
  try {
    await load(serverLines);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('accepted');
}

describe('server: limits in the config', () => {
  it('defaults: X-Forwarded-For ignored, 50 streams, 10 s for headers, 30 s for a request', async () => {
    const config = await load(['port: 0']);
    expect(config.server).toMatchObject({ trustProxy: false, maxWebSocketClients: 50, headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    const set = await load(['trustProxy: true', 'maxWebSocketClients: 3', 'headersTimeoutMs: 500', 'requestTimeoutMs: 2000']);
    expect(set.server).toMatchObject({ trustProxy: true, maxWebSocketClients: 3, headersTimeoutMs: 500, requestTimeoutMs: 2000 });
  });

  it('refuses bad values, naming the field and the value', async () => {
    expect(await problems(['trustProxy: yes please'])).toMatch(/server\.trustProxy: "yes please" is not true or false/);
    expect(await problems(['maxWebSocketClients: 0'])).toMatch(/server\.maxWebSocketClients: 0 must be a whole number from 1 to 10000/);
    expect(await problems(['headersTimeoutMs: 50'])).toMatch(/server\.headersTimeoutMs: 50 must be a whole number from 100 to 600000/);
    expect(await problems(['requestTimeoutMs: 1.5'])).toMatch(/server\.requestTimeoutMs: 1\.5 is not a whole number/);
    expect(await problems(['headersTimeoutMs: 40000'])).toMatch(/server\.headersTimeoutMs: 40000 must not be longer than server\.requestTimeoutMs \(30000\)/);
  });
});
