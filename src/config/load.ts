/**
 * Loading a configuration: YAML (document API, for line numbers) -> `${ENV}` substitution ->
 * schema -> cross-field checks -> defaults that depend on the mode -> relative paths resolved.
 * Every problem is collected and thrown at once as a ConfigError.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { clientIdPrefix } from '../execution/client-id.js';
import { crossCheck } from './checks.js';
import { substituteEnv } from './env.js';
import { resolutionToSeconds } from './fields.js';
import type { ConfigIssue, PathSegment } from './issues.js';
import { ConfigError } from './issues.js';
import { configSchema } from './schema.js';
import type { MizanConfig, ParsedConfig } from './schema.js';
import { convertIssue, DEFAULT_MESSAGE } from './zod-issues.js';

export interface ConfigOptions {
  /** Variables for `${NAME}` references. Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Market symbols that exist (see CheckOptions). */
  knownMarkets?: readonly string[];
  /** Accept a literal API key (same as exchange.allowLiteralApiKey: true). */
  allowLiteralApiKey?: boolean;
  /** Directory relative paths are resolved against. Default: the current working directory. */
  baseDir?: string;
  /**
   * Directory a relative strategy file path (`strategy: ./strategies/mine.ts`) is resolved against.
   * Default: baseDir; loadConfig: baseDir when given, else the config file's folder.
   */
  strategyBaseDir?: string;
  /** Name used in the error message (the file path for loadConfig). */
  source?: string;
}

/** `strategies[1].schedule.cron` -> ['strategies', 1, 'schedule', 'cron']. */
export function parsePath(path: string): PathSegment[] {
  const out: PathSegment[] = [];
  const re = /([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  for (const m of path.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(m[3]) as string);
  }
  return out;
}

function lineOf(doc: Document, lc: LineCounter, path: string): number | undefined {
  const segs = parsePath(path);
  for (let k = segs.length; k > 0; k--) {
    const node = doc.getIn(segs.slice(0, k), true) as { range?: [number, number, number] } | undefined;
    if (node && typeof node === 'object' && node.range) return lc.linePos(node.range[0]).line;
  }
  return undefined;
}

export function parseConfig(text: string, opts: ConfigOptions = {}): MizanConfig {
  const source = opts.source ?? 'config';
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => ({ path: '', message: `YAML syntax: ${e.message.split('\n')[0] ?? e.code}`, line: lc.linePos(e.pos[0]).line })),
      source,
    );
  }
  const original: unknown = doc.toJS({ maxAliasCount: 100 });
  if (original === null || typeof original !== 'object' || Array.isArray(original)) {
    throw new ConfigError([{ path: '', message: 'the file must be a YAML mapping with mode, exchange, strategies, ...' }], source);
  }
  const sub = substituteEnv(original, opts.env ?? process.env);
  const parsed = configSchema.safeParse(sub.value, { error: () => DEFAULT_MESSAGE });
  const envPaths = new Set(sub.issues.map((i) => i.path));
  const issues: ConfigIssue[] = [...sub.issues];
  if (!parsed.success) {
    const ctx = { schema: configSchema, data: sub.value, written: sub.written };
    for (const zi of parsed.error.issues) for (const i of convertIssue(zi, ctx)) if (!envPaths.has(i.path)) issues.push(i);
  }
  issues.push(...crossCheck(sub.value, original, opts));

  const seen = new Set<string>();
  const unique = issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  if (unique.length > 0 || !parsed.success) {
    for (const i of unique) {
      if (i.line === undefined && i.path) {
        const line = lineOf(doc, lc, i.path);
        if (line !== undefined) i.line = line;
      }
    }
    unique.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    throw new ConfigError(unique, source);
  }
  const baseDir = opts.baseDir ?? process.cwd();
  return finalize(parsed.data, baseDir, opts.strategyBaseDir ?? baseDir);
}

function finalize(p: ParsedConfig, baseDir: string, strategyBaseDir: string): MizanConfig {
  const abs = (f: string) => (f === ':memory:' || isAbsolute(f) ? f : resolve(baseDir, f));
  const strategies = p.strategies.map((s) => {
    const isFile = /\.(ts|js|mjs|mts)$/.test(s.strategy);
    return {
      ...s,
      clientIdPrefix: clientIdPrefix(s.name),
      ...(isFile ? { strategyFile: isAbsolute(s.strategy) ? s.strategy : resolve(strategyBaseDir, s.strategy) } : {}),
      resolutionSeconds: resolutionToSeconds(s.resolution),
    };
  });
  const backtest = p.backtest && {
    ...p.backtest,
    data: p.backtest.data.map((e) => (e.file === undefined ? e : isAbsolute(e.file) ? e : { ...e, file: abs(e.file), fileAsWritten: e.file })),
  };
  return {
    ...p,
    exchange: { ...p.exchange, simulator: p.exchange.simulator ?? p.mode !== 'live' },
    simulator: { ...p.simulator, data: abs(p.simulator.data) },
    strategies,
    ...(backtest ? { backtest } : {}),
    journal: { file: abs(p.journal.file) },
    logging: p.logging.file !== undefined ? { ...p.logging, file: abs(p.logging.file) } : p.logging,
    source: { baseDir },
  };
}

/** Read and parse a YAML configuration file. Throws ConfigError listing every problem. */
export async function loadConfig(file: string, opts: ConfigOptions = {}): Promise<MizanConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError([{ path: '', message: `cannot read the file (${code})` }], file);
  }
  const config = parseConfig(text, { ...opts, source: opts.source ?? file, strategyBaseDir: opts.strategyBaseDir ?? opts.baseDir ?? dirname(resolve(file)) });
  return { ...config, source: { ...config.source, file: resolve(file) } };
}
