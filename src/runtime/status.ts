/**
 * What a person watching the bot sees: a status line every few seconds and a summary at the end.
 */
import { Decimal } from '../core/decimal.js';
import type { PnlRow } from '../portfolio/portfolio.js';

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
  /** Errors the strategies' handlers threw since the start (each kind logged once, repeats rate-limited). */
  errors?: number;
  books: { healthy: number; total: number; unhealthy: string[] };
  tradingState: string;
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

export function fmtElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : `${m}m${String(sec).padStart(2, '0')}s`;
}

export function statusLine(s: StatusSnapshot, color: boolean): string {
  const c = (code: number, t: string) => (color ? `\x1b[${code}m${t}\x1b[0m` : t);
  const pnl = s.realized.plus(s.unrealized);
  const pnlText = fmtSigned(pnl);
  const books = s.books.healthy === s.books.total ? c(32, `${s.books.healthy}/${s.books.total} healthy`) : c(33, `${s.books.healthy}/${s.books.total} healthy (${s.books.unhealthy.join(', ')} stale)`);
  const state = s.tradingState === 'active' ? '' : `  state ${c(31, s.tradingState.toUpperCase())}`;
  return (
    `${c(36, `[${s.mode} ${fmtElapsed(s.elapsedMs)}]`)} equity ${fmtMoney(s.equity)} ${s.reference}` +
    `  pnl ${pnl.gte(0) ? c(32, pnlText) : c(31, pnlText)}` +
    `  orders ${s.openOrders} open  fills ${s.fills}  denied ${s.denials}${s.errors ? `  ${c(31, `errors ${s.errors}`)}` : ''}  books ${books}${state}`
  );
}

export function summary(s: StatusSnapshot, rows: PnlRow[]): string {
  const lines = [
    '',
    `mizan stopped after ${fmtElapsed(s.elapsedMs)} (${s.mode})`,
    `  equity   ${fmtMoney(s.startEquity)} -> ${fmtMoney(s.equity)} ${s.reference} (${fmtSigned(s.equity.minus(s.startEquity))})`,
    `  fills    ${s.fills}    denied intents ${s.denials}    open orders left ${s.openOrders}${s.errors ? `    strategy handler errors ${s.errors}` : ''}`,
  ];
  if (rows.length) {
    lines.push('  strategy           market     position        realized      unrealized    fees   (in the market\'s quote asset)');
    for (const r of rows) {
      lines.push(
        `  ${r.strategy.padEnd(18)} ${r.symbol.padEnd(10)} ${r.quantity.toFixed().padStart(12)} ${fmtSigned(r.realized, 4).padStart(15)} ${fmtSigned(r.unrealized, 4).padStart(15)} ${fmtMoney(r.fees, 4).padStart(9)}`,
      );
    }
  }
  return lines.join('\n') + '\n';
}

export const ZERO = new Decimal(0);
