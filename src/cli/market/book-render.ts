/**
 * Text views of one local order book for `mizan book`: a multi-line top-of-book table (redrawn in
 * place on a terminal) and a one-line summary per update (for pipes and logs). Prices and
 * quantities are printed exactly as the book holds them (Decimal `toFixed()`, no float rounding).
 */
import type { BookHealth } from '../../market/book-health.js';
import type { Decimal } from '../../core/decimal.js';
import type { OrderBook } from '../../market/order-book.js';

export interface BookRenderInput {
  symbol: string;
  book: OrderBook;
  health: BookHealth;
  /** Levels per side shown in the table. */
  depth: number;
  /** Wall-clock time of the view (ms), printed in UTC. */
  now: number;
}

const age = (ms: number | undefined): string => (ms === undefined ? 'never' : ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

function healthText(h: BookHealth): string {
  return h.healthy ? 'healthy' : `STALE (${h.reasons.join(', ')})`;
}

function spreadText(book: OrderBook): string {
  const spread = book.spread();
  const bps = book.spreadBps();
  if (spread === undefined) return '-';
  return bps === undefined ? spread.toFixed() : `${spread.toFixed()} (${bpsText(bps)} bps)`;
}

/**
 * Basis points with enough precision to be read: two decimals from 1 bps up, two significant digits
 * below (a 0.01 spread on a 100,000 price is 0.001 bps, not 0); 0 only for a zero spread.
 */
export function bpsText(bps: Decimal): string {
  if (bps.isZero()) return '0';
  if (bps.abs().gte(1)) return bps.toDecimalPlaces(2).toFixed();
  return bps.toSignificantDigits(2).toFixed();
}

/** The table: header, one row per level (bids left, asks right), footer with health and side ages. */
export function renderBookTable(input: BookRenderInput): string[] {
  const { symbol, book, health, depth } = input;
  const bids = book.levels('bid', depth);
  const asks = book.levels('ask', depth);
  const rows: [string, string, string, string][] = [];
  for (let i = 0; i < Math.max(bids.length, asks.length); i++) {
    const b = bids[i];
    const a = asks[i];
    rows.push([b ? b.quantity.toFixed() : '', b ? b.price.toFixed() : '', a ? a.price.toFixed() : '', a ? a.quantity.toFixed() : '']);
  }
  const head: [string, string, string, string] = ['bid qty', 'bid', 'ask', 'ask qty'];
  const w = [0, 1, 2, 3].map((c) => Math.max(head[c]!.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: [string, string, string, string]) =>
    `${r[0].padStart(w[0]!)}  ${r[1].padStart(w[1]!)} │ ${r[2].padEnd(w[2]!)}  ${r[3].padEnd(w[3]!)}`.trimEnd();
  const mid = book.mid();
  return [
    `${symbol}  ${new Date(input.now).toISOString()}`,
    `mid ${mid ? mid.toFixed() : '-'}   spread ${spreadText(book)}`,
    `${healthText(health)}   bid side ${age(health.bidAgeMs)} old, ask side ${age(health.askAgeMs)} old`,
    '',
    line(head),
    ...rows.map(line),
    ...(rows.length === 0 ? ['(empty book)'] : []),
  ];
}

/** One line: time, best bid and ask (price x quantity), spread, mid, health. */
export function renderBookLine(input: BookRenderInput): string {
  const { symbol, book, health } = input;
  const b = book.bestBid();
  const a = book.bestAsk();
  const mid = book.mid();
  return [
    new Date(input.now).toISOString(),
    symbol,
    `bid ${b ? `${b.price.toFixed()} x ${b.quantity.toFixed()}` : '-'}`,
    `ask ${a ? `${a.price.toFixed()} x ${a.quantity.toFixed()}` : '-'}`,
    `spread ${spreadText(book)}`,
    `mid ${mid ? mid.toFixed() : '-'}`,
    healthText(health),
  ].join('  ');
}

/** ANSI: cursor to the top-left, draw, clear what is left of the previous frame. */
export function ansiFrame(lines: string[]): string {
  return `\x1b[H${lines.map((l) => `${l}\x1b[K`).join('\n')}\n\x1b[J`;
}
