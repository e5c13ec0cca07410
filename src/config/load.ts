/**
 * Loading a configuration: YAML (document API, for line numbers) -> `${ENV}` substitution ->
 * schema -> cross-field checks -> defaults that depend on the mode -> relative paths resolved.
 * Every problem is collected and thrown at once as a ConfigError.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import type { Document } from 'yaml';
import { clientIdPrefix } from '../execution/client-id.js';
import { crossCheck } from './checks.js';
import { resolveAccountKeys } from './accounts.js';
import { secretsOf, substituteEnv } from './env.js';
import { resolutionToSeconds } from './fields.js';
import type { ConfigIssue, PathSegment } from './issues.js';
import { ConfigError } from './issues.js';
import { configSchema, DEFAULT_JOURNAL_FILE } from './schema.js';
import type { MizanConfig, ParsedConfig } from './schema.js';
import { convertIssue, DEFAULT_MESSAGE } from './zod-issues.js';
import { yamlData } from './yaml-read.js';

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
   * Default: baseDir; for a file (loadConfig, inspectConfigFile): baseDir when given, else the config
   * file's folder.
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

/**
 * What a file says and every problem of its own (YAML, schema, cross-field checks, markets), without
 * throwing: `mizan check` goes on to check the strategy modules and their parameters of a file that
 * has problems here, so one run lists every problem it can reach.
 */
export interface ConfigInspection {
  /** The config, when the file has none of these problems. */
  config?: MizanConfig;
  /** Each with its line when known; sorted by line. */
  issues: ConfigIssue[];
  /** The data as read, environment references substituted (undefined when the file is not a YAML mapping). */
  data: unknown;
  /** Relative paths of the file are resolved against this directory. */
  baseDir: string;
  /** Relative strategy file paths are resolved against this directory. */
  strategyBaseDir: string;
  /** The line of a path (`strategies[0].params.fast`) in the file, or of its nearest parent written there. */
  lineOf(path: string): number | undefined;
  /**
   * Paths where a secret was kept out of the data (each has its issue): the data holds the reference
   * as written there, so what a later stage says of that value (not a number, not found) is noise.
   */
  withheld?: ReadonlySet<string>;
}

export function inspectConfig(text: string, opts: ConfigOptions = {}): ConfigInspection {
  const baseDir = opts.baseDir ?? process.cwd();
  const strategyBaseDir = opts.strategyBaseDir ?? baseDir;
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false, uniqueKeys: true });
  const lineAt = (path: string) => lineOf(doc, lc, path);
  if (doc.errors.length > 0) {
    return {
      issues: doc.errors.map((e) => ({ path: '', message: `YAML syntax: ${e.message.split('\n')[0] ?? e.code}`, line: lc.linePos(e.pos[0]).line })),
      data: undefined,
      baseDir,
      strategyBaseDir,
      lineOf: () => undefined,
    };
  }
  const read = yamlData(doc, lc);
  if (!('value' in read)) return { issues: read.issues, data: undefined, baseDir, strategyBaseDir, lineOf: () => undefined };
  const original = read.value;
  if (original === null || typeof original !== 'object' || Array.isArray(original)) {
    return {
      issues: [{ path: '', message: 'the file must be a YAML mapping with mode, exchange, strategies, ...' }],
      data: undefined,
      baseDir,
      strategyBaseDir,
      lineOf: () => undefined,
    };
  }
  const sub = substituteEnv(original, opts.env ?? process.env);
  // jitless: zod's compiled object parsers pay off from the second parse of a schema; a config is
  // parsed once per process, and compiling them cost more than the parse (the time to the first candle).
  const parsed = configSchema.safeParse(sub.value, { error: () => DEFAULT_MESSAGE, jitless: true });
  const envPaths = new Set([...sub.issues.map((i) => i.path), ...read.reported]);
  const issues: ConfigIssue[] = [...read.issues, ...sub.issues];
  if (!parsed.success) {
    const ctx = { schema: configSchema, data: sub.value, written: sub.written };
    for (const zi of parsed.error.issues) for (const i of convertIssue(zi, ctx)) if (!envPaths.has(i.path)) issues.push(i);
  }
  issues.push(...crossCheck(sub.value, original, opts));

  const unique = withLines(dedupeIssues(issues), lineAt);
  if (unique.length > 0 || !parsed.success) return { issues: unique, data: sub.value, baseDir, strategyBaseDir, lineOf: lineAt, withheld: sub.withheld };
  const config = { ...finalize(parsed.data, baseDir, strategyBaseDir), accounts: resolveAccountKeys(parsed.data.accounts, opts.env ?? process.env) };
  return { config, issues: [], data: sub.value, baseDir, strategyBaseDir, lineOf: lineAt };
}

/** The same problem reported twice (by the schema and a cross-field check) is listed once. */
export function dedupeIssues(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const seen = new Set<string>();
  return issues.filter((i) => {
    const k = `${i.path}\u0000${i.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Line numbers filled in where missing, then sorted by line (unknown lines last, in their order). */
export function withLines(issues: ConfigIssue[], lineAt: (path: string) => number | undefined): ConfigIssue[] {
  for (const i of issues) {
    if (i.line === undefined && i.path) {
      const line = lineAt(i.path);
      if (line !== undefined) i.line = line;
    }
  }
  return issues.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
}

export function parseConfig(text: string, opts: ConfigOptions = {}): MizanConfig {
  const r = inspectConfig(text, opts);
  if (!r.config) throw new ConfigError(r.issues, opts.source ?? 'config');
  return r.config;
}

/** A `strategy` that names a file (resolved against the strategy base directory) rather than a bundled strategy. */
export const STRATEGY_FILE_RE = /\.(ts|js|mjs|mts)$/;

function finalize(p: ParsedConfig, baseDir: string, strategyBaseDir: string): MizanConfig {
  const abs = (f: string) => (f === ':memory:' || isAbsolute(f) ? f : resolve(baseDir, f));
  const strategies = p.strategies.map((s) => {
    const isFile = STRATEGY_FILE_RE.test(s.strategy);
    return {
      ...s,
      clientIdPrefix: clientIdPrefix(s.name),
      ...(isFile ? { strategyFile: isAbsolute(s.strategy) ? s.strategy : resolve(strategyBaseDir, s.strategy) } : {}),
      resolutionSeconds: resolutionToSeconds(s.resolution),
      candleSeconds: [...new Set((s.candles ?? []).map(resolutionToSeconds))].filter((r) => r !== resolutionToSeconds(s.resolution)),
    };
  });
  const { backtest: parsedBacktest, ...rest } = p;
  const backtest: MizanConfig['backtest'] = parsedBacktest && {
    ...parsedBacktest,
    data: parsedBacktest.data.flatMap((e) =>
      e.kind === 'book' ? [] : [e.file === undefined ? e : isAbsolute(e.file) ? e : { ...e, file: abs(e.file), fileAsWritten: e.file }],
    ),
    recordings: parsedBacktest.data.flatMap((e) => (e.kind === 'book' ? [{ ...e, dir: abs(e.dir) }] : [])),
  };
  return {
    ...rest,
    exchange: { ...p.exchange, simulator: p.exchange.simulator ?? p.mode !== 'live' },
    simulator: p.simulator.data === undefined ? p.simulator : { ...p.simulator, data: abs(p.simulator.data) },
    strategies,
    ...(backtest ? { backtest } : {}),
    journal: { file: abs(p.journal.file) },
    logging: p.logging.file !== undefined ? { ...p.logging, file: abs(p.logging.file) } : p.logging,
    source: { baseDir },
  };
}

/** Read and parse a YAML configuration file. Throws ConfigError listing every problem. */
export async function loadConfig(file: string, opts: ConfigOptions = {}): Promise<MizanConfig> {
  const r = await inspectConfigFile(file, opts);
  if (!r.config) throw new ConfigError(r.issues, opts.source ?? file);
  return r.config;
}

/** inspectConfig of a file (an unreadable file is one issue). */
export async function inspectConfigFile(file: string, opts: ConfigOptions = {}): Promise<ConfigInspection> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    const baseDir = opts.baseDir ?? process.cwd();
    return {
      issues: [{ path: '', message: `cannot read the file (${code})` }],
      data: undefined,
      baseDir,
      strategyBaseDir: opts.strategyBaseDir ?? baseDir,
      lineOf: () => undefined,
    };
  }
  const r = inspectConfig(text, { ...opts, source: opts.source ?? file, strategyBaseDir: opts.strategyBaseDir ?? opts.baseDir ?? dirname(resolve(file)) });
  return r.config ? { ...r, config: { ...r.config, source: { ...r.config.source, file: resolve(file) } } } : r;
}

/**
 * The journal a config file names (`journal.file`, or the default), as an absolute path, reading
 * nothing else of it: `mizan halt --config live.yaml` must reach a running bot's journal even in a
 * shell without the API key's variable, or while another part of the file has a problem.
 */
export function journalFileOf(file: string, opts: Pick<ConfigOptions, 'env' | 'baseDir'> = {}): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError([{ path: '', message: `cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})` }], file);
  }
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => ({ path: '', message: `YAML syntax: ${e.message.split('\n')[0] ?? e.code}`, line: lc.linePos(e.pos[0]).line })),
      file,
    );
  }
  const written: unknown = doc.getIn(['journal', 'file']);
  if (written === undefined || written === null) return resolve(opts.baseDir ?? process.cwd(), DEFAULT_JOURNAL_FILE);
  if (typeof written !== 'string' || written === '') {
    throw new ConfigError(
      [
        {
          path: 'journal.file',
          message: `${JSON.stringify(written)} is not a file path`,
          value: written,
          ...(lineOf(doc, lc, 'journal.file') !== undefined ? { line: lineOf(doc, lc, 'journal.file')! } : {}),
        },
      ],
      file,
    );
  }
  // The file's secret variables, so a journal path that references one is refused here too.
  const env = opts.env ?? process.env;
  let whole: unknown = {};
  try {
    whole = doc.toJS({ maxAliasCount: 100 });
  } catch {
    // an alias bomb: the documented secret variables still count
  }
  const sub = substituteEnv(written, env, secretsOf(whole, env));
  if (sub.issues.length)
    throw new ConfigError(
      sub.issues.map((i) => ({ ...i, path: 'journal.file' })),
      file,
    );
  const path = sub.value as string;
  return path === ':memory:' || isAbsolute(path) ? path : resolve(opts.baseDir ?? process.cwd(), path);
}
