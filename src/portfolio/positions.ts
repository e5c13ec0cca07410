/**
 * Spot positions per strategy and market, average-cost accounting in Decimal: the one holding of a
 * strategy in a market. A fill is booked here once, into the position and into its open round trip
 * (trip.ts), which the trade book (trade-book.ts) turns into a trade when it closes:
 * - a buy adds quantity at its price; the average cost includes the buy's fee when the fee is paid
 *   in the quote asset, and a fee taken in the base asset reduces the quantity received;
 * - a sell realises (price − average cost) × quantity, minus a quote-asset fee;
 * - dust: what a sell leaves below the market's smallest sellable quantity (a buy fee taken in the
 *   base asset makes the holding 0.146530352 when the step is 0.000001) cannot be sold, so the round
 *   trip closes and the remainder moves to `dust`, valued at that sell's price (the remainder's cost
 *   against that value is realised). The coins stay in the balances (and in equity); the position is
 *   flat. The next trip starts holding the dust at that value, and a sell of more than the position
 *   holds sells the dust next;
 * - selling more than the strategy holds, dust included (a short on spot is impossible), realises
 *   only the held part and leaves the rest flagged in `oversold` (e.g. a sell of coins the account
 *   held before).
 */
import { Decimal, productIsExact, deq, dlt, dmin } from '../core/decimal.js';
import type { FillEvent, SpotPositionView } from '../core/views.js';
import { openTrip, type ClosedTrip, type Trip } from './trip.js';

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
  /** Unsellable remainders left by sells (below the market's minimum quantity), and their value when left (quote). */
  dust: Decimal;
  dustValue: Decimal;
  trades: number;
  /** The open round trip (from the buy that opened it to the sell that makes the position flat). */
  trip?: Trip;
}

/** What booking one fill did: the PnL it realised, and the round trip it closed. */
export interface Booking {
  realized: Decimal;
  closed?: ClosedTrip;
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
  dustValue = ZERO;
  trades = 0;
  trip?: Trip;

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
  /** The last get() that found no record, and how many records there were then. */
  private readonly lastMiss: { strategy: string | undefined; symbol: string | undefined; records: number } = {
    strategy: undefined,
    symbol: undefined,
    records: -1,
  };
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
    // No record yet (a strategy polling its position before its first fill, every candle): the
    // last miss holds until a record is added (records are never removed), so no map is searched.
    const miss = this.lastMiss;
    if (miss.strategy === strategy && miss.symbol === symbol && miss.records === this.map.size) return undefined;
    const p = this.byStrategy.get(strategy)?.get(symbol);
    if (p) this.lastGot = { strategy, symbol, record: p };
    else {
      miss.strategy = strategy;
      miss.symbol = symbol;
      miss.records = this.map.size;
    }
    return p;
  }

  all(): PositionRecord[] {
    return [...this.map.values()];
  }

  /** Book a fill into its position and round trip; returns the PnL it realised (zero for buys) and the trip it closed. */
  apply(f: FillEvent): Booking {
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
    const baseFee = f.feeAsset === p.base;
    const feeInQuote = f.feeAsset === p.quote ? f.fee : baseFee ? fillFeeValue(f) : ZERO;
    p.feesQuote = p.feesQuote.plus(feeInQuote);
    if (f.side === 'BUY') {
      const received = baseFee ? f.quantity.minus(f.fee) : f.quantity;
      const cost = fillNotional(f).plus(f.feeAsset === p.quote ? f.fee : ZERO);
      const newQty = p.quantity.plus(received);
      p.cost = p.cost.plus(cost);
      p.quantity = newQty;
      p.avg = newQty.gt(0) ? { cost: p.cost, qty: newQty } : ZERO;
      const t = (p.trip ??= openTrip(f.timestamp, f.tag, p.dust, p.dustValue));
      t.buyPrice = ++t.buys === 1 ? f.price : undefined;
      t.boughtQty = t.boughtQty.plus(f.quantity);
      t.cost = t.cost.plus(fillNotional(f));
      addFees(t, f, baseFee);
      return { realized: ZERO };
    }
    const t = p.trip;
    if (t) {
      t.sellPrice = ++t.sells === 1 ? f.price : undefined;
      t.soldQty = t.soldQty.plus(f.quantity);
      t.proceeds = t.proceeds.plus(fillNotional(f));
      addFees(t, f, baseFee);
    }
    // The position's own coins first, then its dust, then coins it never held (oversold).
    const held = dmin(p.quantity, f.quantity);
    const rest = f.quantity.minus(held);
    const dustSold = rest.gt(0) && p.dust.gt(0) ? dmin(p.dust, rest) : ZERO;
    const over = rest.minus(dustSold);
    if (over.gt(0)) p.oversold = p.oversold.plus(over);
    const sold = dustSold.isZero() ? held : held.plus(dustSold);
    const feeShare = f.feeAsset === p.quote ? share(f.fee, sold, f.quantity) : baseFee ? share(fillFeeValue(f), sold, f.quantity) : ZERO;
    // The cost leaving the position: all of it on a full close (exact), pro rata otherwise.
    const costOut = deq(held, p.quantity) ? p.cost : p.quantity.isZero() ? ZERO : p.cost.mul(held).div(p.quantity);
    let pnl = f.price.mul(held).minus(costOut).minus(feeShare);
    if (dustSold.gt(0)) {
      const valueOut = deq(dustSold, p.dust) ? p.dustValue : p.dustValue.mul(dustSold).div(p.dust);
      pnl = pnl.plus(f.price.mul(dustSold)).minus(valueOut);
      p.dust = p.dust.minus(dustSold);
      p.dustValue = p.dustValue.minus(valueOut);
    }
    p.cost = p.cost.minus(costOut);
    p.quantity = p.quantity.minus(held);
    const min = this.minSellable?.(f.symbol);
    if (min && p.quantity.gt(0) && dlt(p.quantity, min) && held.gt(0)) {
      // Unsellable: dust, worth this sell's price.
      const value = p.quantity.mul(f.price);
      pnl = pnl.plus(value).minus(p.cost);
      p.dust = p.dust.plus(p.quantity);
      p.dustValue = p.dustValue.plus(value);
      p.quantity = ZERO;
      p.cost = ZERO;
    }
    let closed: ClosedTrip | undefined;
    if (p.quantity.isZero() && (held.gt(0) || t)) {
      p.avgPrice = ZERO;
      p.cost = ZERO;
      if (t) {
        // The trip ends; the dust the position still holds is valued at this price from now on.
        if (p.dust.gt(0)) {
          const value = p.dust.mul(f.price);
          pnl = pnl.plus(value).minus(p.dustValue);
          p.dustValue = value;
        }
        closed = { strategy: f.strategy, symbol: f.symbol, trip: t, time: f.timestamp, held: p.dust, ...(p.dust.gt(0) ? { mark: f.price } : {}) };
        if (f.tag) closed.tag = f.tag;
        p.trip = undefined;
      }
    }
    p.realizedPnl = p.realizedPnl.plus(pnl);
    return closed ? { realized: pnl, closed } : { realized: pnl };
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

/** A fill's fees in its trip: all of them valued in the quote; the quote-asset ones (pnl subtracts them) apart. */
function addFees(t: Trip, f: FillEvent, baseFee: boolean): void {
  t.fees = t.fees.plus(baseFee ? fillFeeValue(f) : f.fee);
  if (!baseFee) t.quoteFees = t.quoteFees.plus(f.fee);
}

/**
 * amount × part / whole. When part equals whole and the product is exact (at most the precision's
 * significant digits), the quotient is exactly `amount`, so the division is skipped (same value).
 */
function share(amount: Decimal, part: Decimal, whole: Decimal): Decimal {
  if (!whole.isZero() && deq(part, whole) && productIsExact(amount, part)) return amount;
  return amount.mul(part).div(whole);
}
