/**
 * The round trips of the account's fills (the ledger's trade view, one for every mode), per strategy
 * and market. A spot trade is its position's round trip (positions.ts books a fill into both at once,
 * trip.ts): it opens when the strategy's holding leaves zero and closes when it is back at zero (long
 * only: spot cannot be short); this book makes its record when it closes. Exact Decimal sums per
 * fill (fills are rare next to candles); plain numbers come out once, for the metrics. Margin
 * positions become trades from the desk's closed positions.
 *
 * Dust: a trade closes when what it still holds is below the market's sellable minimum (the larger
 * of the quantity step and the minimum quantity; e.g. the base-asset fee of a buy leaves 1.998 on a
 * step of 1, the sell of 1 leaves 0.998). That remainder is valued at the closing sell's price in
 * the trade (it is still in the account, worth that) and carried: the strategy's next trade in the
 * market starts holding it at that value (its cost, not a buy: the trade's quantity and entry price
 * are its buys'; it does not keep the trade open: the trade is flat when what it bought is sold
 * down to dust), so a later sell of it counts once. Dust no later trade took stays with the trade
 * that left it and is revalued there at the last price at the end of the run (as an open trade is;
 * the amount is also in `dustRevaluation`). So the trades' pnl is exactly the change of what the
 * strategies' trading did to the account (the accounting invariant).
 *
 * Money: a trade's pnl and fees are in its market's quote asset. Fees paid are summed in the
 * reference asset, each converted at the moment it is paid (the run's last price of the quote in the
 * reference, `rate`); a fee the run cannot price is kept per asset in `unconvertedFees`. A trade in
 * another quote asset also gets `quote` and, when priceable at its exit, `pnlReference`.
 */
import { bracketOf } from '../execution/bracket-state.js';
import { Decimal, productIsExact, deq } from '../core/decimal.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { FillEvent } from '../core/views.js';
import { fillFeeValue, type PositionRecord } from './positions.js';
import { ChurnMap } from '../core/churn-map.js';
import type { ClosedTrip, Trip } from './trip.js';
import { CLOSE_AT_END, LIQUIDATION_EXIT, marginExit, MONITOR_EXIT, STOP_LOSS_EXIT, type MarginCosts, type TradeRecord } from './trade-record.js';

const ZERO = new Decimal(0);
export interface TradeBookOptions {
  /** The run's reference asset (the equity's currency). */
  reference?: string;
  /** The value of one unit of `asset` in the reference asset now, or undefined when the run cannot price it. */
  rate?: (asset: string) => Decimal | undefined;
  /** Keep each order's last fill time (`lastFill`, which the result's order records read) until it is taken; default true. */
  fillTimes?: boolean;
  /** Keep every trade record in `trades` (a backtest's result); default true. A live bot only tells the listeners. */
  retain?: boolean;
}

/** A round trip as it closes, spot or a margin position that ended (the protections read it): its exact pnl in its quote asset. */
export interface RoundTripClosed {
  strategy: string;
  symbol: string;
  pnl: Decimal;
  openedAt: number;
  closedAt: number;
  /** The closing fill's tag (a bracket's exit, the strategy's own). */
  tag?: string;
  /** Why it closed, as its trade record says: `stop loss` / `take profit` (a bracket's leg), `signal`, … */
  exit: string;
}

/**
 * total / qty, where total is the sum of price × quantity over the fills of one side: with a single
 * fill whose product was exact (at most the precision's significant digits), the quotient is that
 * fill's price, so the 40-digit division is skipped (same value).
 */
function average(total: Decimal, qty: Decimal, fills: number, price: Decimal | undefined): Decimal {
  if (fills === 1 && price && productIsExact(price, qty)) return price;
  return total.div(qty);
}

/**
 * The average exit price: the sells' proceeds (plus the dust valued at `mark`) over the quantity.
 * With one sell whose price is the mark (a trade closed by a sell that left dust) every unit exited
 * at that price: the quotient is that price, without the 40-digit division.
 */
function exitAverage(o: Trip, proceeds: Decimal, exitQty: Decimal, mark: Decimal | undefined): Decimal {
  if (!mark) return average(proceeds, exitQty, o.sells, o.sellPrice);
  if (o.sells === 1 && o.sellPrice && deq(o.sellPrice, mark) && productIsExact(mark, exitQty)) return mark;
  return proceeds.div(exitQty);
}

export class TradeBook {
  readonly trades: TradeRecord[] = [];
  /**
   * The change of value of the dust still carried at the end of the run (closeOpen), per quote
   * asset: its last price minus the value it had when its trade closed.
   */
  readonly dustRevaluation = new Map<string, Decimal>();
  /** Every trade's pnl summed exactly (unrounded), per quote asset: the accounting invariant's left side. */
  readonly pnlByQuote = new Map<string, Decimal>();
  /** The last trade closed per strategy and market, with its exact pnl and committed amount (the end-of-run dust goes to it). */
  private readonly lastClosed = new Map<string, { t: TradeRecord; pnl: Decimal; committed: Decimal }>();
  /** Fees of every fill and margin position, in the reference asset (converted when paid). */
  feesPaid = ZERO;
  /** Fees per asset they were paid in (a market's quote asset), as paid. */
  readonly feesByAsset = new Map<string, Decimal>();
  /** Fees the run could not price in the reference asset, per asset (not in feesPaid). */
  readonly unconvertedFees = new Map<string, Decimal>();
  /** Margin positions backtest.closeAtEnd closed (their trades end `close at end`). */
  readonly closedAtEnd = new Set<number>();
  /** Margin positions whose last close asked (and passed) was the margin monitor's. */
  private readonly monitorClosed = new Set<number>();
  /** Time of each order's last fill (the exchange's stamp: the bar it happened in); kept only with `fillTimes`. */
  private readonly lastFillAt = new ChurnMap<string, number>();
  /** closeOpen ran (the run ended): once only. */
  private ended = false;
  private readonly fillTimes: boolean;
  private readonly retain: boolean;
  private readonly closeListeners: ((t: RoundTripClosed) => void)[] = [];
  private readonly reference: string | undefined;
  private readonly rate: (asset: string) => Decimal | undefined;

  constructor(
    private readonly split: (symbol: string) => { base: string; quote: string },
    /** The positions whose round trips these are (their open trips and dust, at the end of a run). */
    private readonly holdings: () => Iterable<PositionRecord>,
    opts: TradeBookOptions = {},
  ) {
    this.reference = opts.reference;
    this.rate = opts.rate ?? (() => undefined);
    this.fillTimes = opts.fillTimes ?? true;
    this.retain = opts.retain ?? true;
  }

  /** Every round trip as it closes: spot ones closed by a fill, margin positions that ended (not what `closeOpen` ends). */
  onClose(listener: (t: RoundTripClosed) => void): void {
    this.closeListeners.push(listener);
  }

  /** The time of an order's last fill (with `fillTimes`); `forget`: the order has ended, drop it. */
  lastFill(clientOrderId: string, forget = false): number | undefined {
    const t = this.lastFillAt.get(clientOrderId);
    if (forget) this.lastFillAt.delete(clientOrderId);
    return t;
  }

  /** A fee of `amount` `asset` paid now: per asset, and in the reference asset when the run can price it. */
  private addFee(asset: string, amount: Decimal): void {
    if (amount.isZero()) return;
    this.feesByAsset.set(asset, (this.feesByAsset.get(asset) ?? ZERO).plus(amount));
    if (this.reference === undefined || asset === this.reference) {
      this.feesPaid = this.feesPaid.plus(amount);
      return;
    }
    const r = this.rate(asset);
    if (r) this.feesPaid = this.feesPaid.plus(amount.mul(r));
    else this.unconvertedFees.set(asset, (this.unconvertedFees.get(asset) ?? ZERO).plus(amount));
  }

  /** A trade's quote asset and its pnl in the reference asset, when the quote is another asset. */
  private money(t: TradeRecord, quote: string, pnl: Decimal): void {
    this.pnlByQuote.set(quote, (this.pnlByQuote.get(quote) ?? ZERO).plus(pnl));
    if (this.reference === undefined || quote === this.reference) return;
    t.quote = quote;
    const r = this.rate(quote);
    if (r) t.pnlReference = pnl.mul(r).toSignificantDigits(15).toFixed();
  }

  /** A fill the position book booked (`closed`: the round trip it closed): its fee, its time, the trade it closed. */
  onFill(f: FillEvent, closed?: ClosedTrip): void {
    if (this.fillTimes) this.lastFillAt.set(f.clientOrderId, f.timestamp);
    const { base, quote } = this.split(f.symbol);
    this.addFee(quote, f.feeAsset === base ? fillFeeValue(f) : f.fee);
    if (!closed) return;
    // A bracket's exit says which one closed the trade (execution/brackets.ts tags its children).
    const leg = bracketOf(f.tag)?.leg;
    const exit = f.tag === CLOSE_AT_END ? CLOSE_AT_END : leg === 'sl' ? STOP_LOSS_EXIT : leg === 'tp' ? 'take profit' : 'signal';
    const pnl = this.close(f.strategy, f.symbol, closed.trip, f.timestamp, exit, closed.held, f.tag, closed.mark);
    this.closed(f, closed.trip, pnl, exit);
  }

  private closed(f: FillEvent, o: Trip, pnl: Decimal, exit: string): void {
    if (this.closeListeners.length === 0) return;
    this.tell({ strategy: f.strategy, symbol: f.symbol, pnl, openedAt: o.entryTime, closedAt: f.timestamp, exit, ...(f.tag ? { tag: f.tag } : {}) });
  }

  private tell(t: RoundTripClosed): void {
    for (const l of this.closeListeners) l(t);
  }

  /** Record a closed trade; returns its exact pnl. */
  private close(strategy: string, symbol: string, o: Trip, time: number, exit: string, held: Decimal, exitTag?: string, mark?: Decimal): Decimal {
    const exitQty = mark ? o.soldQty.plus(held) : o.soldQty;
    const proceeds = mark ? o.proceeds.plus(mark.mul(held)) : o.proceeds;
    // A fee taken in the base asset is already out of what was sold (held = bought − base fee):
    // subtracting its value again would count it twice. pnl subtracts the quote-asset fees only.
    const pnl = proceeds.minus(o.cost).minus(o.carried).minus(o.quoteFees);
    const committed = o.cost.plus(o.carried).plus(o.quoteFees);
    const t: TradeRecord = {
      strategy,
      symbol,
      side: 'long',
      entryTime: o.entryTime,
      exitTime: time,
      entryPrice: o.boughtQty.gt(0) ? average(o.cost, o.boughtQty, o.buys, o.buyPrice).toSignificantDigits(12).toFixed() : '0',
      exitPrice: exitQty.gt(0) ? exitAverage(o, proceeds, exitQty, mark).toSignificantDigits(12).toFixed() : '0',
      quantity: o.boughtQty.toFixed(),
      pnl: pnl.toSignificantDigits(15).toFixed(),
      pnlPct: committed.gt(0) ? Number(pnl.div(committed).mul(100).toSignificantDigits(12).toFixed()) : 0,
      fees: o.fees.toSignificantDigits(15).toFixed(),
      exit,
    };
    if (o.entryTag) t.entryTag = o.entryTag;
    if (exitTag) t.exitTag = exitTag;
    this.money(t, this.split(symbol).quote, pnl);
    if (this.retain) this.trades.push(t);
    this.lastClosed.set(`${strategy}\u0000${symbol}`, { t, pnl, committed });
    return pnl;
  }

  /** Close what is still held at the last price (reported as `open at end`, counted in the metrics). */
  closeOpen(time: number, mark: (symbol: string) => Decimal | undefined): void {
    if (this.ended) return;
    this.ended = true;
    for (const p of this.holdings()) {
      const m = mark(p.symbol);
      if (p.trip) {
        // The trip's holding: its own coins and the dust it carries.
        const held = p.quantity.plus(p.dust);
        if (m && held.gt(0)) this.close(p.strategy, p.symbol, p.trip, time, 'open at end', held, undefined, m);
        continue;
      }
      // Dust a closed trade left and no later trade took: it stays with that trade, revalued at the
      // last price (as an open trade is), so the trades' pnl adds up to the equity change.
      const last = this.lastClosed.get(`${p.strategy}\u0000${p.symbol}`);
      if (!m || !last || !p.dust.gt(0)) continue;
      const quote = this.split(p.symbol).quote;
      const reval = p.dust.mul(m).minus(p.dustValue);
      this.dustRevaluation.set(quote, (this.dustRevaluation.get(quote) ?? ZERO).plus(reval));
      this.pnlByQuote.set(quote, (this.pnlByQuote.get(quote) ?? ZERO).plus(reval));
      const pnl = last.pnl.plus(reval);
      last.t.pnl = pnl.toSignificantDigits(15).toFixed();
      last.t.pnlPct = last.committed.gt(0) ? Number(pnl.div(last.committed).mul(100).toSignificantDigits(12).toFixed()) : 0;
      if (last.t.pnlReference !== undefined) {
        const r = this.rate(quote);
        if (r) last.t.pnlReference = pnl.mul(r).toSignificantDigits(15).toFixed();
      }
    }
  }

  /**
   * A margin position as a trade, now: a closed or liquidated one, or (`mark`) one still open at the
   * end of the run, valued at the mark without a closing fee (as the equity values it). pnl is what
   * the account got back minus the collateral and the opening fee (the desk's profit is net of the
   * closing fee and the interest, not of the opening fee); fees = opening + closing fee + interest,
   * which also go to the fees paid. quantity = the base quantity the position held. Returns the
   * trade (also when not retained), or undefined when the position made none.
   */
  /** A close of a margin position passed risk: the margin monitor's (`byMonitor`) or its strategy's. */
  closer(positionId: number, byMonitor: boolean): void {
    if (byMonitor) this.monitorClosed.add(positionId);
    else this.monitorClosed.delete(positionId);
  }

  addMargin(strategy: string, p: MarginPosition, c: MarginCosts, mark?: Decimal, time?: number): TradeRecord | undefined {
    const open = p.state === 'open';
    const { quote } = this.split(p.market);
    if (p.state === 'pending' && mark) this.addFee(quote, c.openFee); // never filled: no trade, but its opening fee is paid
    if (!open && p.state !== 'closed' && p.state !== 'liquidated') return undefined;
    if (open && !mark) return undefined;
    this.addFee(quote, c.openFee);
    // The closing fee and interest as far as the position's equity paid them (all of them unless a
    // liquidation past the collateral clamped the payout at 0).
    const closeCosts = c.closeCostsPaid ?? c.closeFee.plus(c.interest);
    this.addFee(quote, closeCosts);
    const entry = p.openFilledPrice ?? p.openPrice;
    const exit = open ? mark! : (p.closeFilledPrice ?? p.closePrice ?? entry);
    const pnl = p.profit.value.minus(c.openFee);
    const committed = p.collateral.value.plus(c.openFee);
    const fees = c.openFee.plus(closeCosts);
    const t: TradeRecord = {
      strategy,
      symbol: p.market,
      side: p.side,
      entryTime: p.openedAt ? Date.parse(p.openedAt) : 0,
      exitTime: open ? time! : p.closedAt ? Date.parse(p.closedAt) : 0,
      entryPrice: entry.toFixed(),
      exitPrice: exit.toFixed(),
      quantity: c.baseQty.abs().toFixed(),
      pnl: pnl.toSignificantDigits(15).toFixed(),
      pnlPct: committed.gt(0) ? Number(pnl.div(committed).mul(100).toSignificantDigits(12).toFixed()) : 0,
      fees: fees.toSignificantDigits(15).toFixed(),
      exit: open
        ? 'open at end'
        : p.state === 'liquidated'
          ? LIQUIDATION_EXIT
          : this.closedAtEnd.has(p.id)
            ? CLOSE_AT_END
            : p.closeReason === 'user' && this.monitorClosed.has(p.id)
              ? MONITOR_EXIT
              : marginExit(p.closeReason),
    };
    if (!open) this.monitorClosed.delete(p.id);
    this.money(t, quote, pnl);
    if (this.retain) this.trades.push(t);
    // A position that ended is a round trip the protections hear, as a spot one (cooldown, stoploss guard).
    if (!open) this.tell({ strategy, symbol: p.market, pnl, openedAt: t.entryTime, closedAt: t.exitTime, exit: t.exit });
    return t;
  }

  sorted(): TradeRecord[] {
    return [...this.trades].sort(
      (a, b) => a.exitTime - b.exitTime || a.entryTime - b.entryTime || (a.strategy < b.strategy ? -1 : a.strategy > b.strategy ? 1 : 0),
    );
  }
}
