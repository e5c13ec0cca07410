/**
 * Helpers of the endpoint contract tests: a simulator with every desk (instant, margin, trading
 * credit, withdrawals, wallet history) on a wire server at 127.0.0.1:0, mizan's REST client pointed
 * at it, and `shapeDiff`, which lists where an answer of the simulator departs from a documented
 * sample (a key the sample has and the answer lacks, or a JSON type that differs).
 */
import { ManualClock } from '../../../src/core/clock.js';
import { WallexRestClient } from '../../../src/exchange/rest/client.js';
import { createDefaultSimulator, createTestAccount } from '../../../src/sim/default.js';
import { createSimDesks, type SimDeskOptions } from '../../../src/sim/margin/wiring.js';
import { createWireServer, type WireServerOptions } from '../../../src/sim/wire/server.js';

export async function startFullSim(extra: Partial<WireServerOptions> = {}, deskOptions: SimDeskOptions = {}) {
  const clock = new ManualClock(Date.UTC(2024, 7, 8, 12, 0, 0));
  const sim = createDefaultSimulator({ clock, seed: 42 });
  const account = createTestAccount(sim);
  const desks = createSimDesks(sim, deskOptions);
  const server = await createWireServer({
    sim,
    port: 0,
    routes: desks.routes,
    adminRoutes: desks.adminRoutes,
    resolveSubAccount: desks.resolveSubAccount,
    ...extra,
  });
  const client = new WallexRestClient({ baseUrl: server.url, apiKey: account.apiKey, timeoutMs: 2000, retries: 0, sleep: async () => {} });
  const call = async (method: string, path: string, opts: { body?: unknown; key?: string | null } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.key !== null) headers['x-api-key'] = opts.key ?? account.apiKey;
    if (opts.body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(server.url + path, { method, headers, ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}) });
    const json = (await res.json()) as Record<string, unknown>;
    return { status: res.status, headers: res.headers, json, result: json.result };
  };
  const stop = async () => {
    client.close();
    desks.detach();
    await server.close();
  };
  return { sim, account, clock, server, client, call, desks, stop };
}

type Kind = 'null' | 'array' | 'object' | 'boolean' | 'number' | 'string';
const kind = (v: unknown): Kind => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : (typeof v as Kind));
const numeric = (v: unknown) => typeof v === 'number' || (typeof v === 'string' && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(v));

/**
 * Where `actual` departs from `sample`: every key of a sample object must be in the actual object,
 * with the same JSON type (null on either side, and a number against a numeric string, are accepted:
 * the exchange itself mixes them). Arrays compare their first items; an empty side is not compared.
 */
export function shapeDiff(sample: unknown, actual: unknown, path = '$', opts: { types?: boolean } = {}): string[] {
  const ks = kind(sample);
  const ka = kind(actual);
  if (ks === 'null' || ka === 'null') return [];
  // A schema-style sample (placeholder strings for every value) is compared by its keys only.
  if (opts.types === false && ks !== 'object' && ks !== 'array') return [];
  if (ks !== ka && !(numeric(sample) && numeric(actual))) return [`${path}: sample has ${ks}, answer has ${ka}`];
  if (ks === 'array') {
    const s = sample as unknown[];
    const a = actual as unknown[];
    return s.length === 0 || a.length === 0 ? [] : shapeDiff(s[0], a[0], `${path}[0]`, opts);
  }
  if (ks !== 'object') return [];
  const s = sample as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  const out: string[] = [];
  for (const key of Object.keys(s)) {
    if (!(key in a)) out.push(`${path}.${key}: missing from the answer`);
    else out.push(...shapeDiff(s[key], a[key], `${path}.${key}`, opts));
  }
  return out;
}
