/**
 * Warm-up sensitivity (`mizan analyze warmup`), after freqtrade's recursive analysis: the same
 * backtest run with more and with less history before `from` than the strategies declare
 * (`warmup(params)`), recording every decision (the intents their handlers return at or after
 * `from`: kind, side, market, order type, prices, time). A strategy whose indicators are warm after
 * its declared warm-up decides the same with more history; a decision that changes with more history
 * means an indicator needs more candles than declared (an SMA or EMA longer than the warm-up, or one
 * that converges slowly, such as an EMA or Wilder's RSI). Less history than declared is run for
 * information: decisions changing there show the warm-up is needed; none changing, that it may be
 * larger than needed.
 */
import type { MizanConfig } from '../config/schema.js';
import type { StrategyInstance } from '../kernel/trading-core.js';
import type { Draft } from '../strategy/builders.js';
import type { AnyStrategyDefinition, HandlerResult, StrategyHandlers } from '../strategy/define.js';
import { loadStrategyInstances } from '../runtime/strategy-loader.js';
import { runBacktest, type BacktestOptions } from './run.js';

/** One decision: what an intent decided, without ids (a client id depends on what came before). */
interface Decision {
  strategy: string;
  /** Simulated time (ms) the handler returned it. */
  time: number;
  kind: string;
  symbol?: string;
  side?: string;
  type?: string;
  price?: string;
  stopPrice?: string;
}

interface WarmupRun {
  /** `declared`, `×2`, `×4`, `+N`, `half`. */
  label: string;
  /** Candles of warm-up asked for, per strategy instance. */
  warmup: Record<string, number>;
  /** Candles the data had before `from`, per market. */
  available: Record<string, number>;
  decisions: Decision[];
  /** More history than declared (a change here fails the analysis), or less (information). */
  longer: boolean;
}

interface RunComparison {
  run: WarmupRun;
  /** Decisions in one run and not the other (multiset difference, both ways). */
  changed: number;
  /** Strategy instances whose decisions changed. */
  strategies: string[];
  /** The first position where the two runs' decision lists differ (by time), with each side's decision there. */
  first?: { declared?: Decision; other?: Decision };
  /** The run had no more (or no less) history than the declared one: the data before `from` ran out. */
  sameHistory: boolean;
}

export interface WarmupAnalysis {
  declared: WarmupRun;
  comparisons: RunComparison[];
  /** No decision changed in a run with more history. */
  ok: boolean;
}

const key = (d: Decision) => [d.strategy, d.time, d.kind, d.symbol ?? '', d.side ?? '', d.type ?? '', d.price ?? '', d.stopPrice ?? ''].join('|');

function decisionOf(i: Draft, strategy: string, time: number): Decision {
  const d: Decision = { strategy, time, kind: i.kind };
  const x = i as Partial<Record<'symbol' | 'market' | 'side' | 'type', string>> & Partial<Record<'price' | 'stopPrice' | 'openPrice', { toFixed(): string }>>;
  const symbol = x.symbol ?? x.market;
  if (symbol !== undefined) d.symbol = symbol;
  if (x.side !== undefined) d.side = x.side;
  if (x.type !== undefined) d.type = x.type;
  const price = x.price ?? x.openPrice;
  if (price !== undefined) d.price = price.toFixed();
  if (x.stopPrice !== undefined) d.stopPrice = x.stopPrice.toFixed();
  return d;
}

/** The definition with `warmup` returning `candles` and every handler's intents recorded (at or after `fromMs`). */
function recording(def: AnyStrategyDefinition, candles: number, fromMs: number, out: Decision[]): AnyStrategyDefinition {
  return {
    ...def,
    warmup: () => candles,
    create(ctx) {
      const handlers = def.create(ctx);
      const record = (r: HandlerResult) => {
        const t = ctx.now();
        if (!r || t < fromMs) return;
        const list: readonly Draft[] = Array.isArray(r) ? (r as readonly Draft[]) : [r as Draft];
        for (const i of list) out.push(decisionOf(i, ctx.name, t));
      };
      const wrapped: StrategyHandlers = {};
      for (const name of Object.keys(handlers) as (keyof StrategyHandlers)[]) {
        const fn = handlers[name] as ((...a: unknown[]) => HandlerResult | Promise<HandlerResult>) | undefined;
        if (typeof fn !== 'function') continue;
        (wrapped as Record<string, unknown>)[name] = (...args: unknown[]) => {
          const r = fn.apply(handlers, args);
          if (r instanceof Promise) return r.then((v) => (record(v), v));
          record(r);
          return r;
        };
      }
      return wrapped;
    },
  };
}

export interface WarmupOptions extends Omit<BacktestOptions, 'instances' | 'params' | 'onProgress'> {
  /** Also run with this many candles more than declared. Default: none (100 when no strategy declares a warm-up). */
  extra?: number;
  /** Called before each run with its label. */
  onRun?(label: string, index: number, total: number): void;
}

/** The warm-up of each run: declared, ×2, ×4, declared + extra, half; the same warm-ups run once. */
export function warmupPlans(declared: Record<string, number>, extra: number | undefined): { label: string; warmup: Record<string, number>; longer: boolean }[] {
  const names = Object.keys(declared);
  const map = (f: (n: number) => number) => Object.fromEntries(names.map((n) => [n, f(declared[n]!)]));
  const any = names.some((n) => declared[n]! > 0);
  const plans = [
    { label: 'declared', warmup: map((n) => n), longer: false },
    { label: '×2', warmup: map((n) => 2 * n), longer: true },
    { label: '×4', warmup: map((n) => 4 * n), longer: true },
  ];
  const add = extra ?? (any ? undefined : 100);
  if (add !== undefined && add > 0) plans.push({ label: `+${add}`, warmup: map((n) => n + add), longer: true });
  if (any) plans.push({ label: 'half', warmup: map((n) => Math.floor(n / 2)), longer: false });
  const seen = new Set<string>();
  return plans.filter((p) => {
    const k = JSON.stringify(p.warmup);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function compare(base: WarmupRun, run: WarmupRun): RunComparison {
  const count = new Map<string, number>();
  for (const d of base.decisions) count.set(key(d), (count.get(key(d)) ?? 0) + 1);
  let changed = 0;
  const strategies = new Set<string>();
  for (const d of run.decisions) {
    const k = key(d);
    const n = count.get(k) ?? 0;
    if (n > 0) count.set(k, n - 1);
    else {
      changed++;
      strategies.add(d.strategy);
    }
  }
  for (const d of base.decisions) {
    const k = key(d);
    const n = count.get(k) ?? 0;
    if (n > 0) {
      changed += 1;
      count.set(k, n - 1);
      strategies.add(d.strategy);
    }
  }
  const c: RunComparison = { run, changed, strategies: [...strategies].sort(), sameHistory: JSON.stringify(run.available) === JSON.stringify(base.available) };
  const n = Math.max(base.decisions.length, run.decisions.length);
  for (let i = 0; i < n; i++) {
    const a = base.decisions[i];
    const b = run.decisions[i];
    if (a && b && key(a) === key(b)) continue;
    c.first = { ...(a ? { declared: a } : {}), ...(b ? { other: b } : {}) };
    break;
  }
  return c;
}

export async function analyzeWarmup(config: MizanConfig, opts: WarmupOptions = {}): Promise<WarmupAnalysis> {
  const bt = config.backtest;
  if (!bt) throw new Error('the config has no backtest section (data, from, to)');
  if (opts.extra !== undefined && !(Number.isInteger(opts.extra) && opts.extra > 0))
    throw new Error(`--extra ${opts.extra}: expected a whole number of candles above 0`);
  const fromMs = opts.from ?? bt.from;
  const base = await loadStrategyInstances(config);
  const { extra: _extra, onRun: _onRun, ...backtestOpts } = opts;
  const declared = Object.fromEntries(base.map((i) => [i.name, Math.max(0, Math.ceil(i.definition.warmup?.(i.params) ?? 0))]));
  const plans = warmupPlans(declared, opts.extra);
  const runs: WarmupRun[] = [];
  for (const [j, p] of plans.entries()) {
    opts.onRun?.(p.label, j, plans.length);
    const decisions: Decision[] = [];
    const instances: StrategyInstance[] = base.map((i) => ({ ...i, definition: recording(i.definition, p.warmup[i.name]!, fromMs, decisions) }));
    const run = await runBacktest(config, { ...backtestOpts, instances });
    const available = Object.fromEntries(run.result.data.series.map((s) => [s.symbol, s.warmupAvailable]));
    // In time order; decisions of one moment keep the order they were made in.
    decisions.sort((a, b) => a.time - b.time);
    runs.push({ label: p.label, warmup: p.warmup, available, decisions, longer: p.longer });
  }
  const [first, ...others] = runs as [WarmupRun, ...WarmupRun[]];
  const comparisons = others.map((r) => compare(first, r));
  return { declared: first, comparisons, ok: comparisons.every((c) => !c.run.longer || c.changed === 0) };
}

const utc = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';

/** A decision as one line: `12:05 UTC sma BUY MARKET BTCUSDT`. */
function describeDecision(d: Decision | undefined): string {
  if (!d) return '(no decision)';
  return [
    utc(d.time),
    d.strategy,
    d.kind === 'order' ? undefined : d.kind,
    d.side,
    d.type,
    d.symbol,
    d.price !== undefined ? `@ ${d.price}` : undefined,
    d.stopPrice !== undefined ? `stop ${d.stopPrice}` : undefined,
  ]
    .filter((x) => x !== undefined)
    .join(' ');
}

/** The analysis as text for the terminal. */
export function formatWarmupAnalysis(a: WarmupAnalysis): string {
  const lines: string[] = [];
  const names = Object.keys(a.declared.warmup);
  const hist = (r: WarmupRun) =>
    Object.entries(r.available)
      .map(([s, n]) => `${s} ${n}`)
      .join(', ');
  lines.push(`declared warm-up: ${names.map((n) => `${n} ${a.declared.warmup[n]} candle(s)`).join(', ')}`);
  const rows = [
    ['run', 'warm-up asked', 'history before from', 'decisions', 'changed'],
    [a.declared.label, names.map((n) => a.declared.warmup[n]).join('/'), hist(a.declared), String(a.declared.decisions.length), ''],
  ];
  for (const c of a.comparisons)
    rows.push([c.run.label, names.map((n) => c.run.warmup[n]).join('/'), hist(c.run), String(c.run.decisions.length), String(c.changed)]);
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) lines.push(r.map((x, i) => (i === 0 ? x.padEnd(w[i]!) : x.padStart(w[i]!))).join('  '));
  for (const c of a.comparisons) {
    if (c.sameHistory && c.run.longer)
      lines.push(`note: ${c.run.label}: the data has no more candles before from than the declared run used (${hist(c.run)}): it tells nothing`);
    if (c.changed === 0) continue;
    lines.push('');
    lines.push(`${c.run.label}: ${c.changed} decision(s) differ from the declared run (${c.strategies.join(', ')}); the first:`);
    lines.push(`  declared: ${describeDecision(c.first?.declared)}`);
    lines.push(`  ${c.run.label.padEnd(8)}: ${describeDecision(c.first?.other)}`);
    if (c.run.longer) {
      for (const s of c.strategies) {
        lines.push(
          `  likely cause: an indicator of ${s} needs more than its declared ${a.declared.warmup[s]} candle(s) of warm-up (a moving average longer than the warm-up, or one that converges slowly such as an EMA or RSI): raise warmup() in its definition`,
        );
      }
    } else {
      lines.push(`  (expected: with less history than declared the indicators are not warm yet)`);
    }
  }
  // Only when more history changed nothing: beside a FAIL (the warm-up is too short) it would say the opposite.
  for (const c of a.comparisons) {
    if (a.ok && !c.run.longer && c.changed === 0 && !c.sameHistory)
      lines.push(`note: ${c.run.label}: no decision changed with less history either: the declared warm-up may be more than the strategy needs`);
  }
  lines.push('');
  lines.push(
    a.ok
      ? 'ok: no decision changed with more history than declared'
      : 'FAIL: decisions change with more history than declared: the declared warm-up is too short',
  );
  return lines.join('\n');
}
