/**
 * Spot positions per strategy and market, average-cost accounting in Decimal:
 * - a buy adds quantity at its price; the average cost includes the buy's fee when the fee is paid
 *   in the quote asset, and a fee taken in the base asset reduces the quantity received;
 * - a sell realises (price − average cost) × quantity, minus a quote-asset fee;
 * - selling more than the strategy holds (a short on spot is impossible) realises only the held part
 *   and leaves the rest flagged in `oversold` (e.g. a sell of coins the account held before);
 * - dust: what a sell leaves below the market's smallest sellable quantity (a buy fee taken in the
 *   base asset makes the holding 0.146530352 when the step is 0.000001) cannot be sold, so the round
 *   trip closes, the remainder moves to `dust` and its small cost is realised as a loss. The coins
 *   stay in the balances (and in equity); only the strategy's position is flat.
 */
import { Decimal, productIsExact, deq, dlt, dmin } from '../core/decimal.js';
import type { FillEvent, SpotPositionView } from '../core/views.js';

const ZERO = new Decimal(0);

/**
 * price × quantity and fee × price of a fill, remembered for the last fill: the portfolio's
 * balances, its positions and a backtest's trade book each book the same fill and used to multiply
 * it again. Checked by identity (the fill and the Decimals read), so a changed fill recomputes.
 */
let lastFill: { f: FillEvent; price: Decimal; quantity: Decimal; fee: Decimal; notional?: Decimal; feeValue?: Decimal } | undefined;

function memo(f: FillEvent): NonNullable<typeof lastFill> {
  const m = lastFill;
  if (m && m.f === f && m.price === f.price && m.quantity === f.quantity && m.fee === f.fee) return m;
  return (lastFill = { f, price: f.price, quantity: f.quantity, fee: f.fee });
}

/** f.price × f.quantity. */
export function fillNotional(f: FillEvent): Decimal {
  const m = memo(f);
  return (m.notional ??= f.price.mul(f.quantity));
}

/** f.fee × f.price (a fee taken in the base asset, valued in the quote). */
export function fillFeeValue(f: FillEvent): Decimal {
  const m = memo(f);
  return (m.feeValue ??= f.fee.mul(f.price));
}

export interface PositionRecord {
  strategy: string;
  symbol: string;
  base: string;
  quote: string;
  quantity: Decimal;
  /** Exact cost basis of the held quantity (quote, buy fees included); avgPrice = cost / quantity. */
  cost: Decimal;
  avgPrice: Decimal;
  realizedPnl: Decimal;
  feesQuote: Decimal;
  oversold: Decimal;
  /** Unsellable remainders left by sells (below the market's minimum quantity). */
  dust: Decimal;
  trades: number;
}

/**
 * An average price made when first read: cost / quantity as they were when it was set (a buy sets
 * it; a partial sell keeps it). The 40-digit division is the dearest step of booking a fill, and a
 * backtest books thousands of buys whose average nobody reads.
 */
interface LazyAvg {
  cost: Decimal;
  qty: Decimal;
  value?: Decimal;
}

function avgOf(a: LazyAvg | Decimal): Decimal {
  return a instanceof Decimal ? a : (a.value ??= a.cost.div(a.qty));
}

/** A position record whose `avgPrice` is computed on first read (same value as computing it at once). */
class Position implements PositionRecord {
  quantity = ZERO;
  cost = ZERO;
  /** The average, or what it is computed from. */
  avg: LazyAvg | Decimal = ZERO;
  realizedPnl = ZERO;
  feesQuote = ZERO;
  oversold = ZERO;
  dust = ZERO;
  trades = 0;

  constructor(
    readonly strategy: string,
    readonly symbol: string,
    readonly base: string,
    readonly quote: string,
  ) {}

  get avgPrice(): Decimal {
    return avgOf(this.avg);
  }
  set avgPrice(v: Decimal) {
    this.avg = v;
  }
}

/** What `ctx.position` hands out: the position's fields when asked, its average computed on first read. */
class PositionSnapshot implements SpotPositionView {
  constructor(
    readonly symbol: string,
    readonly quantity: Decimal,
    readonly realizedPnl: Decimal,
    /** The record's average source when the view was made. */
    readonly src: LazyAvg | Decimal,
  ) {}
  get avgPrice(): Decimal {
    return avgOf(this.src);
  }
  toJSON(): { symbol: string; quantity: Decimal; avgPrice: Decimal; realizedPnl: Decimal } {
    return { symbol: this.symbol, quantity: this.quantity, avgPrice: this.avgPrice, realizedPnl: this.realizedPnl };
  }
}

export class PositionBook {
  /** Every record, in the order first booked. */
  private readonly map = new Map<string, Position>();
  /** The same records by strategy, then symbol: looked up per candle without building a key. */
  private readonly byStrategy = new Map<string, Map<string, Position>>();
  /** The record last found by get() (records are never removed: a strategy polls one per candle). */
  private lastGot: { strategy: string; symbol: string; record: Position } | undefined;
  /** The last view handed out and its record (see view()). */
  private lastView: { record: Position; view: PositionSnapshot } | undefined;

  constructor(
    private readonly split: (symbol: string) => { base: string; quote: string },
    /** Smallest sellable quantity of a market (its minimum quantity); undefined: no dust rule. */
    private readonly minSellable?: (symbol: string) => Decimal | undefined,
  ) {}

  private key(strategy: string, symbol: string): string {
    return `${strategy}\u0000${symbol}`;
  }

  get(strategy: string, symbol: string): Position | undefined {
    const last = this.lastGot;
    if (last && last.strategy === strategy && last.symbol === symbol) return last.record;
    const p = this.byStrategy.get(strategy)?.get(symbol);
    if (p) this.lastGot = { strategy, symbol, record: p };
    return p;
  }

  all(): PositionRecord[] {
    return [...this.map.values()];
  }

  /** Book a fill; returns the PnL it realised (zero for buys). */
  apply(f: FillEvent): Decimal {
    let p = this.get(f.strategy, f.symbol);
    if (!p) {
      const { base, quote } = this.split(f.symbol);
      p = new Position(f.strategy, f.symbol, base, quote);
      this.map.set(this.key(f.strategy, f.symbol), p);
      let bySymbol = this.byStrategy.get(f.strategy);
      if (!bySymbol) this.byStrategy.set(f.strategy, (bySymbol = new Map()));
      bySymbol.set(f.symbol, p);
    }
    p.trades++;
    const feeInQuote = f.feeAsset === p.quote ? f.fee : f.feeAsset === p.base ? fillFeeValue(f) : ZERO;
    p.feesQuote = p.feesQuote.plus(feeInQuote);
    if (f.side === 'BUY') {
      const received = f.feeAsset === p.base ? f.quantity.minus(f.fee) : f.quantity;
      const cost = fillNotional(f).plus(f.feeAsset === p.quote ? f.fee : ZERO);
      const newQty = p.quantity.plus(received);
      p.cost = p.cost.plus(cost);
      p.quantity = newQty;
      p.avg = newQty.gt(0) ? { cost: p.cost, qty: newQty } : ZERO;
      return ZERO;
    }
    const held = dmin(p.quantity, f.quantity);
    const over = f.quantity.minus(held);
    if (over.gt(0)) p.oversold = p.oversold.plus(over);
    const proceedsPerUnit = f.price;
    const feeShare = f.feeAsset === p.quote ? share(f.fee, held, f.quantity) : f.feeAsset === p.base ? share(f.fee.mul(f.price), held, f.quantity) : ZERO;
    // The cost leaving the position: all of it on a full close (exact), pro rata otherwise.
    const costOut = deq(held, p.quantity) ? p.cost : p.quantity.isZero() ? ZERO : p.cost.mul(held).div(p.quantity);
    let pnl = proceedsPerUnit.mul(held).minus(costOut).minus(feeShare);
    p.cost = p.cost.minus(costOut);
    p.quantity = p.quantity.minus(held);
    const min = this.minSellable?.(f.symbol);
    if (min && p.quantity.gt(0) && dlt(p.quantity, min) && held.gt(0)) {
      pnl = pnl.minus(p.cost);
      p.dust = p.dust.plus(p.quantity);
      p.quantity = ZERO;
      p.cost = ZERO;
    }
    p.realizedPnl = p.realizedPnl.plus(pnl);
    if (p.quantity.isZero() && held.gt(0)) {
      // Flat: the round trip is the trade book's (trade-book.ts, booked from the same fill).
      p.avgPrice = ZERO;
      p.cost = ZERO;
    }
    return pnl;
  }

  /**
   * The strategy's view of a position (`ctx.position`, read per candle). The last view made for a
   * record is handed out again while its fields are still the record's (Decimals are immutable and
   * `apply` replaces them), so a strategy polling its position does not allocate one per candle; a
   * view whose fields were changed by its reader is never reused.
   */
  view(strategy: string, symbol: string): SpotPositionView | undefined {
    const p = this.get(strategy, symbol);
    if (!p) return undefined;
    const v = this.lastView?.record === p ? this.lastView.view : undefined;
    if (v && v.symbol === symbol && v.quantity === p.quantity && v.src === p.avg && v.realizedPnl === p.realizedPnl) return v;
    const out = new PositionSnapshot(symbol, p.quantity, p.realizedPnl, p.avg);
    this.lastView = { record: p, view: out };
    return out;
  }

  unrealized(p: PositionRecord, mark: Decimal | undefined): Decimal {
    return mark && p.quantity.gt(0) ? mark.minus(p.avgPrice).mul(p.quantity) : ZERO;
  }
}

/**
 * amount × part / whole. When part equals whole and the product is exact (at most the precision's
 * significant digits), the quotient is exactly `amount`, so the division is skipped (same value).
 */
function share(amount: Decimal, part: Decimal, whole: Decimal): Decimal {
  if (!whole.isZero() && deq(part, whole) && productIsExact(amount, part)) return amount;
  return amount.mul(part).div(whole);
}
