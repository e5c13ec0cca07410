/** Metrics of the closed trades and of the time in the market. */
import { ParameterError } from '../../core/errors.js';
import { na, ok, type ClosedTrade, type Interval, type Metric } from './types.js';

export function checkTrades(trades: readonly ClosedTrade[]): void {
  trades.forEach((t, i) => {
    for (const f of ['entryTime', 'exitTime', 'entryPrice', 'exitPrice', 'quantity', 'pnl', 'pnlPct', 'fees'] as const) {
      if (!Number.isFinite(t[f])) throw new ParameterError(`trades[${i}].${f}`, String(t[f]), 'a finite number');
    }
    if (t.exitTime < t.entryTime) throw new ParameterError(`trades[${i}].exitTime`, t.exitTime, `>= entryTime ${t.entryTime}`);
    if (t.side !== 'long' && t.side !== 'short') throw new ParameterError(`trades[${i}].side`, t.side, "'long' or 'short'");
  });
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

export function tradeStats(trades: readonly ClosedTrade[], minTradesForSqn: number): TradeStats {
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
  for (const t of trades) {
    if (t.pnl > 0) {
      wins++;
      grossProfit += t.pnl;
    } else if (t.pnl < 0) {
      grossLoss -= t.pnl;
    }
    sumPnl += t.pnl;
    sumPct += t.pnlPct;
    if (t.pnlPct > best) best = t.pnlPct;
    if (t.pnlPct < worst) worst = t.pnlPct;
    const d = t.exitTime - t.entryTime;
    sumDur += d;
    if (d > maxDur) maxDur = d;
  }
  const mean = sumPnl / n;
  let sqn: Metric;
  if (n < minTradesForSqn) {
    sqn = na(`${n} closed trades; needs at least ${minTradesForSqn}`);
  } else {
    let ss = 0;
    for (const t of trades) ss += (t.pnl - mean) ** 2;
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
 * Percent of [start, end] covered by the union of the intervals (each clipped to [start, end]).
 * Overlapping intervals (two positions open at once) count once.
 */
export function exposurePct(intervals: readonly Interval[], start: number, end: number): Metric {
  if (!(end > start)) return na('the equity curve spans no time');
  const clipped: Interval[] = [];
  intervals.forEach((iv, i) => {
    if (!Number.isFinite(iv.start) || !Number.isFinite(iv.end) || iv.end < iv.start) {
      throw new ParameterError(`exposure[${i}]`, `${iv.start}..${iv.end}`, 'finite start <= end');
    }
    const s = Math.max(iv.start, start);
    const e = Math.min(iv.end, end);
    if (e > s) clipped.push({ start: s, end: e });
  });
  clipped.sort((a, b) => a.start - b.start || a.end - b.end);
  let covered = 0;
  let curS = NaN;
  let curE = NaN;
  for (const iv of clipped) {
    if (curE === curE && iv.start <= curE) {
      if (iv.end > curE) curE = iv.end;
      continue;
    }
    if (curE === curE) covered += curE - curS;
    curS = iv.start;
    curE = iv.end;
  }
  if (curE === curE) covered += curE - curS;
  return ok((covered / (end - start)) * 100);
}
