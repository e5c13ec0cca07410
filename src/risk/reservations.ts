/**
 * Funds held by intents that passed the risk check and are not final yet, per account and asset.
 *
 *   free = value − locked − reserved
 *
 * A buy reserves quantity × price × (1 + takerFee) of the quote asset (a market buy uses the worst
 * price the slippage limit allows), a sell reserves its quantity of the base asset, a margin open its
 * collateral plus the estimated open fee, a collateral top-up its amount.
 *
 * Check-and-reserve is atomic across every strategy of the bot: `tryReserve` reads the free amount
 * and books the reservation in one synchronous call, so on Node's single thread no other intent can
 * run in between. Reservations end with `release` (the executor calls it when the order reaches a
 * final state: it satisfies the ExecutionEngine's ReservationPort) and shrink with `settle` as the
 * order fills (the filled part then shows in the balance itself).
 *
 * Conservative by design: while an order rests on the exchange, a balance synced from the exchange
 * shows its funds as `locked` and the reservation still counts them too, so free is understated
 * until the order ends, never overstated.
 */
import { Decimal } from '../core/decimal.js';
import type { Side } from '../core/types/market.js';
import type { BalanceEntryView } from './ports.js';

const ZERO = new Decimal(0);

export type ReservationKind = 'order' | 'instant' | 'marginOpen' | 'marginAddCollateral';

export interface ReserveRequest {
  kind: ReservationKind;
  strategy: string;
  account: string;
  asset: string;
  amount: Decimal;
  symbol?: string;
  side?: Side;
  /** Base quantity of an order; with it, `settle` shrinks the reservation pro rata. */
  quantity?: Decimal;
}

export interface Reservation extends ReserveRequest {
  id: string;
  /** Amount still held. */
  remaining: Decimal;
  /** Base quantity filled so far (orders). */
  filled: Decimal;
}

export type ReserveResult = { ok: true; id: string; free: Decimal } | { ok: false; free: Decimal };

const key = (a: string, b: string) => `${a}\u0000${b}`;

export class Reservations {
  private readonly byId = new Map<string, Reservation>();
  private readonly totals = new Map<string, Decimal>();
  private readonly byStrategy = new Map<string, Decimal>();
  private seq = 0;

  constructor(private readonly idPrefix = 'rsv') {}

  /** Total held on an account for an asset. */
  reserved(account: string, asset: string): Decimal {
    return this.totals.get(key(account, asset)) ?? ZERO;
  }

  /** Held by one strategy for an asset (all accounts). */
  reservedBy(strategy: string, asset: string): Decimal {
    return this.byStrategy.get(key(strategy, asset)) ?? ZERO;
  }

  /** value − locked − reserved (may be negative when the exchange locked more than we know of). */
  free(account: string, asset: string, balance: BalanceEntryView | undefined): Decimal {
    const value = balance?.value ?? ZERO;
    const locked = balance?.locked ?? ZERO;
    return value.minus(locked).minus(this.reserved(account, asset));
  }

  /** Atomic check-and-reserve: books the amount only when it fits in the free balance. */
  tryReserve(req: ReserveRequest, balance: BalanceEntryView | undefined): ReserveResult {
    const free = this.free(req.account, req.asset, balance);
    if (req.amount.gt(free)) return { ok: false, free };
    return { ok: true, id: this.reserve(req), free };
  }

  /** Book a reservation without a check (the caller checked in the same synchronous call). */
  reserve(req: ReserveRequest): string {
    if (req.amount.isNeg()) throw new RangeError(`reservation amount must not be negative, got ${req.amount.toFixed()}`);
    const id = `${this.idPrefix}-${++this.seq}`;
    const r: Reservation = { id, kind: req.kind, strategy: req.strategy, account: req.account, asset: req.asset, amount: req.amount, remaining: req.amount, filled: ZERO };
    if (req.symbol !== undefined) r.symbol = req.symbol;
    if (req.side !== undefined) r.side = req.side;
    if (req.quantity !== undefined) r.quantity = req.quantity;
    this.byId.set(id, r);
    this.add(req.account, req.strategy, req.asset, req.amount);
    return id;
  }

  /** End a reservation (order final, position opened or refused). Unknown or repeated ids are ignored. */
  release(reservationId: string): void {
    const r = this.byId.get(reservationId);
    if (!r) return;
    this.byId.delete(reservationId);
    this.add(r.account, r.strategy, r.asset, r.remaining.neg());
  }

  /**
   * An order filled `filledQuantity` in total so far (cumulative, so a repeated report is harmless):
   * the reservation keeps only the unfilled part.
   */
  settle(reservationId: string, filledQuantity: Decimal): void {
    const r = this.byId.get(reservationId);
    if (!r || !r.quantity || r.quantity.isZero() || filledQuantity.lte(r.filled)) return;
    const filled = Decimal.min(filledQuantity, r.quantity);
    const remaining = r.amount.mul(r.quantity.minus(filled)).div(r.quantity);
    this.add(r.account, r.strategy, r.asset, remaining.minus(r.remaining));
    r.remaining = remaining;
    r.filled = filled;
  }

  get(reservationId: string): Reservation | undefined {
    return this.byId.get(reservationId);
  }

  has(reservationId: string): boolean {
    return this.byId.has(reservationId);
  }

  active(): IterableIterator<Reservation> {
    return this.byId.values();
  }

  get size(): number {
    return this.byId.size;
  }

  private add(account: string, strategy: string, asset: string, delta: Decimal): void {
    const k = key(account, asset);
    const t = (this.totals.get(k) ?? ZERO).plus(delta);
    if (t.isZero()) this.totals.delete(k);
    else this.totals.set(k, t);
    const s = key(strategy, asset);
    const st = (this.byStrategy.get(s) ?? ZERO).plus(delta);
    if (st.isZero()) this.byStrategy.delete(s);
    else this.byStrategy.set(s, st);
  }
}
