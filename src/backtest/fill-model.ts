/**
 * The candle fill model: drives the SimulatedExchange's own matching from OHLCV candles, so a
 * backtest fills orders with the same code (limits, stops, fees, reservations, margin desk) as paper
 * trading. See README.md in this folder for the rules users rely on. In short:
 *  - Orders a strategy places after candle t closes reach the exchange at candle t+1's open: the
 *    last price is that open and the book is one level at open × (1 ± slippage) (`preparePlacement`).
 *    A market order therefore fills at the next open plus slippage, a marketable limit at the better
 *    of its price and that level.
 *  - While an order rests or a margin position is open in a market, each candle's path is played
 *    into the sim as public trades (`play`): open → the extreme that hurts the open position first
 *    (long: low first; short: high first; flat: low first on an up candle, high first on a down
 *    candle) → the other extreme → close, with a stop at every stop price and margin trigger lying on
 *    the way. Before each print the book moves to the print ± slippage, so a stop-market triggered at
 *    its stop fills at stop ± slippage. A print fills resting limits it trades through at their own
 *    price (`fillOnTouch`: also those it touches, at the extremes).
 *  - An optional volume cap limits what the account's orders may fill per candle to a share of the
 *    candle's volume (partial fills; the rest keeps resting). That budget is exact (Decimal), rounded
 *    down to the market's quantity step, so every fill is a whole number of steps; what orders placed
 *    after a close took at the next open comes off that candle's share for its path.
 */
import { Decimal, toDecimal, dgt, dgte, dlt, dlte } from '../core/decimal.js';
import type { Clock, ManualClock } from '../core/clock.js';
import type { SimulatedExchange } from '../sim/exchange.js';
import type { MarginDesk } from '../sim/margin/desk.js';
import type { Series } from './data.js';
import { ChurnMap } from '../core/churn-map.js';

interface FillModelOptions {
  /** Fraction (0.0005 = 0.05 %) added to buys and taken off sells at the next open and at stops. */
  slippage: number;
  fillOnTouch: boolean;
  /** Share of a candle's volume the account may fill in it, in % (`backtest.volumeCapPct`); undefined: no cap. */
  volumeCapPct?: number;
}

export interface FillModelDeps {
  sim: SimulatedExchange;
  account: string;
  clock: ManualClock;
  margin?: MarginDesk;
  options: FillModelOptions;
  /** Prices watched outside the exchange (brackets' take profits): played into the path like stops. */
  extraTriggers?(symbol: string): number[];
  /** +1 when the account holds the market's base (or a long margin position), −1 short, 0 flat. */
  exposure(symbol: string): number;
}

/**
 * The simulated exchange's clock in a backtest: the run's ManualClock, except while an order placed
 * after candle t is handed to the exchange, when it reads the moment that order arrives (candle
 * t+1's open). Without a gap that is candle t's close (the same time); after a gap (a weekend, a
 * halt) a market order filling at Monday's open is stamped Monday's open, not Saturday 00:00.
 */
export class PlacementClock implements Clock {
  private at = -Infinity;
  constructor(private readonly base: ManualClock) {}
  now(): number {
    const t = this.base.now();
    return this.at > t ? this.at : t;
  }
  /** Run `call` (synchronous up to the exchange's answer) with the clock at `atMs` when that is later. */
  during<T>(atMs: number | undefined, call: () => T): T {
    if (atMs === undefined || atMs <= this.base.now()) return call();
    this.at = atMs;
    try {
      return call();
    } finally {
      this.at = -Infinity;
    }
  }
}

const BIG = new Decimal('1e15');
const ZERO = new Decimal(0);

export class CandleFill {
  private readonly series = new Map<string, Series>();
  private readonly tickOf = new Map<string, number>();
  /** Per market: one tick and a tenth of a tick as Decimals (made once, not per book move). */
  private readonly stepOf = new Map<string, { step: Decimal; eps: Decimal }>();
  /** Per market: the decimals of its quantity step (a volume cap budget is rounded down to them). */
  private readonly qtyDecimals = new Map<string, number>();
  /** volumeCapPct / 100, exact; undefined: no cap. */
  private readonly capShare: Decimal | undefined;
  /** 1 + slippage and 1 − slippage as Decimals (the same values `price.mul(1 ± slip)` would make). */
  private readonly up: Decimal;
  private readonly down: Decimal;
  /** symbol -> index of the candle the book was last prepared for. */
  private readonly prepared = new Map<string, string>();
  /** What the account filled in the market being played since the current print began (with a volume cap). */
  private filledNow = ZERO;
  /** Per market, with a volume cap: what orders placed after a close took at the next open (the candle `index`), off its path's share. */
  private readonly atOpen = new Map<string, { index: number; qty: Decimal }>();
  /** Candle prices as Decimals, the last few hundred kept: the same prices recur (a close is usually the next open). */
  private readonly decimals = new ChurnMap<number, Decimal>();
  private readonly trackSymbol = { symbol: '' };
  prints = 0;
  /**
   * `backtest.closeAtEnd` is closing the run: an order placed after the last candle fills at that
   * candle's close ± slippage (capped at its volume share) instead of finding an empty book.
   */
  atEnd = false;

  constructor(private readonly deps: FillModelDeps) {
    this.up = new Decimal(1 + deps.options.slippage);
    this.down = new Decimal(1 - deps.options.slippage);
    const pct = deps.options.volumeCapPct;
    this.capShare = pct === undefined ? undefined : toDecimal(pct, 'volumeCapPct').div(100);
    if (this.capShare) {
      deps.sim.on('fill', (f) => {
        if (f.accountId !== deps.account) return;
        if (f.symbol === this.trackSymbol.symbol) this.filledNow = this.filledNow.plus(f.quantity);
        else {
          // A fill outside a path: an order placed after a close, filled at the next open.
          const open = this.atOpen.get(f.symbol);
          if (open) open.qty = open.qty.plus(f.quantity);
        }
      });
    }
  }

  /** `x` as a Decimal (toDecimal's value), made once while it is among the recent prices. */
  private dec(x: number, symbol: string, what: string): Decimal {
    let v = this.decimals.get(x);
    if (v === undefined) {
      v = toDecimal(x, `${symbol} ${what}`);
      if (this.decimals.size >= 512) this.decimals.clear();
      this.decimals.set(x, v);
    }
    return v;
  }

  addSeries(s: Series): void {
    this.series.set(s.symbol, s);
    const m = this.deps.sim.market(s.symbol);
    if (!m) throw new Error(`market ${s.symbol} is not known to the simulated exchange`);
    this.tickOf.set(s.symbol, m.tickSize);
    this.qtyDecimals.set(s.symbol, m.stepSize);
    this.stepOf.set(s.symbol, { step: new Decimal(10).pow(-m.tickSize), eps: new Decimal(10).pow(-(m.tickSize + 1)) });
  }

  /**
   * One level per side at price ± slippage. During a path the levels are kept off the account's
   * resting orders (at least a tick away), so the book never fills them by crossing: only prints
   * do, which keeps the through/touch rule and the volume cap exact.
   */
  private setBook(symbol: string, price: Decimal, qty: Decimal, guard?: { maxBuy?: Decimal; minSell?: Decimal }): void {
    const tick = this.tickOf.get(symbol)!;
    const slip = this.deps.options.slippage;
    let ask = slip === 0 ? price : price.mul(this.up).toDecimalPlaces(tick, Decimal.ROUND_UP);
    let bid = slip === 0 ? price : price.mul(this.down).toDecimalPlaces(tick, Decimal.ROUND_DOWN);
    const step = this.stepOf.get(symbol)!.step;
    if (guard?.maxBuy && dlte(ask, guard.maxBuy)) ask = guard.maxBuy.plus(step);
    if (guard?.minSell && dgte(bid, guard.minSell)) bid = guard.minSell.minus(step);
    this.deps.sim.replaceBook(symbol, bid.gt(0) ? [{ price: bid, quantity: qty }] : [], [{ price: ask, quantity: qty }]);
  }

  /** Best resting buy and sell of the account in a market (the limits a book level must not cross). */
  private resting(symbol: string): { maxBuy?: Decimal; minSell?: Decimal } {
    const out: { maxBuy?: Decimal; minSell?: Decimal } = {};
    for (const o of this.deps.sim.openOrdersView(this.deps.account, symbol)) {
      if (!o.triggered) continue;
      if (o.side === 'BUY' && (!out.maxBuy || dgt(o.price, out.maxBuy))) out.maxBuy = o.price;
      if (o.side === 'SELL' && (!out.minSell || dlt(o.price, out.minSell))) out.minSell = o.price;
    }
    return out;
  }

  /**
   * What the account may fill in candle `index`: its volume × volumeCapPct / 100, exact, rounded down
   * to the market's quantity step (BIG without a cap).
   */
  private cap(symbol: string, index: number): Decimal {
    if (!this.capShare) return BIG;
    const v = toDecimal(this.series.get(symbol)!.volume[index]!, `${symbol} volume`);
    return v.mul(this.capShare).toDecimalPlaces(this.qtyDecimals.get(symbol)!, Decimal.ROUND_DOWN);
  }

  /**
   * Get the sim ready for an order placed after candle `index` closed: last price = the next open,
   * book = next open ± slippage (capped at the next candle's volume share). Without a next candle
   * the book is emptied, so a market order is cancelled (nothing to fill it against).
   */
  preparePlacement(symbol: string, index: number): void {
    // An order placed while the candle's path plays (a bracket's exit) meets the market of that print.
    if (this.trackSymbol.symbol === symbol) return;
    const s = this.series.get(symbol)!;
    const next = index + 1;
    const closing = this.atEnd && next >= s.length;
    const key = closing ? `e${index}` : `p${index}`;
    if (this.prepared.get(symbol) === key) return;
    this.prepared.set(symbol, key);
    if (closing) {
      const close = this.dec(s.close[index]!, symbol, 'close');
      this.deps.sim.setLastPrice(symbol, close);
      this.setBook(symbol, close, this.cap(symbol, index));
      return;
    }
    if (next >= s.length) {
      this.deps.sim.replaceBook(symbol, [], []);
      return;
    }
    const open = this.dec(s.open[next]!, symbol, 'open');
    this.deps.sim.setLastPrice(symbol, open);
    this.setBook(symbol, open, this.cap(symbol, next));
    if (this.capShare && this.atOpen.get(symbol)?.index !== next) this.atOpen.set(symbol, { index: next, qty: ZERO });
  }

  /** The book closeAtEnd trades against: the last close ± slippage, rounded away from the trader to the tick. */
  endQuote(symbol: string): { bid: Decimal; ask: Decimal } | undefined {
    const s = this.series.get(symbol);
    if (!s || s.length === 0) return undefined;
    const close = toDecimal(s.close[s.length - 1]!, `${symbol} close`);
    const tick = this.tickOf.get(symbol)!;
    const slip = this.deps.options.slippage;
    if (slip === 0) return { bid: close, ask: close };
    return { bid: close.mul(this.down).toDecimalPlaces(tick, Decimal.ROUND_DOWN), ask: close.mul(this.up).toDecimalPlaces(tick, Decimal.ROUND_UP) };
  }

  /** When an order placed after candle `index` reaches the exchange: the next candle's open (ms), if there is one. */
  arrivalMs(symbol: string, index: number): number | undefined {
    const s = this.series.get(symbol)!;
    return index + 1 < s.length ? s.time[index + 1]! * 1000 : undefined;
  }

  /**
   * Why a market order placed after candle `index` was cancelled unfilled (the book preparePlacement
   * made could not fill it whole): no next candle, or more than the volume cap of the next candle.
   */
  marketCancelReason(symbol: string, index: number, quantity: Decimal): string {
    const s = this.series.get(symbol)!;
    if (index + 1 >= s.length) return 'no next candle to fill the market order against';
    const c = this.deps.options.volumeCapPct;
    const cap = this.cap(symbol, index + 1);
    if (c !== undefined && dlt(cap, quantity)) {
      return `market order of ${quantity.toFixed()} is larger than the volume cap of the next candle (${c} % of its volume ${s.volume[index + 1]} = ${cap.toFixed()})`;
    }
    return 'the market order could not be filled whole at the next open';
  }

  /** Instant orders trade at the last close (the desk adds its spread): book = close, both sides. */
  prepareInstant(symbol: string, index: number): void {
    const key = `i${index}`;
    if (this.prepared.get(symbol) === key) return;
    this.prepared.set(symbol, key);
    const close = toDecimal(this.series.get(symbol)!.close[index]!, `${symbol} close`);
    this.deps.sim.setLastPrice(symbol, close);
    this.deps.sim.replaceBook(symbol, [{ price: close, quantity: BIG }], [{ price: close, quantity: BIG }]);
  }

  /** Trigger prices (stops, margin stop loss / take profit / liquidation) waiting in a market. */
  private triggers(symbol: string): number[] {
    const out: number[] = [];
    for (const o of this.deps.sim.openOrdersView(this.deps.account, symbol)) {
      if (o.stopPrice && !o.triggered) out.push(o.stopPrice.toNumber());
    }
    if (this.deps.extraTriggers) out.push(...this.deps.extraTriggers(symbol));
    if (this.deps.margin) {
      for (const p of this.deps.margin.list(this.deps.account, { active: true, market: symbol })) {
        for (const v of [p.stop_loss, p.take_profit, p.liquidity_price, p.call_price]) if (v) out.push(Number(v));
      }
    }
    return out;
  }

  /** The prices candle `index` is played as, in order. */
  path(symbol: string, index: number): number[] {
    const s = this.series.get(symbol)!;
    const o = s.open[index]!;
    const h = s.high[index]!;
    const l = s.low[index]!;
    const c = s.close[index]!;
    const exp = this.deps.exposure(symbol);
    const lowFirst = exp > 0 || (exp === 0 && c >= o);
    const corners = lowFirst ? [o, l, h, c] : [o, h, l, c];
    const trig = this.triggers(symbol);
    const out: number[] = [corners[0]!];
    for (let k = 1; k < corners.length; k++) {
      const a = corners[k - 1]!;
      const b = corners[k]!;
      const between = trig.filter((t) => (a < b ? t > a && t < b : t < a && t > b));
      between.sort((x, y) => (a < b ? x - y : y - x));
      for (const t of between) if (out[out.length - 1] !== t) out.push(t);
      if (out[out.length - 1] !== b) out.push(b);
    }
    return out;
  }

  /** Play candle `index` into the sim (see the file comment). */
  play(symbol: string, index: number): void {
    const s = this.series.get(symbol)!;
    const { sim, clock } = this.deps;
    this.prepared.delete(symbol);
    const pts = this.path(symbol, index);
    const startMs = s.time[index]! * 1000;
    const spanMs = s.resSec * 1000 - 1;
    const lowIdx = pts.indexOf(s.low[index]!);
    const highIdx = pts.indexOf(s.high[index]!);
    const eps = this.stepOf.get(symbol)!.eps;
    // With a volume cap: what is left of this candle's share, whole quantity steps (fills are too).
    let budget = this.capShare ? this.cap(symbol, index) : undefined;
    // Less what orders placed after the previous close took at this candle's open: the share is per candle.
    const open = this.atOpen.get(symbol);
    if (budget && open?.index === index) budget = dgt(budget, open.qty) ? budget.minus(open.qty) : ZERO;
    this.trackSymbol.symbol = symbol;
    for (let k = 0; k < pts.length; k++) {
      const t = startMs + Math.floor((spanMs * k) / Math.max(1, pts.length - 1));
      if (t > clock.now()) clock.set(t);
      const p = this.dec(pts[k]!, symbol, 'price');
      const up = k > 0 && pts[k]! > pts[k - 1]!;
      this.filledNow = ZERO;
      const q = budget ?? BIG;
      this.setBook(symbol, p, q, this.resting(symbol));
      let printed = p;
      if (this.deps.options.fillOnTouch && k === lowIdx) printed = p.minus(eps);
      else if (this.deps.options.fillOnTouch && k === highIdx) printed = p.plus(eps);
      sim.recordTrade({ symbol, price: printed, quantity: q, isBuyOrder: up, timestamp: clock.now() });
      this.prints++;
      if (budget) budget = dgt(budget, this.filledNow) ? budget.minus(this.filledNow) : ZERO;
    }
    this.trackSymbol.symbol = '';
  }
}
