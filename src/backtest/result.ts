/**
 * The result of a backtest as plain JSON: the run's settings, the data report, the metrics, the
 * trades, the orders, the equity curve (downsampled for the file; the metrics use every point) and
 * the final balances. Deterministic by construction: keys in a fixed order, no wall-clock time, and
 * numbers computed in a fixed order, so the same inputs give a byte-identical file.
 */
import type { MizanConfig } from '../config/schema.js';
import { avgPrice } from '../execution/tracked-order.js';
import type { StrategyInstance } from '../runtime/trading-core.js';
import { computeMetrics, type ClosedTrade, type Metrics } from './metrics/index.js';
import { formatMetrics } from './metrics/index.js';
import type { DataReport, Series } from './data.js';
import { BACKTEST_ACCOUNT, type Harness } from './setup.js';
import type { TradeRecord } from './trades.js';

export const RESULT_FORMAT = 'mizan-backtest/1';

export interface OrderRecord {
  clientOrderId: string;
  strategy: string;
  symbol: string;
  side: string;
  type: string;
  price: string | null;
  stopPrice: string | null;
  quantity: string;
  filled: string;
  avgPrice: string | null;
  fee: string;
  feeAsset: string | null;
  state: string;
  reason: string | null;
  tag: string | null;
  createdAt: number;
  updatedAt: number;
}

export interface BacktestResult {
  format: string;
  run: {
    from: string;
    to: string;
    reference: string;
    strategies: { name: string; strategy: string; params: Record<string, unknown>; markets: string[]; resolutionSec: number }[];
    fillModel: { slippagePct: number; fillOnTouch: boolean; volumeCapPct: number | null; fees: { maker: string; taker: string } | { account: Record<string, { maker: string; taker: string }> } | null };
    startingBalances: Record<string, string>;
  };
  data: DataReport;
  summary: { candles: number; startEquity: number; endEquity: number; trades: number; orders: number; denials: number };
  metrics: Metrics;
  trades: TradeRecord[];
  orders: OrderRecord[];
  equity: { times: number[]; values: number[] };
  finalBalances: Record<string, { value: string; locked: string }>;
}

export interface ResultInput {
  config: MizanConfig;
  instances: StrategyInstance[];
  fromMs: number;
  toMs: number;
  h: Harness;
  series: Series[];
  report: DataReport;
  equity: { times: Float64Array; values: Float64Array; length: number };
  equityPoints: number;
}

/** Every `step`-th point, always keeping the first, the last and each running maximum and minimum gap-free. */
export function downsample(times: ArrayLike<number>, values: ArrayLike<number>, max: number): { times: number[]; values: number[] } {
  const n = times.length;
  const step = Math.max(1, Math.ceil(n / Math.max(2, max)));
  const t: number[] = [];
  const v: number[] = [];
  for (let i = 0; i < n; i += step) {
    t.push(times[i]!);
    v.push(values[i]!);
  }
  if (n > 0 && t[t.length - 1] !== times[n - 1]) {
    t.push(times[n - 1]!);
    v.push(values[n - 1]!);
  }
  return { times: t, values: v };
}

function toClosed(t: TradeRecord): ClosedTrade {
  return {
    side: t.side,
    entryTime: t.entryTime,
    exitTime: t.exitTime,
    entryPrice: Number(t.entryPrice),
    exitPrice: Number(t.exitPrice),
    quantity: Number(t.quantity),
    pnl: Number(t.pnl),
    pnlPct: t.pnlPct,
    fees: Number(t.fees),
  };
}

/** The fee settings of the run: the configured pair, the account's rates of the run's markets, or null (the markets' own). */
function feeSettings(bt: NonNullable<MizanConfig['backtest']>): BacktestResult['run']['fillModel']['fees'] {
  if (bt.fees === 'account') {
    const markets: Record<string, { maker: string; taker: string }> = {};
    for (const d of bt.data) {
      const f = bt.accountFees?.[d.symbol];
      if (f && !bt.markets.some((m) => m.symbol === d.symbol)) markets[d.symbol] = { maker: f.maker.toFixed(), taker: f.taker.toFixed() };
    }
    return { account: markets };
  }
  return bt.fees ? { maker: bt.fees.maker.toFixed(), taker: bt.fees.taker.toFixed() } : null;
}

export function buildResult(x: ResultInput): BacktestResult {
  const bt = x.config.backtest!;
  const trades = x.h.trades.sorted();
  const main = x.series[0]!;
  const fi = Math.min(main.firstIndex, main.length - 1);
  const metrics = computeMetrics({
    equity: { times: x.equity.times, values: x.equity.values },
    trades: trades.map(toClosed),
    feesPaid: Number(x.h.trades.feesPaid.toSignificantDigits(15).toFixed()),
    ...(main.length > 0 ? { benchmark: { firstPrice: main.open[fi]!, lastPrice: main.close[main.length - 1]! } } : {}),
  });
  const orders: OrderRecord[] = [...x.h.engine.orders.values()].map((o) => ({
    clientOrderId: o.clientOrderId,
    strategy: o.strategy,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    price: o.price?.toFixed() ?? null,
    stopPrice: o.stopPrice?.toFixed() ?? null,
    quantity: o.quantity.toFixed(),
    filled: o.filled.toFixed(),
    avgPrice: o.filled.gt(0) ? avgPrice(o).toSignificantDigits(12).toFixed() : null,
    fee: o.fee.toFixed(),
    feeAsset: o.feeAsset ?? null,
    state: o.state,
    reason: o.reason ?? null,
    tag: o.tag ?? null,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  }));
  const finalBalances: Record<string, { value: string; locked: string }> = {};
  const bal = x.h.sim.balances(BACKTEST_ACCOUNT);
  for (const a of Object.keys(bal).sort()) finalBalances[a] = { value: bal[a]!.value.toFixed(), locked: bal[a]!.locked.toFixed() };
  const startingBalances: Record<string, string> = {};
  for (const a of Object.keys(bt.balances).sort()) startingBalances[a] = bt.balances[a]!.toFixed();
  const n = x.equity.length;
  return {
    format: RESULT_FORMAT,
    run: {
      from: new Date(x.fromMs).toISOString(),
      to: new Date(x.toMs).toISOString(),
      reference: x.h.reference,
      strategies: x.instances.map((i) => ({ name: i.name, strategy: i.definition.name, params: { ...i.params }, markets: [...i.markets], resolutionSec: i.resolutionSec })),
      fillModel: {
        slippagePct: bt.slippagePct,
        fillOnTouch: bt.fillOnTouch,
        volumeCapPct: bt.volumeCapPct ?? null,
        fees: feeSettings(bt),
      },
      startingBalances,
    },
    data: x.report,
    summary: {
      candles: x.series.reduce((a, s) => a + s.length - s.firstIndex, 0),
      startEquity: n > 0 ? x.equity.values[0]! : 0,
      endEquity: n > 0 ? x.equity.values[n - 1]! : 0,
      trades: trades.length,
      orders: orders.length,
      denials: x.h.core.denials,
    },
    metrics,
    trades,
    orders,
    equity: downsample(x.equity.times, x.equity.values, x.equityPoints),
    finalBalances,
  };
}

/** The terminal summary: run line, data problems, metrics table. */
export function formatSummary(r: BacktestResult): string {
  const lines: string[] = [];
  const names = r.run.strategies.map((s) => `${s.name} (${s.strategy} on ${s.markets.join(', ')})`).join('; ');
  lines.push(`backtest ${r.run.from} .. ${r.run.to}: ${names}`);
  lines.push(`candles ${r.summary.candles}, orders ${r.summary.orders}, trades ${r.summary.trades}, denied intents ${r.summary.denials}`);
  lines.push(`equity ${r.summary.startEquity.toFixed(2)} -> ${r.summary.endEquity.toFixed(2)} ${r.run.reference}`);
  for (const p of r.data.problems) lines.push(`data: ${p}`);
  lines.push('');
  lines.push(formatMetrics(r.metrics));
  return lines.join('\n');
}

/** The JSON text of a result (2-space indent, trailing newline). */
export function resultJson(r: BacktestResult): string {
  return JSON.stringify(r, null, 2) + '\n';
}
