/**
 * The kernel's margin book, the same in every mode: it follows each margin position of the bot from
 * the account's syncs (the portfolio's `syncMargin`: after every margin intent, the bot loop's
 * periodic read, a backtest's desk refresh), journals its row (its owning strategy from the
 * kernel's owner record) when it first appears and whenever its state, collateral or brackets
 * change, and books it once when it leaves `open`/`pending` (closed, liquidated, cancelled):
 * one trade (TradeBook.addMargin: the realised PnL, the fees paid, the summary) and its final
 * journal row.
 *
 * A position leaves a sync's list of active positions when it ends; the book then reads it back
 * (`venue.position`, else the market's list) for its final fields. Its costs are, in order: the
 * mode's exact record when the exchange is in this process (paper, backtests: the simulated desk's
 * own figures), else the exchange's margin orders (`GET /margin-trade/v1/orders?position_id=`: the
 * opening and closing orders' fees and the quantity) with the interest from the position's own
 * field. A cost the exchange did not give is booked as 0 and said so (a warning, and `unknown` on
 * the trade), never guessed.
 *
 * Once only, across restarts: the journal's rows say which positions are booked (a final state)
 * and which were active when the bot last ran (with the owner record's ids, for journals written
 * before the rows were kept); one of those no longer active at the first sync ended while the bot
 * was down and is booked then; a booked one never again.
 */
import { Decimal } from '../core/decimal.js';
import type { Logger } from '../core/logger.js';
import type { MarginPosition } from '../core/types/margin.js';
import type { MarginOrder } from '../core/types/margin-extra.js';
import type { Venue } from '../execution/venue.js';
import type { TradeBook } from '../portfolio/trade-book.js';
import type { MarginCosts, TradeRecord } from '../portfolio/trade-record.js';
import type { PositionOwners } from '../risk/margin-owners.js';
import { MAIN_ACCOUNT } from '../core/account.js';

const ZERO = new Decimal(0);
const active = (state: string) => state === 'open' || state === 'pending';

/** Where the positions' rows are kept (the journal's `positions` table). */
export interface MarginJournal {
  upsert(p: MarginPosition, strategy: string | undefined, account: string): void;
  /** The rows written by earlier runs. */
  rows(): readonly { id: number; state: string; market: string; strategy?: string; account?: string }[];
}

/** A position's costs, and the ones the exchange did not give (booked as 0). */
export interface FoundCosts {
  costs: MarginCosts;
  unknown: string[];
}

/** A margin position booked as a trade in this run. */
export interface MarginTrade {
  positionId: number;
  account: string;
  trade: TradeRecord;
  /** Costs the exchange did not give (booked as 0): `opening fee`, `closing fee`, `quantity`. */
  unknown: string[];
}

/** A strategy's margin trades on one market in this run. */
export interface MarginTotal {
  strategy: string;
  symbol: string;
  pnl: Decimal;
  fees: Decimal;
  trades: number;
}

/** A position of the bot still open (or waiting to open) on the exchange. */
export interface OpenMargin {
  strategy: string;
  position: MarginPosition;
  /** Its opening fee, when known. */
  openFee: Decimal | undefined;
}

export interface MarginBookDeps {
  trades: Pick<TradeBook, 'addMargin'>;
  owners: Pick<PositionOwners, 'owner' | 'openedIds' | 'opener'>;
  venueFor(account: string): Venue;
  logger: Logger;
  journal?: MarginJournal;
  /** Read the journal's rows and the owner record at start (live); a paper run's fresh exchange has none of them. */
  restore?: boolean;
  /** The exact costs when the exchange is in this process (paper, backtests); undefined: read them from the exchange. */
  costs?(account: string, p: MarginPosition): MarginCosts | undefined;
  /** The strategy a position without owner is booked under (a backtest: `unknown`); none: journaled, not booked. */
  unowned?: string;
}

interface Tracked {
  account: string;
  market?: string;
  strategy?: string;
  /** What was last journaled of it (state, collateral, brackets, call flag). */
  look: string;
}

const lookOf = (p: MarginPosition) =>
  `${p.state}|${p.collateral.value.toFixed()}|${p.stopLoss?.toFixed() ?? ''}|${p.takeProfit?.toFixed() ?? ''}|${p.isCalled ? 1 : 0}`;

export class MarginBook {
  private readonly tracked = new Map<number, Tracked>();
  private readonly booked = new Set<number>();
  private readonly settling = new Map<number, Promise<void>>();
  /** The trades booked in this run, oldest first (the last MAX_KEPT). */
  readonly trades: MarginTrade[] = [];
  private readonly listeners: ((t: MarginTrade) => void)[] = [];
  private readonly sums = new Map<string, MarginTotal>();
  /** The opening fee of each open position, once known (the status line values open positions less it). */
  private readonly openFees = new Map<number, Decimal | null>();

  constructor(private readonly d: MarginBookDeps) {
    if (!d.restore) return;
    for (const r of d.journal?.rows() ?? []) {
      if (!active(r.state)) this.booked.add(r.id);
      else this.tracked.set(r.id, { account: r.account ?? MAIN_ACCOUNT, market: r.market, ...(r.strategy ? { strategy: r.strategy } : {}), look: '' });
    }
    for (const id of d.owners.openedIds()) {
      if (this.booked.has(id) || this.tracked.has(id)) continue;
      const strategy = d.owners.opener(id);
      this.tracked.set(id, { account: MAIN_ACCOUNT, ...(strategy ? { strategy } : {}), look: '' });
    }
  }

  /** The margin trades of this run per strategy and market: pnl and fees in the market's quote asset. */
  totals(): MarginTotal[] {
    return [...this.sums.values()];
  }

  /** The bot's positions (`positions`: the last sync) still open or waiting to open, with their owner. */
  stillOpen(positions: readonly MarginPosition[]): OpenMargin[] {
    const out: OpenMargin[] = [];
    for (const p of positions) {
      const strategy = this.tracked.get(p.id)?.strategy;
      if (active(p.state) && strategy) out.push({ strategy, position: p, openFee: this.openFees.get(p.id) ?? undefined });
    }
    return out;
  }

  /**
   * The bot's open positions (`positions`: the last sync) as the equity values them, their profit,
   * less the opening fee they paid when it is known: per strategy and market (`pnl`; `fees`: those
   * opening fees). With the closed ones' trades this is what the margin trading made so far.
   */
  unrealized(positions: readonly MarginPosition[]): MarginTotal[] {
    const out = new Map<string, MarginTotal>();
    for (const p of positions) {
      const strategy = this.tracked.get(p.id)?.strategy;
      if (p.state !== 'open' || !strategy) continue;
      const fee = this.openFees.get(p.id) ?? ZERO;
      const key = `${strategy}\u0000${p.market}`;
      const sum = out.get(key) ?? { strategy, symbol: p.market, pnl: ZERO, fees: ZERO, trades: 0 };
      out.set(key, { ...sum, pnl: sum.pnl.plus(p.profit.value).minus(fee), fees: sum.fees.plus(fee), trades: sum.trades + 1 });
    }
    return [...out.values()];
  }

  /** An open position's opening fee: the mode's record, else its opening order's (once; unknown stays out of the value). */
  private learnOpenFee(account: string, p: MarginPosition): void {
    const exact = this.d.costs?.(account, p);
    if (exact) {
      this.openFees.set(p.id, exact.openFee);
      return;
    }
    this.openFees.set(p.id, null);
    const venue = this.d.venueFor(account);
    if (!venue.marginOrders) return;
    const read = venue.marginOrders.bind(venue);
    Promise.resolve()
      .then(() => read(p.id))
      .then((orders) => {
        const fee = orders.find((o) => o.positionId === p.id && o.purpose === 'open')?.fee?.value;
        if (fee) this.openFees.set(p.id, fee);
      })
      .catch((err: unknown) => this.d.logger.debug({ positionId: p.id, err: err instanceof Error ? err.message : String(err) }, 'margin opening fee not read'));
  }

  /** Whether the position has been booked (it ended). */
  isBooked(id: number): boolean {
    return this.booked.has(id);
  }

  /** Every margin trade as it is booked. */
  onTrade(listener: (t: MarginTrade) => void): void {
    this.listeners.push(listener);
  }

  /**
   * A sync of `account`'s margin positions: the active ones (live, paper), or every one (a
   * backtest's desk). New and changed ones are journaled, ended ones booked; one followed before
   * that the list no longer has is read back from the exchange and booked.
   */
  synced(positions: readonly MarginPosition[], account: string): void {
    const listed = new Set<number>();
    for (const p of positions) {
      listed.add(p.id);
      if (this.booked.has(p.id)) continue;
      const t = this.tracked.get(p.id);
      if (!active(p.state)) {
        this.end(account, p, t?.strategy);
        continue;
      }
      const strategy = t?.strategy ?? this.d.owners.owner(p);
      if (p.state === 'open' && this.d.journal && !this.openFees.has(p.id)) this.learnOpenFee(account, p);
      const look = lookOf(p);
      if (t && t.look === look && t.strategy === strategy) continue;
      this.tracked.set(p.id, { account, market: p.market, ...(strategy ? { strategy } : {}), look });
      this.d.journal?.upsert(p, strategy, account);
    }
    for (const [id, t] of this.tracked) {
      if (t.account === account && !listed.has(id) && !this.settling.has(id)) this.settle(id, t);
    }
  }

  /**
   * Resolves once every read-back and cost lookup under way has ended (the stop's summary waits for
   * it), or after `timeoutMs` (an exchange that does not answer must not hold the stop).
   */
  async idle(timeoutMs?: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let late = false;
    const deadline = timeoutMs === undefined ? undefined : new Promise<void>((r) => (timer = setTimeout(() => r(void (late = true)), timeoutMs).unref()));
    try {
      while (this.settling.size > 0 && !late) await Promise.race([Promise.allSettled([...this.settling.values()]), ...(deadline ? [deadline] : [])]);
    } finally {
      clearTimeout(timer);
    }
    if (late) this.d.logger.warn({ positions: [...this.settling.keys()] }, 'margin positions still being read back: not in the summary');
  }

  /** A followed position no longer listed active: its final fields from the exchange, then its booking. */
  private settle(id: number, t: Tracked): void {
    const run = (async () => {
      const venue = this.d.venueFor(t.account);
      const p = venue.position ? await venue.position(id) : (await venue.positions(t.market ? { market: t.market } : {})).find((x) => x.id === id);
      if (!p) {
        this.tracked.delete(id);
        this.d.logger.warn({ positionId: id, account: t.account }, `margin position #${id} is no longer listed and the exchange does not know it: not booked`);
        return;
      }
      if (active(p.state)) return; // listed again at the next sync
      await this.book(t.account, p, t.strategy);
    })()
      .catch((err: unknown) => {
        // Kept followed: the next sync tries again.
        this.d.logger.warn(
          { positionId: id, err: err instanceof Error ? err.message : String(err) },
          `margin position #${id} ended: it could not be read back yet`,
        );
      })
      .finally(() => this.settling.delete(id));
    this.settling.set(id, run);
  }

  /** An ended position in a sync's list: booked now with exact costs, else once they are read. */
  private end(account: string, p: MarginPosition, strategy: string | undefined): void {
    if (this.settling.has(p.id)) return;
    const exact = this.d.costs?.(account, p);
    if (exact) {
      this.record(account, p, strategy, { costs: exact, unknown: [] });
      return;
    }
    const run = this.book(account, p, strategy)
      .catch((err: unknown) => this.d.logger.warn({ positionId: p.id, err: err instanceof Error ? err.message : String(err) }, 'margin position not booked'))
      .finally(() => this.settling.delete(p.id));
    this.settling.set(p.id, run);
  }

  private async book(account: string, p: MarginPosition, strategy: string | undefined): Promise<void> {
    const exact = this.d.costs?.(account, p);
    const traded = p.state === 'closed' || p.state === 'liquidated';
    const none = { costs: { openFee: ZERO, closeFee: ZERO, interest: ZERO, baseQty: ZERO }, unknown: [] };
    const found = exact ? { costs: exact, unknown: [] } : traded ? await exchangeCosts(this.d.venueFor(account), p, this.d.logger) : none;
    this.record(account, p, strategy, found);
  }

  /** The one booking of an ended position: its final row, and its trade when it made one. */
  private record(account: string, p: MarginPosition, strategy: string | undefined, found: FoundCosts): void {
    if (this.booked.has(p.id)) return;
    this.booked.add(p.id);
    this.tracked.delete(p.id);
    this.openFees.delete(p.id);
    const owner = strategy ?? this.d.owners.owner(p);
    this.d.journal?.upsert(p, owner, account);
    const booker = owner ?? this.d.unowned;
    const fields = { positionId: p.id, market: p.market, state: p.state, strategy: booker };
    if (!booker) {
      this.d.logger.info(fields, `margin position #${p.id} ${p.state}: no strategy of this bot owns it, not booked as a trade`);
      return;
    }
    const trade = this.d.trades.addMargin(booker, p, found.costs);
    if (!trade) return; // cancelled before it opened: no trade (its opening fee was refunded)
    const t: MarginTrade = { positionId: p.id, account, trade, unknown: found.unknown };
    if (found.unknown.length > 0) {
      this.d.logger.warn(
        { ...fields, pnl: trade.pnl, unknown: found.unknown },
        `margin position #${p.id} booked without its ${found.unknown.join(', ')}: the exchange did not give ${found.unknown.length > 1 ? 'them' : 'it'} (counted as 0; an unknown opening fee is not in the pnl)`,
      );
    } else if (this.d.journal) {
      this.d.logger.info({ ...fields, pnl: trade.pnl, fees: trade.fees, exit: trade.exit }, `margin position #${p.id} ${p.state}: booked`);
    }
    const key = `${booker}\u0000${p.market}`;
    const sum = this.sums.get(key) ?? { strategy: booker, symbol: p.market, pnl: ZERO, fees: ZERO, trades: 0 };
    this.sums.set(key, { ...sum, pnl: sum.pnl.plus(trade.pnl), fees: sum.fees.plus(trade.fees), trades: sum.trades + 1 });
    if (this.d.journal) {
      this.trades.push(t);
      if (this.trades.length > MAX_KEPT) this.trades.shift();
    }
    for (const l of this.listeners) l(t);
  }
}

/** The trades a live bot keeps for its summary and API (the totals are the trade book's). */
const MAX_KEPT = 1_000;

/**
 * A position's costs as the exchange gives them: the fees of its opening and closing orders and the
 * quantity (its margin orders), the interest (the position's own field). What it does not give is
 * named in `unknown` and counted as 0.
 */
async function exchangeCosts(venue: Venue, p: MarginPosition, logger: Logger): Promise<FoundCosts> {
  let orders: MarginOrder[] = [];
  if (venue.marginOrders) {
    try {
      orders = (await venue.marginOrders(p.id)).filter((o) => o.positionId === p.id);
    } catch (err) {
      logger.warn({ positionId: p.id, err: err instanceof Error ? err.message : String(err) }, `margin position #${p.id}: its orders could not be read`);
    }
  }
  const currency = p.profit.currency ?? p.collateral.currency;
  const feeOf = (purpose: string): Decimal | undefined => {
    const fee = orders.find((o) => o.purpose === purpose)?.fee;
    return fee && (fee.currency === undefined || currency === undefined || fee.currency === currency) ? fee.value : undefined;
  };
  const unknown: string[] = [];
  const openFee = feeOf('open');
  if (!openFee) unknown.push('opening fee');
  const closeFee = feeOf('close');
  if (!closeFee && p.state !== 'canceled') unknown.push('closing fee');
  const qty = orders.find((o) => o.purpose === 'open')?.quantity;
  if (!qty) unknown.push('quantity');
  const baseQty = qty ? (p.side === 'long' ? qty : qty.neg()) : ZERO;
  return { costs: { openFee: openFee ?? ZERO, closeFee: closeFee ?? ZERO, interest: p.interest.value, baseQty }, unknown };
}
