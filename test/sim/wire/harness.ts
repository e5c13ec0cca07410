/** Starts a default simulator and its wire server on 127.0.0.1:0 for contract tests. */
import { ManualClock } from '../../../src/core/clock.js';
import { createDefaultSimulator, createTestAccount } from '../../../src/sim/default.js';
import { createWireServer, type WireServerOptions } from '../../../src/sim/wire/server.js';

export async function startSim(extra: Partial<WireServerOptions> = {}) {
  const clock = new ManualClock(Date.UTC(2024, 7, 8, 12, 0, 0));
  const sim = createDefaultSimulator({ clock, seed: 42 });
  const account = createTestAccount(sim);
  const server = await createWireServer({ sim, port: 0, ...extra });
  const call = async (method: string, path: string, opts: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...(opts.headers ?? {}) };
    if (opts.key !== null) headers['x-api-key'] = opts.key ?? account.apiKey;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(server.url + path, { method, headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) });
    const json = (await res.json()) as Record<string, unknown>;
    return { status: res.status, headers: res.headers, json, result: json.result };
  };
  return { clock, sim, account, server, call };
}
