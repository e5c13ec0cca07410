/**
 * Realised PnL per strategy and market from the journal's fills, with the portfolio's
 * average-cost book (src/portfolio/positions.ts) and its dust rule (each market's smallest sellable
 * quantity as the run recorded it), in Decimal (never SQL floats). With `since`,
 * the cost basis still comes from every earlier fill; only PnL realised from `since` on is counted.
 * A paper run trades a fresh account (store/fresh-accounts.ts): at its start every position of the
 * earlier runs ends, so the rows hold the last account's positions and every run's realised PnL.
 */
import { Decimal } from '../core/decimal.js';
import { PositionBook } from '../portfolio/positions.js';
import type { QueryFilter } from './types.js';
import type { JournalQueries } from './queries.js';
import type { Instrument } from '../core/instrument.js';
import { journalInstruments, journalMinSellable } from './instruments.js';
import { journalFreshAccounts } from './fresh-accounts.js';

const ZERO = new Decimal(0);

/**
 * Split symbols with the journal's recorded instruments (store/instruments.ts), then `extra` (the
 * command line's `--market`); a symbol neither knows is an error naming it, never a suffix guess.
 */
export function journalSplit(journal: JournalQueries, extra: ReadonlyMap<string, Instrument> = new Map()): (symbol: string) => Instrument {
  const known = journalInstruments(journal);
  return (symbol) => {
    const i = extra.get(symbol) ?? known.get(symbol);
    if (i) return i;
    throw new RangeError(
      `the journal does not record the base and quote of ${symbol} (journals written before mizan kept its markets' instruments): ` +
        `name them with --market ${symbol}=BASE/QUOTE`,
    );
  };
}

export interface JournalPnlRow {
  strategy: string;
  symbol: string;
  quote: string;
  /** Fills counted (from `since` on). */
  fills: number;
  /** Base quantity held by the strategy after the last fill (0 when a fresh account started since). */
  position: Decimal;
  avgPrice: Decimal;
  /** Realised PnL in the quote asset (fees included), from `since` on. */
  realized: Decimal;
  /** Fees from `since` on, in the quote asset (a base-asset fee valued at the fill price). */
  fees: Decimal;
  /** (mark − avgPrice) × position when a mark price was given. */
  unrealized?: Decimal;
  /** Quantity sold that the strategy did not hold (not in realised PnL). */
  oversold: Decimal;
  /**
   * Decimal places to show amounts of the quote asset with: those of the fills' own amounts (price ×
   * quantity and the fees), at most 8. Average costs divide, so realised PnL has as many digits as Decimal keeps.
   */
  quoteDp: number;
  /** Decimal places of the fills' prices (for the average price). */
  priceDp: number;
}

const MAX_DP = 8;

export interface JournalPnlOptions extends QueryFilter {
  /** Mark prices by symbol, for unrealised PnL. */
  marks?: Readonly<Record<string, Decimal>>;
  /** How to split a symbol; default: the journal's recorded instruments (journalSplit). */
  split?: (symbol: string) => Instrument;
  /**
   * Smallest sellable quantity of a market (the portfolio's dust rule); default: what the journal
   * recorded for the run's markets. A market without one is booked without the dust rule.
   */
  minSellable?: (symbol: string) => Decimal | undefined;
}

export function computePnl(journal: JournalQueries, opts: JournalPnlOptions = {}): JournalPnlRow[] {
  const filter: QueryFilter = {};
  if (opts.strategy !== undefined) filter.strategy = opts.strategy;
  if (opts.symbol !== undefined) filter.symbol = opts.symbol;
  if (opts.until !== undefined) filter.until = opts.until;
  const split = opts.split ?? journalSplit(journal);
  const recorded = journalMinSellable(journal);
  const newBook = () => new PositionBook(split, opts.minSellable ?? ((symbol) => recorded.get(symbol)));
  let book = newBook();
  // Fresh accounts started after the first fill's time, oldest first: the book restarts at each.
  const starts = journalFreshAccounts(journal);
  let next = 0;
  const counted = new Map<string, { strategy: string; symbol: string; quote: string; fills: number; realized: Decimal; fees: Decimal }>();
  const dps = new Map<string, { quote: number; price: number }>();
  for (const f of journal.fills(filter)) {
    while (next < starts.length && starts[next]! <= f.ts) {
      book = newBook();
      next++;
    }
    const dp = dps.get(f.symbol) ?? { quote: 0, price: 0 };
    const { quote } = split(f.symbol);
    // The quote asset's amounts the exchange wrote: the fill's value and its fee (a base fee valued at the price).
    const feeValue = f.feeAsset === quote ? f.fee : f.fee.mul(f.price);
    const quoteDp = Math.max(f.price.mul(f.quantity).decimalPlaces(), feeValue.decimalPlaces());
    dps.set(f.symbol, { quote: Math.min(MAX_DP, Math.max(dp.quote, quoteDp)), price: Math.min(MAX_DP, Math.max(dp.price, f.price.decimalPlaces())) });
    const { realized: pnl } = book.apply({
      clientOrderId: f.clientId,
      strategy: f.strategy,
      symbol: f.symbol,
      side: f.side,
      price: f.price,
      quantity: f.quantity,
      fee: f.fee,
      feeAsset: f.feeAsset,
      timestamp: f.ts,
    });
    if (opts.since !== undefined && f.ts < opts.since) continue;
    const k = `${f.strategy}\u0000${f.symbol}`;
    const c = counted.get(k) ?? { strategy: f.strategy, symbol: f.symbol, quote, fills: 0, realized: ZERO, fees: ZERO };
    const p = book.get(f.strategy, f.symbol);
    const feeQuote = p && f.feeAsset === p.quote ? f.fee : p && f.feeAsset === p.base ? f.fee.mul(f.price) : ZERO;
    counted.set(k, { ...c, fills: c.fills + 1, realized: c.realized.plus(pnl), fees: c.fees.plus(feeQuote) });
  }
  // A fresh account started after the last fill ends every position too.
  if (next < starts.length && (opts.until === undefined || starts[next]! < opts.until)) book = newBook();
  const rows: JournalPnlRow[] = [];
  for (const c of counted.values()) {
    const p = book.get(c.strategy, c.symbol);
    const dp = dps.get(c.symbol) ?? { quote: MAX_DP, price: MAX_DP };
    const row: JournalPnlRow = {
      strategy: c.strategy,
      symbol: c.symbol,
      quote: c.quote,
      fills: c.fills,
      position: p?.quantity ?? ZERO,
      avgPrice: p?.avgPrice ?? ZERO,
      realized: c.realized,
      fees: c.fees,
      oversold: p?.oversold ?? ZERO,
      quoteDp: dp.quote,
      priceDp: dp.price,
    };
    const mark = opts.marks?.[c.symbol];
    if (mark) row.unrealized = p ? book.unrealized(p, mark) : ZERO;
    rows.push(row);
  }
  return rows.sort((a, b) => a.strategy.localeCompare(b.strategy) || a.symbol.localeCompare(b.symbol));
}
