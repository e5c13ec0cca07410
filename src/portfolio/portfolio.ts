/**
 * The bot's ledger, the same in every mode: balances per account (synced from the exchange, adjusted
 * by fills between syncs), spot positions and PnL per strategy and market with their round trips
 * (one record per strategy and market: positions.ts; the trade book makes a trade of each closed
 * round trip), margin positions, and equity. A fill is booked once, by `applyFill`, into all of them;
 * risk's protections and a backtest's result read the round trips from here.
 * Equity is valued in one reference asset (e.g. USDT or TMN) through a price port.
 */
import { Decimal } from '../core/decimal.js';
import type { Balances } from '../core/types/account.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { Side } from '../core/types/market.js';
import type { FillEvent } from '../core/views.js';
import { fillNotional, PositionBook, type PositionRecord } from './positions.js';
import { TradeBook, type TradeBookOptions } from './trade-book.js';
import { MAIN_ACCOUNT } from '../core/account.js';

const ZERO = new Decimal(0);
const NONE: BalanceEntry = { value: ZERO, locked: ZERO };

/**
 * An exchange ledger that is always current and in this process (a backtest's simulated exchange):
 * the portfolio reads an account's balances from it instead of keeping a copy.
 */
export interface CurrentLedger {
  balance(account: string, asset: string): BalanceEntry | undefined;
  /** The assets the account has an entry for. */
  assets(account: string): string[];
}

export interface PortfolioDeps {
  /** Split a symbol into base and quote. */
  split(symbol: string): { base: string; quote: string };
  /** Price of one unit of `asset` in `reference`, or undefined when unknown. */
  price(asset: string, reference: string): Decimal | undefined;
  /** The asset equity is counted in. */
  reference: string;
  /** Smallest sellable quantity of a market (min quantity): smaller remainders are dust. */
  minSellable?: (symbol: string) => Decimal | undefined;
  /** How the round trips are kept (a backtest keeps every record and each order's last fill time; a live bot neither). */
  trades?: Pick<TradeBookOptions, 'retain' | 'fillTimes'>;
  /**
   * The balances' one source when the exchange's ledger is in this process (a backtest): read from
   * it, never synced or moved by fills (the ledger booked them). Without it, the balances are the
   * exchange's last read (syncBalances), moved by fills until the next one.
   */
  ledger?: CurrentLedger;
  /**
   * Whether any market of the bot converts `asset` to the reference (the valuation has a route for
   * it). An asset none converts is left out of the equity and named in `unvalued`, as a backtest
   * leaves it out: it is not a missing price that comes back, so it must not stop every sample.
   * Without it every asset is taken as convertible.
   */
  valued?: (asset: string) => boolean;
}

export interface BalanceEntry {
  value: Decimal;
  locked: Decimal;
}

export interface EquitySnapshot {
  time: number;
  equity: Decimal;
  /** Assets that could not be valued now (a market converts them, but a price it needs is missing). */
  unpriced: string[];
  /** Assets held that no market of the bot converts to the reference: left out of `equity`. */
  unvalued: string[];
  balances: Record<string, { value: string; locked: string }>;
}

export interface PnlRow {
  strategy: string;
  symbol: string;
  quantity: Decimal;
  avgPrice: Decimal;
  realized: Decimal;
  unrealized: Decimal;
  fees: Decimal;
  trades: number;
}

/** Move one asset's balance by `delta` (a new entry: entries handed out are never changed). */
function adjust(m: Map<string, BalanceEntry>, asset: string, delta: Decimal): void {
  const e = m.get(asset);
  m.set(asset, { value: e ? e.value.plus(delta) : ZERO.plus(delta), locked: e ? e.locked : ZERO });
}

export class Portfolio {
  readonly positions: PositionBook;
  /** The round trips, booked from the same fills (`applyFill`). */
  readonly trades: TradeBook;
  private readonly balancesByAccount = new Map<string, Map<string, BalanceEntry>>();
  /** The accounts whose balances have been read whole from the exchange (syncBalances). */
  private readonly read = new Set<string>();
  private margin: MarginPosition[] = [];
  private marginRead = false;
  private readonly marginListeners: ((positions: readonly MarginPosition[], account: string) => void)[] = [];
  lastSyncAt = 0;

  constructor(private readonly deps: PortfolioDeps) {
    this.positions = new PositionBook(deps.split, deps.minSellable);
    this.trades = new TradeBook(deps.split, () => this.positions.all(), {
      reference: deps.reference,
      rate: (asset) => deps.price(asset, deps.reference),
      retain: deps.trades?.retain ?? false,
      fillTimes: deps.trades?.fillTimes ?? false,
    });
  }

  /**
   * Replace an account's balances with the exchange's numbers. `whole`: they are all of the
   * account's balances (a read of the account), so from now on it has been read (balancesRead);
   * false for a few assets merged into the last read (the private stream's updates).
   */
  syncBalances(account: string, balances: Balances, time: number, whole = true): void {
    if (this.deps.ledger) throw new Error('the balances are read from the exchange ledger: there is nothing to sync');
    const m = new Map<string, BalanceEntry>();
    for (const [asset, b] of Object.entries(balances)) m.set(asset, { value: b.value, locked: b.locked });
    this.balancesByAccount.set(account, m);
    if (whole) this.read.add(account);
    this.lastSyncAt = time;
  }

  /**
   * Whether the account's balances have been read from the exchange (always, with the exchange's
   * ledger in this process). Until the first read there is nothing to check an intent against: a
   * restart's fills (the journal's, and those found while the bot was down) are already in the
   * exchange's numbers, and booking them onto nothing gave balances such as -0.0012 BTC.
   */
  balancesRead(account = MAIN_ACCOUNT): boolean {
    return this.deps.ledger !== undefined || this.read.has(account);
  }

  balance(asset: string, account = MAIN_ACCOUNT): BalanceEntry {
    const ledger = this.deps.ledger;
    return (ledger ? ledger.balance(account, asset) : this.balancesByAccount.get(account)?.get(asset)) ?? NONE;
  }

  assets(account = MAIN_ACCOUNT): string[] {
    const ledger = this.deps.ledger;
    return ledger ? ledger.assets(account) : [...(this.balancesByAccount.get(account)?.keys() ?? [])];
  }

  /**
   * Book a fill, once for the whole ledger: the position and PnL of its strategy, its round trip,
   * and the account's balances until the next sync (the bought asset up, net of a fee taken in it;
   * the spent asset down; not before the account's first read, which holds the fill already).
   * Returns the PnL the fill realised on the position.
   */
  applyFill(fill: FillEvent, account = MAIN_ACCOUNT): Decimal {
    // Before the account's first read the fill is in the numbers that read will give: nothing to move.
    if (!this.deps.ledger && this.read.has(account)) this.moveBalances(fill, account);
    // The position and its round trip, at once; then the trade the trip made, if it closed (the
    // protections hear of it with the position booked).
    const booked = this.positions.apply(fill);
    this.trades.onFill(fill, booked.closed);
    return booked.realized;
  }

  /** A fill's change to the balances last read from the exchange (until the next read). */
  private moveBalances(fill: FillEvent, account: string): void {
    const { base, quote } = this.deps.split(fill.symbol);
    let m = this.balancesByAccount.get(account);
    if (!m) this.balancesByAccount.set(account, (m = new Map<string, BalanceEntry>()));
    const sum = fillNotional(fill);
    if (fill.side === 'BUY') {
      adjust(m, base, fill.quantity);
      adjust(m, quote, sum.neg());
    } else {
      adjust(m, base, fill.quantity.neg());
      adjust(m, quote, sum);
    }
    adjust(m, fill.feeAsset, fill.fee.neg());
  }

  /**
   * Funds the exchange unlocked since the last read: an order's fill out of a lock that read holds
   * (risk/lock-coverage.ts). The spent asset's `locked` goes down by `amount`, never below zero, until
   * the next read replaces it. Nothing to do with the exchange's ledger in this process (always current).
   */
  releaseLocked(account: string, symbol: string, side: Side, amount: Decimal): void {
    if (this.deps.ledger) return;
    const m = this.balancesByAccount.get(account);
    const { base, quote } = this.deps.split(symbol);
    const asset = side === 'BUY' ? quote : base;
    const e = m?.get(asset);
    if (!m || !e || !e.locked.gt(0)) return;
    const locked = e.locked.minus(amount);
    m.set(asset, { value: e.value, locked: locked.isNeg() ? ZERO : locked });
  }

  /** The account's active margin positions as the venue listed them (`account`: whose list it is); the listeners hear of it after. */
  syncMargin(positions: MarginPosition[], account = MAIN_ACCOUNT): void {
    this.margin = positions;
    this.marginRead = true;
    for (const l of this.marginListeners) l(positions, account);
  }

  /** Every margin sync, after the portfolio took it (the kernel's margin book notices positions that left). */
  onMarginSync(listener: (positions: readonly MarginPosition[], account: string) => void): void {
    this.marginListeners.push(listener);
  }

  /** Whether a margin list has been read from the venue yet (`syncMargin`). */
  marginSynced(): boolean {
    return this.marginRead;
  }

  marginPositions(market?: string): MarginPosition[] {
    return market ? this.margin.filter((p) => p.market === market) : [...this.margin];
  }

  /**
   * Equity in the reference asset of an account, or of several taken together (a bot's main account
   * and the trading-credit accounts its strategies trade: `balances` then adds each asset's amounts
   * up); open margin positions count with their collateral and profit.
   */
  equity(time: number, account: string | readonly string[] = MAIN_ACCOUNT): EquitySnapshot {
    let equity = ZERO;
    const unpriced = new Set<string>();
    const unvalued = new Set<string>();
    const held = new Map<string, { value: Decimal; locked: Decimal }>();
    for (const a of typeof account === 'string' ? [account] : account) {
      for (const asset of this.assets(a)) {
        const b = this.balance(asset, a);
        const h = held.get(asset);
        held.set(asset, h ? { value: h.value.plus(b.value), locked: h.locked.plus(b.locked) } : { value: b.value, locked: b.locked });
      }
    }
    const balances: EquitySnapshot['balances'] = {};
    for (const [asset, b] of held) {
      balances[asset] = { value: b.value.toFixed(), locked: b.locked.toFixed() };
      if (b.value.isZero()) continue;
      if (asset !== this.deps.reference && this.deps.valued && !this.deps.valued(asset)) {
        unvalued.add(asset);
        continue;
      }
      const px = asset === this.deps.reference ? new Decimal(1) : this.deps.price(asset, this.deps.reference);
      if (px === undefined) unpriced.add(asset);
      else equity = equity.plus(b.value.mul(px));
    }
    for (const p of this.margin) {
      if (p.state !== 'open') continue;
      const cur = p.collateral.currency ?? this.deps.split(p.market).quote;
      const px = cur === this.deps.reference ? new Decimal(1) : this.deps.price(cur, this.deps.reference);
      if (px) equity = equity.plus(p.profit.value.mul(px));
    }
    return { time, equity, unpriced: [...unpriced], unvalued: [...unvalued], balances };
  }

  pnl(mark: (symbol: string) => Decimal | undefined): PnlRow[] {
    return this.positions.all().map((p: PositionRecord) => ({
      strategy: p.strategy,
      symbol: p.symbol,
      quantity: p.quantity,
      avgPrice: p.avgPrice,
      realized: p.realizedPnl,
      unrealized: this.positions.unrealized(p, mark(p.symbol)),
      fees: p.feesQuote,
      trades: p.trades,
    }));
  }
}
