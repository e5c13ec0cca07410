/**
 * The trades of a backtest broken down by strategy instance, by market and by how they ended (exit
 * reason: `signal`, `stop loss`, `take profit`, `close at end`, `open at end`, a margin close reason,
 * `liquidation`): per row the trades, the wins (pnl > 0, as the win-rate metric counts them), the
 * win rate, the summed pnl in the reference asset (exact decimal sums) and the mean duration.
 * A trade in another quote asset that the run could not value in the reference asset counts in
 * trades, wins and duration but not in pnl (`unvalued` says how many).
 */
import { Decimal } from '../core/decimal.js';
import { formatDuration } from './metrics/index.js';
import type { TradeRecord } from '../portfolio/trade-record.js';

export interface BreakdownRow {
  /** The strategy instance, the market or the exit reason. */
  key: string;
  trades: number;
  wins: number;
  /** wins / trades · 100. */
  winRatePct: number;
  /** Summed pnl net of fees, in the reference asset. */
  pnl: string;
  /** Mean of exit − entry time over the row's trades (ms). */
  avgDurationMs: number;
  /** Trades whose pnl could not be valued in the reference asset (left out of `pnl`). */
  unvalued: number;
}

export interface Breakdowns {
  /** The asset of `pnl`. */
  reference: string;
  byStrategy: BreakdownRow[];
  byMarket: BreakdownRow[];
  byExit: BreakdownRow[];
}

/** pnl of a trade in the reference asset, or undefined when the run could not value it. */
function referencePnl(t: TradeRecord): string | undefined {
  if (t.pnlReference !== undefined) return t.pnlReference;
  return t.quote === undefined ? t.pnl : undefined;
}

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Decimal strings as BigInts at one scale (the widest of them), for exact sums; undefined when one is
 * not a plain decimal (then Decimal sums them).
 */
function scaled(values: readonly (string | undefined)[]): { scale: number; ints: (bigint | undefined)[] } | undefined {
  let scale = 0;
  for (const v of values) {
    if (v === undefined) continue;
    if (!PLAIN_DECIMAL.test(v)) return undefined;
    const dot = v.indexOf('.');
    if (dot >= 0 && v.length - dot - 1 > scale) scale = v.length - dot - 1;
  }
  const ints = values.map((v) => {
    if (v === undefined) return undefined;
    const dot = v.indexOf('.');
    return BigInt(dot < 0 ? v + '0'.repeat(scale) : v.slice(0, dot) + v.slice(dot + 1) + '0'.repeat(scale - (v.length - dot - 1)));
  });
  return { scale, ints };
}

/**
 * The exact sum of decimal strings, as Decimal.plus one by one gives it: a BigInt sum at the widest
 * scale. That is the Decimal sum whenever no partial sum needs more than Decimal.precision digits
 * (checked with the sum of the absolute values); else, or with a string that is not a plain decimal,
 * Decimal.plus itself sums them.
 */
export function sumDecimals(values: readonly string[]): Decimal {
  const s = scaled(values);
  return (s && sumScaled(s.ints, s.scale)) ?? sumSlow(values);
}

function sumSlow(values: readonly string[]): Decimal {
  return values.reduce((a, x) => a.plus(x), new Decimal(0));
}

/** The sum of BigInts at `scale` as a Decimal, or undefined when Decimal.plus could have rounded a partial sum. */
function sumScaled(ints: readonly (bigint | undefined)[], scale: number): Decimal | undefined {
  let sum = 0n;
  let abs = 0n;
  for (const m of ints) {
    if (m === undefined) continue;
    sum += m;
    abs += m < 0n ? -m : m;
  }
  if (abs.toString().length > Decimal.precision) return undefined;
  const neg = sum < 0n;
  const d = (neg ? -sum : sum).toString().padStart(scale + 1, '0');
  return new Decimal(`${neg ? '-' : ''}${scale > 0 ? `${d.slice(0, d.length - scale)}.${d.slice(d.length - scale)}` : d}`);
}

/** Per trade, what the rows add up (read once for the three breakdowns). */
interface Parsed {
  trades: readonly TradeRecord[];
  win: boolean[];
  pnl: (string | undefined)[];
  scaled: { scale: number; ints: (bigint | undefined)[] } | undefined;
}

function parse(trades: readonly TradeRecord[]): Parsed {
  const pnl = trades.map(referencePnl);
  return { trades, win: trades.map((t) => Number(t.pnlReference ?? t.pnl) > 0), pnl, scaled: scaled(pnl) };
}

/** Rows of `trades` grouped by `key`, in the order of `order` first (keys it lacks follow, most trades first). */
function group(p: Parsed, key: (t: TradeRecord) => string, order: readonly string[] = []): BreakdownRow[] {
  const acc = new Map<string, { trades: number; wins: number; members: number[]; duration: number; unvalued: number }>();
  p.trades.forEach((t, i) => {
    const k = key(t);
    let a = acc.get(k);
    if (!a) acc.set(k, (a = { trades: 0, wins: 0, members: [], duration: 0, unvalued: 0 }));
    a.trades++;
    if (p.win[i]) a.wins++;
    a.duration += t.exitTime - t.entryTime;
    if (p.pnl[i] === undefined) a.unvalued++;
    else a.members.push(i);
  });
  const sum = (members: number[]): Decimal =>
    (p.scaled &&
      sumScaled(
        members.map((i) => p.scaled!.ints[i]),
        p.scaled.scale,
      )) ??
    sumSlow(members.map((i) => p.pnl[i]!));
  const rank = (k: string) => {
    const i = order.indexOf(k);
    return i < 0 ? order.length : i;
  };
  return [...acc.entries()]
    .sort(([ka, a], [kb, b]) => rank(ka) - rank(kb) || b.trades - a.trades || (ka < kb ? -1 : ka > kb ? 1 : 0))
    .map(([k, a]) => ({
      key: k,
      trades: a.trades,
      wins: a.wins,
      winRatePct: (a.wins / a.trades) * 100,
      pnl: sum(a.members).toSignificantDigits(15).toFixed(),
      avgDurationMs: a.duration / a.trades,
      unvalued: a.unvalued,
    }));
}

/** The three breakdowns; strategies and markets in the run's order, exit reasons by count. */
export function computeBreakdowns(
  trades: readonly TradeRecord[],
  reference: string,
  strategies: readonly string[] = [],
  markets: readonly string[] = [],
): Breakdowns {
  const p = parse(trades);
  return {
    reference,
    byStrategy: group(p, (t) => t.strategy, strategies),
    byMarket: group(p, (t) => t.symbol, markets),
    byExit: group(p, (t) => t.exit),
  };
}

/** Money for a table: thousands grouped, 2 decimals (8 below 1), sign kept. */
export function formatAmount(v: number, digits?: number): string {
  const abs = Math.abs(v);
  const d = digits ?? (abs >= 1 || abs === 0 ? 2 : 8);
  const [int, frac] = abs.toFixed(d).split('.') as [string, string | undefined];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const neg = v < 0 && Number(abs.toFixed(d)) !== 0;
  return (neg ? '-' : '') + grouped + (frac !== undefined ? `.${frac}` : '');
}

/** Decimals of a breakdown's pnl column: 2, or 8 when every amount is below 1 (a run in a coin worth little). */
export function pnlDigits(rows: readonly BreakdownRow[]): number {
  return rows.some((r) => Math.abs(Number(r.pnl)) >= 1) ? 2 : 8;
}

/** Styles a cell of the terminal tables (colours on a TTY, identity otherwise). */
export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  good(s: string): string;
  bad(s: string): string;
  warn(s: string): string;
}

export const PLAIN: Paint = { bold: (s) => s, dim: (s) => s, good: (s) => s, bad: (s) => s, warn: (s) => s };

const sgr = (code: string) => (s: string) => `\u001b[${code}m${s}\u001b[0m`;
export const ANSI: Paint = { bold: sgr('1'), dim: sgr('2'), good: sgr('32'), bad: sgr('31'), warn: sgr('33') };

/** Colours when the stream is a terminal and NO_COLOR is unset or empty (https://no-color.org). */
export function paintFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Paint {
  return stream.isTTY === true && !env.NO_COLOR ? ANSI : PLAIN;
}

/** One breakdown as a terminal table: `title` over columns key, trades, win %, pnl, avg duration. */
export function formatBreakdown(title: string, rows: readonly BreakdownRow[], reference: string, paint: Paint = PLAIN): string[] {
  if (rows.length === 0) return [];
  const head = [title, 'trades', 'win %', `pnl ${reference}`, 'avg duration'];
  const digits = pnlDigits(rows);
  const cells = rows.map((r) => [
    r.key,
    String(r.trades),
    r.winRatePct.toFixed(1),
    formatAmount(Number(r.pnl), digits) + (r.unvalued > 0 ? ` (+${r.unvalued} unvalued)` : ''),
    formatDuration(r.avgDurationMs),
  ]);
  const w = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((x, i) => (i === 0 ? x.padEnd(w[i]!) : x.padStart(w[i]!))).join('  ');
  const out = [paint.bold(line(head))];
  rows.forEach((r, j) => {
    const c = cells[j]!;
    const text = line(c);
    // Colour the pnl cell only, after padding (escape codes take no columns).
    const start = text.length - w[4]! - 2 - w[3]!;
    const pnlCell = text.slice(start, start + w[3]!);
    const p = Number(r.pnl);
    const painted = p > 0 ? paint.good(pnlCell) : p < 0 ? paint.bad(pnlCell) : pnlCell;
    out.push(text.slice(0, start) + painted + text.slice(start + w[3]!));
  });
  return out;
}
