/**
 * What a person watching the bot sees: a status line every few seconds and a summary at the end.
 */
import { Decimal } from '../core/decimal.js';
import type { PnlRow } from '../portfolio/portfolio.js';
import { progressText, type StrategyProgress } from './progress.js';
import { formatDenials, type DenialBreakdown } from '../kernel/denial-tally.js';
import type { MarginTrade, OpenMargin } from '../kernel/margin-book.js';
import type { BracketRecord } from '../execution/bracket-state.js';

/** The longest last-denial text the status line shows (the summary and the API have it whole). */
const LAST_DENIAL_CHARS = 320;

/** A market's base and quote asset (the kernel's instruments: the market catalog). */
export type Split = (symbol: string) => { base: string; quote: string };

export interface StatusSnapshot {
  elapsedMs: number;
  mode: string;
  reference: string;
  equity: Decimal;
  startEquity: Decimal;
  realized: Decimal;
  unrealized: Decimal;
  openOrders: number;
  fills: number;
  denials: number;
  /** The last denial as `strategy rule: reason` (with its numbers). */
  lastDenial?: string;
  /** Denials by rule and reason (numbers, or their range), for the summary. */
  denied?: DenialBreakdown;
  /** Errors the strategies' handlers threw since the start (each kind logged once, repeats rate-limited). */
  errors?: number;
  books: { healthy: number; total: number; unhealthy: string[] };
  tradingState: string;
  /** Trades left out of the live candles since the start: their period had closed when they arrived. */
  lateTrades?: number;
  /** Each strategy's warm-up and whether it signalled yet (the line names those not trading yet, and why). */
  strategies?: StrategyProgress[];
}

function fmtMoney(d: Decimal, dp = 2): string {
  const s = d.toFixed(dp);
  const [i, f] = s.split('.');
  const grouped = i!.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return f ? `${grouped}.${f}` : grouped;
}

function fmtSigned(d: Decimal, dp = 2): string {
  return `${d.gte(0) ? '+' : ''}${fmtMoney(d, dp)}`;
}

function fmtElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(sec).padStart(2, '0')}s`;
}

export function statusLine(s: StatusSnapshot, color: boolean): string {
  const c = (code: number, t: string) => (color ? `\x1b[${code}m${t}\x1b[0m` : t);
  // pnl is the change of equity since the start; of it, `trades` is what the strategies' positions made
  // (realised and unrealised, fees included) and `prices` the rest: the revaluation of the balances
  // held (e.g. the Toman of the account valued in USDT as USDTTMN moves).
  const pnl = s.equity.minus(s.startEquity);
  const trades = s.realized.plus(s.unrealized);
  const pnlText = `${fmtSigned(pnl)} (trades ${fmtSigned(trades)}, prices ${fmtSigned(pnl.minus(trades))})`;
  const books =
    s.books.healthy === s.books.total
      ? c(32, `${s.books.healthy}/${s.books.total} healthy`)
      : c(33, `${s.books.healthy}/${s.books.total} healthy (${s.books.unhealthy.join(', ')} stale)`);
  const state = s.tradingState === 'active' ? '' : `  state ${c(31, s.tradingState.toUpperCase())}`;
  const late = s.lateTrades ? `  late trades ${s.lateTrades}` : '';
  const waiting = s.strategies ? progressText(s.strategies) : '';
  return (
    `${c(36, `[${s.mode} ${fmtElapsed(s.elapsedMs)}]`)} equity ${fmtMoney(s.equity)} ${s.reference}` +
    `  pnl ${pnl.gte(0) ? c(32, pnlText) : c(31, pnlText)}` +
    `  orders ${s.openOrders} open  fills ${s.fills}  denied ${s.denials}${s.denials && s.lastDenial ? ` (last: ${s.lastDenial.length > LAST_DENIAL_CHARS ? `${s.lastDenial.slice(0, LAST_DENIAL_CHARS - 1)}…` : s.lastDenial})` : ''}${s.errors ? `  ${c(31, `errors ${s.errors}`)}` : ''}  books ${books}${late}${state}${waiting ? `  ${c(33, waiting)}` : ''}`
  );
}

export function summary(
  s: StatusSnapshot,
  rows: PnlRow[],
  split: Split,
  margin: readonly MarginTrade[] = [],
  open: readonly OpenMargin[] = [],
  suspended: readonly BracketRecord[] = [],
): string {
  const lines = [
    '',
    `mizan stopped after ${fmtElapsed(s.elapsedMs)} (${s.mode})`,
    `  equity   ${fmtMoney(s.startEquity)} -> ${fmtMoney(s.equity)} ${s.reference} (${fmtSigned(s.equity.minus(s.startEquity))})`,
    `  fills    ${s.fills}    denied intents ${s.denials}    open orders left ${s.openOrders}${s.errors ? `    strategy handler errors ${s.errors}` : ''}`,
  ];
  if (s.denied && s.denied.total > 0) lines.push('  denied intents by rule and reason:', ...formatDenials(s.denied, '    '));
  if (rows.length) {
    for (const l of pnlTable(rows, split)) lines.push(`  ${l}`);
  }
  if (margin.length > 0) {
    const shown = margin.slice(-MARGIN_TRADES_SHOWN);
    lines.push(`  margin positions closed (${margin.length > shown.length ? `the last ${shown.length} of ${margin.length}` : margin.length}):`);
    for (const l of marginTable(shown, split)) lines.push(`    ${l}`);
  }
  if (open.length > 0) {
    // A stop does not close margin positions: they go on at the exchange (its liquidation included).
    lines.push(`  margin positions left open on the exchange (${open.length}; a stop does not close them; profit is the exchange's, before the opening fee):`);
    for (const l of openMarginTable(open, split)) lines.push(`    ${l}`);
  }
  if (suspended.length > 0)
    lines.push(`  brackets suspended by the stop (placed again at the next start): ${suspended.map((r) => bracketText(r, split)).join('; ')}`);
  return lines.join('\n') + '\n';
}

/** A suspended bracket: its strategy, market, prices and what it closes (`e2e BTCUSDT stop 60000 take profit 65000 (0.000998 BTC)`). */
function bracketText(r: BracketRecord, split: Split): string {
  const left = new Decimal(r.held).minus(r.exited);
  const prices = [r.stopLoss !== undefined ? `stop ${r.stopLoss}` : '', r.takeProfit !== undefined ? `take profit ${r.takeProfit}` : '']
    .filter(Boolean)
    .join(' ');
  const exiting = r.phase === 'exiting' ? ', exiting at market' : '';
  return `${r.strategy} ${r.symbol} ${prices} (${left.toFixed()} ${split(r.symbol).base}${exiting})`;
}

/** The closed margin positions the summary lists, the newest. */
const MARGIN_TRADES_SHOWN = 20;

/** One line per closed margin position: its pnl and fees (costs the exchange did not give are named). */
function marginTable(trades: readonly MarginTrade[], split: Split): string[] {
  const cells = trades.map(({ positionId, trade: t, unknown }) => {
    const quote = t.quote ?? split(t.symbol).quote;
    const dp = ASSET_DP[quote] ?? 4;
    return [
      t.strategy,
      t.symbol,
      `#${positionId}`,
      t.side,
      t.exit,
      t.entryPrice,
      t.exitPrice,
      `${fmtSigned(new Decimal(t.pnl), dp)} ${quote}`,
      `${fmtMoney(new Decimal(t.fees), dp)} ${quote}${unknown.length ? ` (without ${unknown.join(', ')}: not given)` : ''}`,
    ];
  });
  return aligned(
    ['strategy', 'market', 'position', 'side', 'exit', 'entry', 'exit price', 'pnl', 'fees'],
    [false, false, false, false, false, true, true, true, false],
    cells,
  );
}

/** One line per margin position left open: where it stands and what would end it. */
function openMarginTable(open: readonly OpenMargin[], split: Split): string[] {
  const cells = open.map(({ strategy, position: p, openFee }) => {
    const quote = split(p.market).quote;
    const dp = ASSET_DP[quote] ?? 4;
    return [
      strategy,
      p.market,
      `#${p.id}`,
      p.side,
      p.state,
      (p.openFilledPrice ?? p.openPrice).toFixed(),
      p.callPrice.toFixed(),
      p.liquidityPrice.toFixed(),
      `${fmtMoney(p.collateral.value, dp)} ${(p.collateral.currency ?? quote).toUpperCase()}`,
      `${fmtSigned(p.profit.value, dp)} ${(p.profit.currency ?? quote).toUpperCase()}`,
      openFee ? `${fmtMoney(openFee, dp)} ${quote}` : 'not known',
    ];
  });
  return aligned(
    ['strategy', 'market', 'position', 'side', 'state', 'entry', 'call price', 'liquidation', 'collateral', 'profit', 'opening fee'],
    [false, false, false, false, false, true, true, true, true, true, false],
    cells,
  );
}

/** Rows of cells under a head, each column as wide as its widest cell (`right`: right-aligned). */
function aligned(head: string[], right: boolean[], cells: string[][]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => (right[i] ? x.padStart(widths[i]!) : x.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...cells.map(line)];
}

/** Decimal places amounts of an asset are shown with (Toman has no smaller unit in use). */
const ASSET_DP: Readonly<Record<string, number>> = { TMN: 0, IRT: 0 };

/**
 * The per-strategy table of the summary: one row per strategy and market (a strategy that never traded
 * has a row of zeros), columns aligned, each amount with its currency (the market's quote asset).
 */
function pnlTable(rows: readonly PnlRow[], split: Split): string[] {
  const cells = rows.map((r) => {
    const { base, quote } = split(r.symbol);
    const dp = ASSET_DP[quote] ?? 4;
    return [
      r.strategy,
      r.symbol,
      `${r.quantity.toFixed()} ${base}`,
      `${fmtSigned(r.realized, dp)} ${quote}`,
      `${fmtSigned(r.unrealized, dp)} ${quote}`,
      `${fmtMoney(r.fees, dp)} ${quote}`,
    ];
  });
  return aligned(['strategy', 'market', 'position', 'realized', 'unrealized', 'fees'], [false, false, true, true, true, true], cells);
}
