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
import type { TradeRecord } from './trades.js';

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

/** Rows of `trades` grouped by `key`, in the order of `order` first (keys it lacks follow, most trades first). */
function group(trades: readonly TradeRecord[], key: (t: TradeRecord) => string, order: readonly string[] = []): BreakdownRow[] {
  const acc = new Map<string, { trades: number; wins: number; pnl: Decimal; duration: number; unvalued: number }>();
  for (const t of trades) {
    const k = key(t);
    let a = acc.get(k);
    if (!a) acc.set(k, (a = { trades: 0, wins: 0, pnl: new Decimal(0), duration: 0, unvalued: 0 }));
    a.trades++;
    if (Number(t.pnlReference ?? t.pnl) > 0) a.wins++;
    a.duration += t.exitTime - t.entryTime;
    const p = referencePnl(t);
    if (p === undefined) a.unvalued++;
    else a.pnl = a.pnl.plus(p);
  }
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
      pnl: a.pnl.toSignificantDigits(15).toFixed(),
      avgDurationMs: a.duration / a.trades,
      unvalued: a.unvalued,
    }));
}

/** The three breakdowns; strategies and markets in the run's order, exit reasons by count. */
export function computeBreakdowns(trades: readonly TradeRecord[], reference: string, strategies: readonly string[] = [], markets: readonly string[] = []): Breakdowns {
  return {
    reference,
    byStrategy: group(trades, (t) => t.strategy, strategies),
    byMarket: group(trades, (t) => t.symbol, markets),
    byExit: group(trades, (t) => t.exit),
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
  const cells = rows.map((r) => [r.key, String(r.trades), r.winRatePct.toFixed(1), formatAmount(Number(r.pnl), digits) + (r.unvalued > 0 ? ` (+${r.unvalued} unvalued)` : ''), formatDuration(r.avgDurationMs)]);
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
