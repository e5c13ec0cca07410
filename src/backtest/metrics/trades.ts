/** Metrics of the closed trades and of the time in the market. */
import { ParameterError } from '../../core/errors.js';
import { na, ok, type ClosedTrade, type Metric } from './types.js';

/**
 * Closed trades as columns, one Float64Array per number: the metrics read a run's trades from here,
 * so a backtest of tens of thousands of trades makes no object per trade for them (`tradeColumns`
 * from ClosedTrade objects; result.ts fills them from its trade records).
 */
export interface TradeColumns {
  length: number;
  side: string[];
  entryTime: Float64Array;
  exitTime: Float64Array;
  entryPrice: Float64Array;
  exitPrice: Float64Array;
  quantity: Float64Array;
  pnl: Float64Array;
  pnlPct: Float64Array;
  fees: Float64Array;
}

const NUMBER_FIELDS = ['entryTime', 'exitTime', 'entryPrice', 'exitPrice', 'quantity', 'pnl', 'pnlPct', 'fees'] as const;

export function allocTradeColumns(n: number): TradeColumns {
  const f = () => new Float64Array(n);
  return {
    length: n,
    side: new Array<string>(n),
    entryTime: f(),
    exitTime: f(),
    entryPrice: f(),
    exitPrice: f(),
    quantity: f(),
    pnl: f(),
    pnlPct: f(),
    fees: f(),
  };
}

export function tradeColumns(trades: readonly ClosedTrade[]): TradeColumns {
  const c = allocTradeColumns(trades.length);
  trades.forEach((t, i) => {
    c.side[i] = t.side;
    for (const f of NUMBER_FIELDS) c[f][i] = t[f];
  });
  return c;
}

/** Throws a ParameterError naming the first bad field of the first bad trade. */
export function checkClosedTrades(trades: readonly ClosedTrade[]): void {
  trades.forEach((t, i) => {
    for (const f of NUMBER_FIELDS) {
      if (!Number.isFinite(t[f])) throw new ParameterError(`trades[${i}].${f}`, String(t[f]), 'a finite number');
    }
    if (t.exitTime < t.entryTime) throw new ParameterError(`trades[${i}].exitTime`, t.exitTime, `>= entryTime ${t.entryTime}`);
    if (t.side !== 'long' && t.side !== 'short') throw new ParameterError(`trades[${i}].side`, t.side, "'long' or 'short'");
  });
}

/** checkClosedTrades of trades given as columns. */
export function checkTrades(trades: TradeColumns): void {
  for (let i = 0; i < trades.length; i++) {
    for (const f of NUMBER_FIELDS) {
      const v = trades[f][i]!;
      if (!Number.isFinite(v)) throw new ParameterError(`trades[${i}].${f}`, String(v), 'a finite number');
    }
    const exit = trades.exitTime[i]!;
    const entry = trades.entryTime[i]!;
    if (exit < entry) throw new ParameterError(`trades[${i}].exitTime`, exit, `>= entryTime ${entry}`);
    const side = trades.side[i];
    if (side !== 'long' && side !== 'short') throw new ParameterError(`trades[${i}].side`, side, "'long' or 'short'");
  }
}

export interface TradeStats {
  trades: Metric;
  winRatePct: Metric;
  profitFactor: Metric;
  expectancy: Metric;
  sqn: Metric;
  avgTradePct: Metric;
  bestTradePct: Metric;
  worstTradePct: Metric;
  avgTradeDurationMs: Metric;
  maxTradeDurationMs: Metric;
}

export function tradeStats(trades: TradeColumns, minTradesForSqn: number): TradeStats {
  const n = trades.length;
  if (n === 0) {
    const r = na('no closed trades');
    return {
      trades: ok(0),
      winRatePct: r,
      profitFactor: r,
      expectancy: r,
      sqn: na(`0 closed trades; needs at least ${minTradesForSqn}`),
      avgTradePct: r,
      bestTradePct: r,
      worstTradePct: r,
      avgTradeDurationMs: r,
      maxTradeDurationMs: r,
    };
  }
  let wins = 0;
  let grossProfit = 0;
  let grossLoss = 0;
  let sumPnl = 0;
  let sumPct = 0;
  let best = -Infinity;
  let worst = Infinity;
  let sumDur = 0;
  let maxDur = 0;
  const { pnl, pnlPct, entryTime, exitTime } = trades;
  for (let i = 0; i < n; i++) {
    const p = pnl[i]!;
    const pct = pnlPct[i]!;
    if (p > 0) {
      wins++;
      grossProfit += p;
    } else if (p < 0) {
      grossLoss -= p;
    }
    sumPnl += p;
    sumPct += pct;
    if (pct > best) best = pct;
    if (pct < worst) worst = pct;
    const d = exitTime[i]! - entryTime[i]!;
    sumDur += d;
    if (d > maxDur) maxDur = d;
  }
  const mean = sumPnl / n;
  let sqn: Metric;
  if (n < minTradesForSqn) {
    sqn = na(`${n} closed trades; needs at least ${minTradesForSqn}`);
  } else {
    let ss = 0;
    for (let i = 0; i < n; i++) ss += (pnl[i]! - mean) ** 2;
    const sd = Math.sqrt(ss / (n - 1));
    sqn = sd > 0 ? ok((Math.sqrt(n) * mean) / sd) : na('every trade had the same pnl (standard deviation 0)');
  }
  return {
    trades: ok(n),
    winRatePct: ok((wins / n) * 100),
    profitFactor: grossLoss > 0 ? ok(grossProfit / grossLoss) : na(grossProfit > 0 ? 'no losing trades (gross loss is 0)' : 'no winning or losing trades'),
    expectancy: ok(mean),
    sqn,
    avgTradePct: ok(sumPct / n),
    bestTradePct: ok(best),
    worstTradePct: ok(worst),
    avgTradeDurationMs: ok(sumDur / n),
    maxTradeDurationMs: ok(maxDur),
  };
}

/**
 * Percent of [start, end] covered by the union of the intervals (each clipped to [start, end]), given
 * as `starts` and `ends` (checked when `checked` is false: `exposure[i]` names a bad one).
 * Overlapping intervals (two positions open at once) count once.
 */
export function exposurePct(starts: ArrayLike<number>, ends: ArrayLike<number>, start: number, end: number, checked: boolean): Metric {
  if (!(end > start)) return na('the equity curve spans no time');
  const n = starts.length;
  const cs = new Float64Array(n);
  const ce = new Float64Array(n);
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = starts[i]!;
    const b = ends[i]!;
    if (!checked && (!Number.isFinite(a) || !Number.isFinite(b) || b < a)) {
      throw new ParameterError(`exposure[${i}]`, `${a}..${b}`, 'finite start <= end');
    }
    const s = Math.max(a, start);
    const e = Math.min(b, end);
    if (e > s) {
      cs[order.length] = s;
      ce[order.length] = e;
      order.push(order.length);
    }
  }
  // By start, then end (intervals equal in both are the same numbers: their order does not matter).
  order.sort((x, y) => cs[x]! - cs[y]! || ce[x]! - ce[y]!);
  let covered = 0;
  let curS = NaN;
  let curE = NaN;
  for (const k of order) {
    const s = cs[k]!;
    const e = ce[k]!;
    if (curE === curE && s <= curE) {
      if (e > curE) curE = e;
      continue;
    }
    if (curE === curE) covered += curE - curS;
    curS = s;
    curE = e;
  }
  if (curE === curE) covered += curE - curS;
  return ok((covered / (end - start)) * 100);
}
