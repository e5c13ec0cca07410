/**
 * Closed round trips from the fills of a backtest, per strategy and market: a spot trade opens
 * when the strategy's holding leaves zero and closes when it is back at zero (long only: spot cannot
 * be short). Exact Decimal sums per fill (fills are rare next to candles); plain numbers come out
 * once, for the metrics. Margin positions become trades from the desk's closed positions.
 */
import { Decimal, productIsExact } from '../core/decimal.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { FillEvent } from '../strategy/views.js';
import { fillFeeValue, fillNotional } from '../portfolio/positions.js';

const ZERO = new Decimal(0);

export interface TradeRecord {
  strategy: string;
  symbol: string;
  side: 'long' | 'short';
  entryTime: number;
  exitTime: number;
  entryPrice: string;
  exitPrice: string;
  quantity: string;
  /** Net of fees, quote currency. */
  pnl: string;
  pnlPct: number;
  fees: string;
  entryTag?: string;
  exitTag?: string;
  /** How it ended: `signal`, a margin close reason, or `open at end`. */
  exit: string;
}

interface Open {
  entryTime: number;
  held: Decimal;
  boughtQty: Decimal;
  cost: Decimal;
  soldQty: Decimal;
  proceeds: Decimal;
  fees: Decimal;
  entryTag?: string;
  /** Price of the buys and of the sells while there was exactly one of each (else undefined). */
  buyPrice?: Decimal;
  sellPrice?: Decimal;
  buys: number;
  sells: number;
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

export class TradeBook {
  readonly trades: TradeRecord[] = [];
  private readonly open = new Map<string, Open>();
  /** Fees of every fill, quote currency. */
  feesPaid = ZERO;

  constructor(
    private readonly split: (symbol: string) => { base: string; quote: string },
    /** Holdings below this (the market's quantity step) count as flat: fee dust cannot be sold. */
    private readonly dust: (symbol: string) => Decimal = () => ZERO,
  ) {}

  onFill(f: FillEvent): void {
    const { base } = this.split(f.symbol);
    const feeQuote = f.feeAsset === base ? fillFeeValue(f) : f.fee;
    this.feesPaid = this.feesPaid.plus(feeQuote);
    const key = `${f.strategy}\u0000${f.symbol}`;
    let o = this.open.get(key);
    if (f.side === 'BUY') {
      if (!o) {
        o = { entryTime: f.timestamp, held: ZERO, boughtQty: ZERO, cost: ZERO, soldQty: ZERO, proceeds: ZERO, fees: ZERO, buys: 0, sells: 0 };
        if (f.tag) o.entryTag = f.tag;
        this.open.set(key, o);
      }
      o.buyPrice = ++o.buys === 1 ? f.price : undefined;
      o.boughtQty = o.boughtQty.plus(f.quantity);
      o.cost = o.cost.plus(fillNotional(f));
      o.held = o.held.plus(f.feeAsset === base ? f.quantity.minus(f.fee) : f.quantity);
      o.fees = o.fees.plus(feeQuote);
      return;
    }
    if (!o) return; // selling coins held before the run: not a round trip of this strategy
    o.sellPrice = ++o.sells === 1 ? f.price : undefined;
    o.soldQty = o.soldQty.plus(f.quantity);
    o.proceeds = o.proceeds.plus(fillNotional(f));
    o.held = o.held.minus(f.quantity);
    o.fees = o.fees.plus(feeQuote);
    if (o.held.lt(this.dust(f.symbol)) || o.held.lte(0)) {
      this.close(f.strategy, f.symbol, o, f.timestamp, 'signal', f.tag);
      this.open.delete(key);
    }
  }

  private close(strategy: string, symbol: string, o: Open, time: number, exit: string, exitTag?: string, mark?: Decimal): void {
    const exitQty = mark ? o.soldQty.plus(o.held) : o.soldQty;
    const proceeds = mark ? o.proceeds.plus(mark.mul(o.held)) : o.proceeds;
    const pnl = proceeds.minus(o.cost).minus(o.fees);
    const committed = o.cost.plus(o.fees);
    const t: TradeRecord = {
      strategy,
      symbol,
      side: 'long',
      entryTime: o.entryTime,
      exitTime: time,
      entryPrice: o.boughtQty.gt(0) ? average(o.cost, o.boughtQty, o.buys, o.buyPrice).toSignificantDigits(12).toFixed() : '0',
      exitPrice: exitQty.gt(0) ? (mark ? proceeds.div(exitQty) : average(proceeds, exitQty, o.sells, o.sellPrice)).toSignificantDigits(12).toFixed() : '0',
      quantity: o.boughtQty.toFixed(),
      pnl: pnl.toSignificantDigits(15).toFixed(),
      pnlPct: committed.gt(0) ? Number(pnl.div(committed).mul(100).toSignificantDigits(12).toFixed()) : 0,
      fees: o.fees.toSignificantDigits(15).toFixed(),
      exit,
    };
    if (o.entryTag) t.entryTag = o.entryTag;
    if (exitTag) t.exitTag = exitTag;
    this.trades.push(t);
  }

  /** Close what is still held at the last price (reported as `open at end`, counted in the metrics). */
  closeOpen(time: number, mark: (symbol: string) => Decimal | undefined): void {
    for (const [key, o] of this.open) {
      const [strategy, symbol] = key.split('\u0000') as [string, string];
      const m = mark(symbol);
      if (m && o.held.gt(0)) this.close(strategy, symbol, o, time, 'open at end', undefined, m);
    }
    this.open.clear();
  }

  /** Closed and liquidated margin positions as trades (pnl = the desk's profit, net of its fees and interest). */
  addMargin(strategy: string, positions: readonly MarginPosition[]): void {
    for (const p of positions) {
      if (p.state !== 'closed' && p.state !== 'liquidated') continue;
      const entry = p.openFilledPrice ?? p.openPrice;
      const exit = p.closeFilledPrice ?? p.closePrice ?? entry;
      const qty = entry.gt(0) ? p.collateral.value.plus(p.loan.value).div(entry) : ZERO;
      const t: TradeRecord = {
        strategy,
        symbol: p.market,
        side: p.side,
        entryTime: p.openedAt ? Date.parse(p.openedAt) : 0,
        exitTime: p.closedAt ? Date.parse(p.closedAt) : 0,
        entryPrice: entry.toFixed(),
        exitPrice: exit.toFixed(),
        quantity: qty.toSignificantDigits(12).toFixed(),
        pnl: p.profit.value.toFixed(),
        pnlPct: p.collateral.value.gt(0) ? Number(p.profit.value.div(p.collateral.value).mul(100).toSignificantDigits(12).toFixed()) : 0,
        fees: p.interest.value.toFixed(),
        exit: p.state === 'liquidated' ? 'liquidation' : String(p.closeReason ?? 'closed'),
      };
      this.trades.push(t);
    }
  }

  sorted(): TradeRecord[] {
    return [...this.trades].sort((a, b) => a.exitTime - b.exitTime || a.entryTime - b.entryTime || (a.strategy < b.strategy ? -1 : a.strategy > b.strategy ? 1 : 0));
  }
}
