/**
 * What travels with a trial through the queue, and how a worker checks it has the same code:
 * - the config, as JSON (Decimals tagged), without its secrets (exchange.apiKey,
 *   exchange.stream.privateKey, server: a backtest needs none of them);
 * - the candles, content-addressed: one buffer (v8 serialization of the columns) named by its SHA-256;
 * - the code: mizan's version and a hash of its running module tree, and a hash of each strategy file
 *   the config uses (the file itself, not what it imports).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize, serialize } from 'node:v8';
import { STRATEGY_FILE_RE } from '../config/load.js';
import type { MizanConfig } from '../config/schema.js';
import { Decimal } from '../core/decimal.js';
import type { DataOptions } from '../backtest/load.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { STRATEGIES_DIR } from '../runtime/strategy-loader.js';

export type Columns = NonNullable<DataOptions['columns']>;

export const sha256 = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

/** The config as JSON for a worker: Decimals as {"$decimal": "…"}, secrets and the server section left out. */
export function configToWire(config: MizanConfig): string {
  const { server: _server, source: _source, ...rest } = config;
  const { apiKey: _key, ...exchange } = rest.exchange;
  const { privateKey: _pk, ...stream } = exchange.stream;
  const stripped = {
    ...rest,
    exchange: { ...exchange, stream },
    // A worker resolves strategy files itself (configFromWire); the coordinator's paths mean nothing there.
    strategies: rest.strategies.map(({ strategyFile: _f, ...s }) => s),
  };
  const walk = (v: unknown, path: string): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Decimal.isDecimal(v)) return { $decimal: (v as Decimal).toFixed() };
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${path}[${i}]`));
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null)
      throw new Error(`config ${path}: a ${(v as object).constructor?.name ?? 'value'} cannot be sent to a queue worker`);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, path ? `${path}.${k}` : k)]));
  };
  return JSON.stringify(walk(stripped, ''));
}

/**
 * The config a worker runs: strategy files (`strategy: ./mine.ts`) resolved against `strategiesFrom`
 * (the worker's `--strategies-from`, standing for the coordinator's config folder).
 */
export function configFromWire(json: string, strategiesFrom: string): MizanConfig {
  const parsed = JSON.parse(json, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === '$decimal') return new Decimal((v as { $decimal: string }).$decimal);
    }
    return v;
  }) as Omit<MizanConfig, 'source'>;
  return {
    ...parsed,
    strategies: parsed.strategies.map((s) =>
      STRATEGY_FILE_RE.test(s.strategy) ? { ...s, strategyFile: isAbsolute(s.strategy) ? s.strategy : resolve(strategiesFrom, s.strategy) } : s,
    ),
    source: { baseDir: strategiesFrom },
  } as MizanConfig;
}

/** The candle columns as one buffer, and its SHA-256 (the same columns give the same bytes). */
export function packColumns(columns: Columns): { buf: Buffer; hash: string } {
  const buf = serialize(columns);
  return { buf, hash: sha256(buf) };
}

export function unpackColumns(buf: Buffer): Columns {
  return deserialize(buf) as Columns;
}

/** The extension of mizan's modules as it runs (`.ts` from the sources, `.js` from the build). */
const OWN_EXT = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
const CODE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function* codeFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* codeFiles(p);
    else if (/\.(m?js|m?ts)$/.test(e.name) && !/\.d\.m?ts$/.test(e.name)) yield p;
  }
}

export interface CodeId {
  version: string;
  hash: string;
}

let ownCode: CodeId | undefined;
/** mizan's version and a SHA-256 over its running module tree (src/ or dist/src/: paths and contents). */
export function mizanCode(): CodeId {
  if (ownCode) return ownCode;
  const h = createHash('sha256');
  for (const f of codeFiles(CODE_ROOT))
    h.update(`${relative(CODE_ROOT, f)}\0`)
      .update(readFileSync(f))
      .update('\0');
  const version = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  ownCode = { version, hash: h.digest('hex') };
  return ownCode;
}

export interface StrategyCode {
  /** The instance name. */
  name: string;
  /** `strategy:` as written: a bundled name or a file path. */
  strategy: string;
  /** SHA-256 of the strategy file, or `missing: <path>` when there is none. */
  hash: string;
}

/** The strategy files a config uses, each with its SHA-256 (of the file as it is on this machine). */
export function strategyCode(config: MizanConfig): StrategyCode[] {
  return config.strategies.map((s) => {
    const path = s.strategyFile ?? join(STRATEGIES_DIR, `${s.strategy}${OWN_EXT}`);
    return { name: s.name, strategy: s.strategy, hash: existsSync(path) ? sha256(readFileSync(path)) : `missing: ${path}` };
  });
}

/**
 * Why this machine's code differs from the coordinator's (undefined when it is the same). Both hashes
 * are named, so the operator sees which side runs what.
 */
export function codeMismatch(want: { mizan: CodeId; strategies: StrategyCode[] }, have: { mizan: CodeId; strategies: StrategyCode[] }): string | undefined {
  const short = (h: string) => (h.startsWith('missing') ? h : h.slice(0, 16));
  if (want.mizan.version !== have.mizan.version || want.mizan.hash !== have.mizan.hash) {
    return `mizan ${have.mizan.version} (code ${short(have.mizan.hash)}) on this worker, mizan ${want.mizan.version} (code ${short(want.mizan.hash)}) on the coordinator`;
  }
  for (const w of want.strategies) {
    const h = have.strategies.find((x) => x.name === w.name);
    if (!h || h.hash !== w.hash)
      return `strategy ${w.name} (${w.strategy}) is ${short(h?.hash ?? 'missing')} on this worker, ${short(w.hash)} on the coordinator`;
  }
  return undefined;
}
