/**
 * The result of a backtest as plain JSON: the run's settings, the data report, the metrics, the
 * trades, the orders, the equity curve (downsampled for the file; the metrics use every point) and
 * the final balances. Deterministic by construction: keys in a fixed order, no wall-clock time, and
 * numbers computed in a fixed order, so the same inputs give a byte-identical file.
 */
import type { MizanConfig } from '../config/schema.js';
import { Decimal } from '../core/decimal.js';
import { jsonPieces } from '../core/json-pieces.js';
import type { StrategyInstance } from '../kernel/trading-core.js';
import { type Metrics } from './metrics/index.js';
import { allocTradeColumns, type TradeColumns } from './metrics/trades.js';
import { computeFoldedMetrics } from './metrics/compute.js';
import type { EquityRecord } from './equity-record.js';
import { formatMetrics } from './metrics/index.js';
import type { DataReport } from './data.js';
import type { TradingKernel } from '../kernel/kernel.js';
import type { TradeBook } from '../portfolio/trade-book.js';
import type { MarketSpec } from '../sim/markets.js';
import type { PlotBook } from './plots.js';
import { BACKTEST_ACCOUNT, type Harness } from './setup.js';
import { otherOrders, spotOrders, withOthers, type OrderRecord } from './order-records.js';
import { formatOrderReasons, orderStateText, runEndings, type OrderEndings } from './order-endings.js';
import type { TradeRecord } from '../portfolio/trade-record.js';
import { formatDenials, type DenialBreakdown } from '../kernel/denial-tally.js';
import { computeBreakdowns, formatBreakdown, PLAIN, type Breakdowns, type Paint } from './breakdowns.js';
import type { PlotSeries } from './plots.js';
import { formatBookMetrics, type BookMetrics } from './book/book-stats.js';
import type { BookChartMarket } from './book/book-chart.js';

export type { OrderRecord } from './order-records.js';

export const RESULT_FORMAT = 'mizan-backtest/1';

export interface BacktestResult {
  format: string;
  run: {
    from: string;
    to: string;
    reference: string;
    strategies: { name: string; strategy: string; params: Record<string, unknown>; markets: string[]; resolutionSec: number }[];
    fillModel: {
      slippagePct: number;
      fillOnTouch: boolean;
      volumeCapPct: number | null;
      fees: { maker: string; taker: string } | { account: Record<string, { maker: string; taker: string }> } | null;
      /** A book backtest's fill model (docs/book-backtests.md); absent in a candle backtest. */
      book?: { queueModel: string; queuePower: number; entryLatencyMs: number; cancelLatencyMs: number };
    };
    startingBalances: Record<string, string>;
    /** Each market of the run: its assets and the decimals of its prices and quantities (the report prints amounts with them). */
    markets: Record<string, { base: string; quote: string; pricePrecision: number; quantityPrecision: number }>;
  };
  data: DataReport;
  summary: { candles: number; startEquity: number; endEquity: number; trades: number; orders: number; denials: number };
  /** The denied intents by rule and by reason (most frequent first, numbers that vary shown as #). */
  denied: DenialBreakdown;
  /** How the orders ended: per final state, and the exchange's reasons (backtest/order-endings.ts). */
  orderEndings: OrderEndings;
  /**
   * Errors the strategies' handlers threw, by kind (strategy, handler, `Name: message`), with the
   * simulated time of the first. `mizan backtest` exits with code 1 when `total` > 0 unless allowed.
   */
  errors: { total: number; kinds: { strategy: string; handler: string; error: string; count: number; firstAt: string }[] };
  metrics: Metrics;
  trades: TradeRecord[];
  /** The trades by strategy, by market and by exit reason (trades, wins, win rate, pnl, average duration). */
  breakdowns: Breakdowns;
  orders: OrderRecord[];
  /** The strategies' declared plot series (`ctx.plot`), from `from` on, at most 5000 points each. */
  plots: PlotSeries[];
  equity: { times: number[]; values: number[] };
  finalBalances: Record<string, { value: string; locked: string }>;
  /**
   * The run's books, exact (decimal strings, unrounded): every trade's pnl summed per quote asset
   * (`pnl`, open trades marked at the last price, fee dust revalued with the trade that left it), the
   * part of it that is the end-of-run revaluation of that dust (`dustRevaluation`, per quote asset;
   * portfolio/trade-book.ts), and each market's last price (`lastPrices`, the kernel's, which values
   * `finalBalances`). In a run whose balances are all traded, pnl is exactly the change of the
   * balances' value.
   */
  accounting: { pnl: Record<string, string>; dustRevaluation: Record<string, string>; lastPrices: Record<string, string> };
  /** Assets held in the run that it could not value in the reference asset: left out of the equity. */
  unpricedAssets: string[];
  /**
   * Fees: `paid` in the reference asset (each converted when paid; = the Fees paid metric), `byAsset`
   * as paid in each asset, `unconverted` the ones the run could not price (not in `paid`).
   */
  fees: { reference: string; paid: string; byAsset: Record<string, string>; unconverted: Record<string, string> };
  /** A book backtest's fills: fill ratio, queue time, mid move after a fill (backtest/book/book-stats.ts). */
  book?: BookMetrics;
  /**
   * A book backtest's chart per market: the mid, your quotes, your inventory and your fills over time
   * (backtest/book/book-chart.ts; the report draws them). Absent in a candle backtest.
   */
  bookChart?: BookChartMarket[];
}

/**
 * What the result reads of a finished run, whichever data drove it: a candle run's harness
 * (`harnessRecord`) or a book run's parts (backtest/book/run.ts).
 */
export interface RunRecord {
  reference: string;
  kernel: Pick<TradingKernel, 'core' | 'engine' | 'prices'>;
  trades: TradeBook;
  plots: PlotBook;
  unpriced: ReadonlySet<string>;
  /** The account's balances at the end. */
  balances(): Record<string, { value: Decimal; locked: Decimal }>;
  /** A market's assets and decimals (undefined when unknown). */
  market(symbol: string): Pick<MarketSpec, 'baseAsset' | 'quoteAsset' | 'tickSize' | 'stepSize'> | undefined;
  /** The spot orders' records, in the order they were placed. */
  spotOrders(): OrderRecord[];
  /** The instant and margin orders' records. */
  otherOrders(): OrderRecord[];
  /** How every order ended (kept also when the result lists no orders). */
  orderEndings(): OrderEndings;
}

/** A candle run's record. */
export function harnessRecord(h: Harness): RunRecord {
  return {
    reference: h.reference,
    kernel: h.kernel,
    trades: h.trades,
    plots: h.plots,
    unpriced: h.unpriced,
    balances: () => h.sim.balances(BACKTEST_ACCOUNT),
    market: (s) => h.sim.market(s),
    spotOrders: () => spotOrders(h),
    otherOrders: () => otherOrders(h),
    orderEndings: () => runEndings(h.endings, h.engine.submitted, h.orderReasons, otherOrders(h)),
  };
}

export interface ResultInput {
  config: MizanConfig;
  instances: StrategyInstance[];
  fromMs: number;
  toMs: number;
  h: RunRecord;
  /** The run's markets, in the order of its data. */
  symbols: readonly string[];
  /** Candles walked from `from` on (a book run: the events replayed). */
  candles: number;
  /** The first market's price at the start and at the end (the buy-and-hold benchmark), when known. */
  benchmark?: { firstPrice: number; lastPrice: number };
  report: DataReport;
  /** A book backtest's fill model and its metrics. */
  bookFill?: NonNullable<MizanConfig['backtest']>['book'];
  book?: BookMetrics;
  bookChart?: BookChartMarket[];
  /** The equity curve: its metrics' state and the points result.json lists (equity-record.ts). */
  equity: EquityRecord;
  /** `summary`: no order records or plots (the terminal summary and a sweep row read neither). */
  detail?: 'full' | 'summary';
}

/**
 * The trades for the metrics, as columns (no object per trade): pnl in the reference asset (a trade
 * in another quote asset: its converted pnl), the amounts read from their decimal strings.
 */
function tradeColumnsOf(trades: readonly TradeRecord[]): TradeColumns {
  const c = allocTradeColumns(trades.length);
  trades.forEach((t, i) => {
    c.side[i] = t.side;
    c.entryTime[i] = t.entryTime;
    c.exitTime[i] = t.exitTime;
    c.entryPrice[i] = Number(t.entryPrice);
    c.exitPrice[i] = Number(t.exitPrice);
    c.quantity[i] = Number(t.quantity);
    c.pnl[i] = Number(t.pnlReference ?? t.pnl);
    c.pnlPct[i] = t.pnlPct;
    c.fees[i] = Number(t.fees);
  });
  return c;
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
  const unvalued = [...new Set(trades.filter((t) => t.quote !== undefined && t.pnlReference === undefined).map((t) => t.quote!))].sort();
  const metrics = computeFoldedMetrics(x.equity.fold, {
    trades: tradeColumnsOf(trades),
    feesPaid: Number(x.h.trades.feesPaid.toSignificantDigits(15).toFixed()),
    ...(unvalued.length > 0
      ? { pnlUnavailable: `pnl of trades in ${unvalued.join(', ')} cannot be valued in ${x.h.reference} (no market of the run converts it)` }
      : {}),
    ...(x.benchmark ? { benchmark: x.benchmark } : {}),
  });
  const full = x.detail !== 'summary';
  // Spot orders in the order they were placed, then instant and margin ones merged in by time (stable).
  const other = x.h.otherOrders();
  const orders = full ? withOthers(x.h.spotOrders(), other) : [];
  const finalBalances: Record<string, { value: string; locked: string }> = {};
  const bal = x.h.balances();
  for (const a of Object.keys(bal).sort()) finalBalances[a] = { value: bal[a]!.value.toFixed(), locked: bal[a]!.locked.toFixed() };
  const markets: BacktestResult['run']['markets'] = {};
  for (const symbol of x.symbols) {
    const m = x.h.market(symbol);
    if (m) markets[symbol] = { base: m.baseAsset, quote: m.quoteAsset, pricePrecision: m.tickSize, quantityPrecision: m.stepSize };
  }
  const startingBalances: Record<string, string> = {};
  for (const a of Object.keys(bt.balances).sort()) startingBalances[a] = bt.balances[a]!.toFixed();
  const eq = x.equity.fold;
  return {
    format: RESULT_FORMAT,
    run: {
      from: new Date(x.fromMs).toISOString(),
      to: new Date(x.toMs).toISOString(),
      reference: x.h.reference,
      strategies: x.instances.map((i) => ({
        name: i.name,
        strategy: i.definition.name,
        params: { ...i.params },
        markets: [...i.markets],
        resolutionSec: i.resolutionSec,
      })),
      fillModel: {
        slippagePct: bt.slippagePct,
        fillOnTouch: bt.fillOnTouch,
        volumeCapPct: bt.volumeCapPct ?? null,
        fees: feeSettings(bt),
        ...(x.bookFill ? { book: { ...x.bookFill } } : {}),
      },
      startingBalances,
      markets,
    },
    data: x.report,
    summary: {
      candles: x.candles,
      startEquity: eq.n > 0 ? eq.firstValue : 0,
      endEquity: eq.n > 0 ? eq.lastValue : 0,
      trades: trades.length,
      orders: x.h.kernel.engine.submitted + other.length,
      denials: x.h.kernel.core.denials,
    },
    denied: x.h.kernel.core.denialTally.breakdown(),
    orderEndings: x.h.orderEndings(),
    errors: handlerErrors(x.h),
    metrics,
    trades,
    breakdowns: computeBreakdowns(
      trades,
      x.h.reference,
      x.instances.map((i) => i.name),
      [...x.symbols],
    ),
    orders,
    plots: full ? x.h.plots.result(x.instances) : [],
    equity: x.equity.points,
    finalBalances,
    unpricedAssets: [...x.h.unpriced].sort(),
    accounting: {
      pnl: exactRecord(x.h.trades.pnlByQuote),
      dustRevaluation: exactRecord(x.h.trades.dustRevaluation),
      lastPrices: Object.fromEntries(
        x.symbols.map((s) => [s, x.h.kernel.prices.last(s)?.toFixed() ?? null]).filter((e): e is [string, string] => e[1] !== null),
      ),
    },
    fees: {
      reference: x.h.reference,
      paid: x.h.trades.feesPaid.toSignificantDigits(15).toFixed(),
      byAsset: sortedRecord(x.h.trades.feesByAsset),
      unconverted: sortedRecord(x.h.trades.unconvertedFees),
    },
    ...(x.book ? { book: x.book } : {}),
    ...(x.bookChart && full ? { bookChart: x.bookChart } : {}),
  };
}

/** The handler errors of every strategy of the run, by kind, in strategy order. */
function handlerErrors(h: RunRecord): BacktestResult['errors'] {
  let total = 0;
  const kinds: BacktestResult['errors']['kinds'] = [];
  for (const runner of h.kernel.core.runners.values()) {
    total += runner.errorLog.total;
    for (const k of runner.errorLog.list())
      kinds.push({ strategy: k.strategy, handler: k.handler, error: k.error, count: k.count, firstAt: new Date(k.firstAt).toISOString() });
  }
  return { total, kinds };
}

function exactRecord(m: ReadonlyMap<string, Decimal>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...m.keys()].sort()) out[k] = m.get(k)!.toFixed();
  return out;
}

function sortedRecord(m: ReadonlyMap<string, Decimal>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of [...m.keys()].sort()) out[k] = m.get(k)!.toSignificantDigits(15).toFixed();
  return out;
}

/** The terminal summary: run line, data problems, warnings, breakdowns, metrics table; `paint` colours it (a TTY). */
export function formatSummary(r: BacktestResult, paint: Paint = PLAIN): string {
  const lines: string[] = [];
  const names = r.run.strategies.map((s) => `${s.name} (${s.strategy} on ${s.markets.join(', ')})`).join('; ');
  lines.push(paint.bold(`backtest ${r.run.from} .. ${r.run.to}: ${names}`));
  const openAtEnd = r.trades.filter((t) => t.exit === 'open at end').length;
  const tradesText = openAtEnd > 0 ? `${r.summary.trades} (${openAtEnd} open at end)` : String(r.summary.trades);
  const states = orderStateText(r.orderEndings);
  const ordersText = states ? `${r.summary.orders} (${states})` : String(r.summary.orders);
  lines.push(
    `${r.run.fillModel.book ? 'events' : 'candles'} ${r.summary.candles}, orders ${ordersText}, trades ${tradesText}, denied intents ${r.summary.denials}`,
  );
  if (openAtEnd > 0) {
    lines.push(
      paint.warn(
        `note: ${openAtEnd === 1 ? '1 trade is' : `${openAtEnd} trades are`} still open at the end: counted in the trades and metrics, valued at the last close without a closing fee (backtest.closeAtEnd: true sells at the last close instead)`,
      ),
    );
  }
  const reasons = formatOrderReasons(r.orderEndings);
  if (reasons.length > 0) {
    lines.push(paint.warn('orders the exchange ended, by reason:'));
    lines.push(...reasons);
  }
  if (r.denied.total > 0) {
    lines.push(paint.warn(`denied intents by rule and reason:`));
    lines.push(...formatDenials(r.denied));
  }
  if (r.errors.total > 0) {
    lines.push(paint.bad(`strategy handler errors: ${r.errors.total}`));
    for (const k of r.errors.kinds) lines.push(`  ${String(k.count).padStart(6)} × ${k.strategy}.${k.handler}: ${k.error} (first at ${k.firstAt})`);
  }
  const { startEquity: e0, endEquity: e1 } = r.summary;
  const change = `${e0.toFixed(2)} -> ${e1.toFixed(2)} ${r.run.reference}`;
  lines.push(`equity ${e1 > e0 ? paint.good(change) : e1 < e0 ? paint.bad(change) : change}`);
  if (r.book) lines.push(...formatBookMetrics(r.book));
  for (const p of r.data.problems) lines.push(paint.warn(`data: ${p}`));
  for (const n of r.data.notes) lines.push(`data note: ${n}`);
  if (r.unpricedAssets.length > 0) {
    lines.push(
      paint.warn(
        `warning: ${r.unpricedAssets.join(', ')} cannot be valued in ${r.run.reference} by any market of the run: left out of the equity, the returns and the drawdowns`,
      ),
    );
  }
  const unconverted = Object.entries(r.fees.unconverted);
  if (unconverted.length > 0) {
    lines.push(paint.warn(`warning: fees not in "Fees paid" (no price in ${r.run.reference}): ${unconverted.map(([a, v]) => `${v} ${a}`).join(', ')}`));
  }
  const b = r.breakdowns;
  if (r.trades.length > 0) {
    for (const [title, rows] of [
      ['strategy', b.byStrategy],
      ['market', b.byMarket],
      ['exit reason', b.byExit],
    ] as const) {
      lines.push('');
      lines.push(...formatBreakdown(title, rows, b.reference, paint));
    }
  }
  lines.push('');
  lines.push(paintMetrics(formatMetrics(r.metrics), paint));
  return lines.join('\n');
}

/** The metrics table with its names bold and the total return green or red. */
function paintMetrics(text: string, paint: Paint): string {
  if (paint === PLAIN) return text;
  return text
    .split('\n')
    .map((line) => {
      const m = /^(\S.*?\S)(\s{2,})(.*)$/.exec(line);
      if (!m) return line;
      const [, name, gap, value] = m as unknown as [string, string, string, string];
      const v = name === 'Total return' ? (value.startsWith('-') ? paint.bad(value) : /^0\.00 /.test(value) ? value : paint.good(value)) : value;
      return paint.dim(name) + gap + v;
    })
    .join('\n');
}

/** The JSON text of a result (2-space indent, trailing newline). */
export function resultJson(r: BacktestResult): string {
  return [...resultJsonPieces(r)].join('');
}

/** `resultJson` in pieces (a value of the result's top-level arrays or objects each), to write a large one without holding it whole. */
export function* resultJsonPieces(r: BacktestResult): Generator<string> {
  yield* jsonPieces(r, 2);
  yield '\n';
}
