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
 * Locked vs reserved (no double counting). A resting order's funds show in the exchange's `locked`
 * once the exchange has the order and the balance was read after that. So a reservation counts in
 * `free` only until a balance sync covers it:
 * - `accepted(id, at)`: the executor saw the order on the exchange (open or partially filled) at `at`;
 * - `balancesSynced(account, startedAt)`: balances of the account were read by a request started at
 *   `startedAt`; every reservation accepted at or before it is now inside that `locked` and stops
 *   counting in `reserved()`/`free()` (it still counts for the strategy's capital, `reservedBy`).
 * Every uncertainty falls on the safe side: an order learnt about late, a sync whose request began
 * before the acceptance, a covered order cancelled before the next sync: in each case the funds count
 * twice until the next sync (free understated), never zero times (never overstated). A covered
 * order's fill frees its part of the lock at once (lock-coverage.ts: the balances' `locked` goes down
 * by what the exchange unlocked for it).
 * With `liveLocked` (a balance source that is always current, like the simulator's ledger in
 * backtests) an accepted reservation is covered at once.
 */
import { Decimal, dgt, dlte, dmin } from '../core/decimal.js';
import type { Side } from '../core/types/market.js';
import type { BalanceEntryView } from './ports.js';
import { ChurnMap } from '../core/churn-map.js';

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
  /** When the exchange was seen holding the order (its funds then show in `locked`). */
  acceptedAt?: number;
  /** True once a balance sync includes the order's lock: it no longer counts in `reserved()`. */
  covered: boolean;
  /** Base quantity filled so far (orders). */
  filled: Decimal;
}

export type ReserveResult = { ok: true; id: string; free: Decimal } | { ok: false; free: Decimal };

/**
 * The map key of (account or strategy, asset). The same string object each time: a key built anew
 * is hashed anew on every map operation (several per order).
 */
const keys = new Map<string, Map<string, string>>();
function key(a: string, b: string): string {
  let m = keys.get(a);
  if (m === undefined) {
    if (keys.size >= 4096) keys.clear(); // names come from configs: a bound that is never reached in practice
    keys.set(a, (m = new Map()));
  }
  let k = m.get(b);
  if (k === undefined) m.set(b, (k = `${a}\u0000${b}`));
  return k;
}

export interface ReservationsOptions {
  idPrefix?: string;
  /** The balance port's `locked` is always current (simulator ledger): accepted means covered. */
  liveLocked?: boolean;
}

export class Reservations {
  private readonly byId = new ChurnMap<string, Reservation>();
  /** Not yet covered by a synced `locked`: what free subtracts. */
  private readonly totals = new ChurnMap<string, Decimal>();
  private readonly byStrategy = new ChurnMap<string, Decimal>();
  private readonly idPrefix: string;
  private readonly liveLocked: boolean;
  private seq = 0;

  constructor(opts: string | ReservationsOptions = {}) {
    const o = typeof opts === 'string' ? { idPrefix: opts } : opts;
    this.idPrefix = o.idPrefix ?? 'rsv';
    this.liveLocked = o.liveLocked ?? false;
  }

  /** Held on an account for an asset and not yet inside the synced `locked` (what free subtracts). */
  reserved(account: string, asset: string): Decimal {
    return this.totals.get(key(account, asset)) ?? ZERO;
  }

  /** Everything held on an account for an asset, including reservations a synced `locked` already shows. */
  reservedTotal(account: string, asset: string): Decimal {
    let t = ZERO;
    for (const r of this.byId.values()) if (r.account === account && r.asset === asset) t = t.plus(r.remaining);
    return t;
  }

  /** The exchange holds the reservation's order since `at` (first call wins). */
  accepted(reservationId: string, at: number): void {
    const r = this.byId.get(reservationId);
    if (!r || r.acceptedAt !== undefined) return;
    r.acceptedAt = at;
    if (this.liveLocked) this.cover(r);
  }

  /** Balances of `account` were read by a request started at `startedAt`: cover what they include. */
  balancesSynced(account: string, startedAt: number): void {
    for (const r of this.byId.values()) {
      if (!r.covered && r.account === account && r.acceptedAt !== undefined && r.acceptedAt <= startedAt) this.cover(r);
    }
  }

  private cover(r: Reservation): void {
    if (r.covered) return;
    r.covered = true;
    this.bump(this.totals, key(r.account, r.asset), r.remaining.neg());
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
    if (dgt(req.amount, free)) return { ok: false, free };
    return { ok: true, id: this.reserve(req), free };
  }

  /** Book a reservation without a check (the caller checked in the same synchronous call). */
  reserve(req: ReserveRequest): string {
    if (req.amount.isNeg()) throw new RangeError(`reservation amount must not be negative, got ${req.amount.toFixed()}`);
    const id = `${this.idPrefix}-${++this.seq}`;
    const r: Reservation = {
      id,
      kind: req.kind,
      strategy: req.strategy,
      account: req.account,
      asset: req.asset,
      amount: req.amount,
      remaining: req.amount,
      filled: ZERO,
      covered: false,
    };
    if (req.symbol !== undefined) r.symbol = req.symbol;
    if (req.side !== undefined) r.side = req.side;
    if (req.quantity !== undefined) r.quantity = req.quantity;
    this.byId.set(id, r);
    this.add(r, req.amount);
    return id;
  }

  /** End a reservation (order final, position opened or refused). Unknown or repeated ids are ignored. */
  release(reservationId: string): void {
    const r = this.byId.get(reservationId);
    if (!r) return;
    this.byId.delete(reservationId);
    this.add(r, r.remaining.neg());
  }

  /**
   * An order filled `filledQuantity` in total so far (cumulative, so a repeated report is harmless):
   * the reservation keeps only the unfilled part.
   */
  settle(reservationId: string, filledQuantity: Decimal): void {
    const r = this.byId.get(reservationId);
    if (!r || !r.quantity || r.quantity.isZero() || dlte(filledQuantity, r.filled)) return;
    const filled = dmin(filledQuantity, r.quantity);
    const remaining = r.amount.mul(r.quantity.minus(filled)).div(r.quantity);
    this.add(r, remaining.minus(r.remaining));
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

  private add(r: Reservation, delta: Decimal): void {
    // Nothing moves (the release of a filled order's reservation): the totals stay as they are.
    if (delta.isZero()) return;
    const k = key(r.account, r.asset);
    if (!r.covered) this.bump(this.totals, k, delta);
    this.bump(this.byStrategy, key(r.strategy, r.asset), delta);
  }

  private bump(m: Map<string, Decimal>, k: string, delta: Decimal): void {
    const t = (m.get(k) ?? ZERO).plus(delta);
    if (t.isZero()) m.delete(k);
    else m.set(k, t);
  }
}
