/**
 * One order's state machine, keyed by client id. States:
 *   pending (sent, no answer yet) -> open -> partially_filled -> filled
 *                                         \-> cancelled | expired (possibly after partial fills)
 *   pending -> rejected (a final error from the exchange)
 *   pending -> unknown (the create's outcome could not be learned; kept and looked up again)
 * Final states never change again. Fills are derived from the growth of the executed quantity, so
 * the same snapshot seen twice (poll + push, or a replay after restart) never books a fill twice.
 *
 * One source of truth for fills: `filled`, the booked quantity, only grows, and every booked fill is
 * exactly one growth of it. Two kinds of evidence move it: a snapshot's cumulative `executedQty`
 * (create answer, poll, lookup, push) and the running sum of the private stream's `tradeDetails`
 * (`detailQty`). Both are lower bounds of what the exchange executed, so `filled = max(evidence)` is
 * too: a fill seen by the stream and again by a poll raises `filled` once, whichever comes first.
 */
import { Decimal, perUnit, deq, dgt, dgte, dlt, dmax, dmin, ZERO } from '../core/decimal.js';
import type { Side } from '../core/types/market.js';
import type { SpotOrder } from '../core/types/order.js';
import type { Brackets } from '../core/intents.js';
import type { FillEvent, OrderState, OrderView } from '../core/views.js';

const FINAL_STATES: ReadonlySet<OrderState> = new Set(['filled', 'cancelled', 'rejected', 'expired']);

export interface TrackedOrder {
  clientOrderId: string;
  strategy: string;
  account: string;
  symbol: string;
  side: Side;
  type: string;
  price?: Decimal;
  stopPrice?: Decimal;
  quantity: Decimal;
  filled: Decimal;
  /** Quote amount executed so far. */
  filledQuote: Decimal;
  fee: Decimal;
  /**
   * The asset fees are taken in: the received asset of the order's market (set when the order is
   * made or adopted, from the kernel's instrument), or what the exchange's answer names.
   */
  feeAsset?: string;
  state: OrderState;
  reason?: string;
  tag?: string;
  reservationId?: string;
  brackets?: Brackets;
  createdAt: number;
  updatedAt: number;
  /** Polls and lookups since the last change, for adaptive polling. */
  quietPolls: number;
  /**
   * Sum of the quantities of the private stream's `tradeDetails` received for this order (this
   * session; unset means none). A lower bound of the executed quantity, like a REST snapshot's.
   */
  detailQty?: Decimal;
}

export function isFinal(state: OrderState): boolean {
  return FINAL_STATES.has(state);
}

export function toView(o: TrackedOrder): OrderView {
  const v: OrderView = {
    clientOrderId: o.clientOrderId,
    strategy: o.strategy,
    symbol: o.symbol,
    side: o.side,
    type: o.type,
    quantity: o.quantity,
    filled: o.filled,
    state: o.state,
    createdAt: o.createdAt,
  };
  if (o.price) v.price = o.price;
  if (o.stopPrice) v.stopPrice = o.stopPrice;
  if (o.filled.gt(0)) v.avgPrice = avgPrice(o);
  if (o.tag) v.tag = o.tag;
  return v;
}

/**
 * The last average fill price (filledQuote / filled) computed, kept while the order's two totals are
 * the same objects (Decimals are immutable, applySnapshot replaces them), so the views of an order
 * made one after the other share one division. A first fill seeds it with its own price, the same
 * quotient (its quote and quantity are the order's totals). One entry, overwritten in place: with a
 * WeakMap keyed by every filled order (as before) the young-generation collector promoted 39-43 MB
 * of a 1M-candle backtest instead of 26-29 MB (--trace-gc-nvp, runs without pretenuring's extra).
 */
const lastAvg: { order: TrackedOrder | undefined; filled: Decimal | undefined; quote: Decimal | undefined; avg: Decimal | undefined } = {
  order: undefined,
  filled: undefined,
  quote: undefined,
  avg: undefined,
};

function rememberAvg(o: TrackedOrder, avg: Decimal): void {
  lastAvg.order = o;
  lastAvg.filled = o.filled;
  lastAvg.quote = o.filledQuote;
  lastAvg.avg = avg;
}

/** filledQuote / filled of an order that has filled (callers check filled > 0), shared as above. */
export function avgPrice(o: TrackedOrder): Decimal {
  if (lastAvg.order === o && lastAvg.filled === o.filled && lastAvg.quote === o.filledQuote) return lastAvg.avg!;
  const avg = o.filledQuote.div(o.filled);
  rememberAvg(o, avg);
  return avg;
}

/** The state an exchange snapshot implies. `active` is the reliable flag; status names vary. */
function stateOf(snapshot: SpotOrder): OrderState {
  const executed = snapshot.executedQty;
  if (snapshot.active) return executed.gt(0) ? 'partially_filled' : 'open';
  if (dgte(executed, snapshot.origQty) && snapshot.origQty.gt(0)) return 'filled';
  const s = String(snapshot.status).toUpperCase();
  if (s === 'REJECTED') return 'rejected';
  if (s === 'EXPIRED') return 'expired';
  if (s === 'FILLED' && executed.gt(0)) return 'filled';
  return 'cancelled';
}

export interface SnapshotResult {
  changed: boolean;
  previous: OrderState;
  fills: FillEvent[];
  /**
   * Set when the answer was refused as impossible (nothing was booked, the order is unchanged): why,
   * and the answer's numbers as text for the log.
   */
  refused?: { reason: string; payload: Record<string, unknown> };
}

/** A snapshot's numbers as text, for the log line of a refused answer. */
function snapshotPayload(snap: SpotOrder): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(snap)) {
    if (v instanceof Decimal) out[k] = v.toFixed();
    else if (k === 'fills' && Array.isArray(v))
      out[k] = (v as SpotOrder['fills']).map((f) => ({
        price: f.price.toFixed(),
        quantity: f.quantity.toFixed(),
        fee: f.fee.toFixed(),
        feeAsset: f.feeAsset,
        ...(f.feeCoefficient ? { feeCoefficient: f.feeCoefficient.toFixed() } : {}),
      }));
    else out[k] = v;
  }
  return out;
}

function refuse(o: TrackedOrder, reason: string, payload: Record<string, unknown>): SnapshotResult {
  return { changed: false, previous: o.state, fills: [], refused: { reason, payload } };
}

/** Below zero (or not a number at all). */
const neg = (x: Decimal | undefined) => x !== undefined && ((x.isNeg() && !x.isZero()) || !x.isFinite());

/**
 * Why a snapshot cannot be true of this order (checked before anything is booked): executed below 0
 * or above the order's quantity, a negative price, sum or fee, a fill with a negative fee or fee
 * rate, or a fill price at or below zero.
 */
function snapshotProblem(o: TrackedOrder, snap: SpotOrder): string | undefined {
  const executed = snap.executedQty;
  if (neg(executed)) return `executedQty ${executed.toFixed()} is negative`;
  if (dgt(executed, o.quantity)) return `executedQty ${executed.toFixed()} is above the order's quantity ${o.quantity.toFixed()}`;
  if (neg(snap.price)) return `price ${snap.price.toFixed()} is negative`;
  if (neg(snap.executedSum)) return `executedSum ${snap.executedSum!.toFixed()} is negative`;
  if (neg(snap.executedPrice)) return `executedPrice ${snap.executedPrice!.toFixed()} is negative`;
  if (neg(snap.fee)) return `fee ${snap.fee!.toFixed()} is negative`;
  for (const f of snap.fills) {
    if (!f.price.gt(0)) return `a fill's price ${f.price.toFixed()} is not above 0`;
    if (neg(f.fee)) return `a fill's fee ${f.fee.toFixed()} is negative`;
    for (const rate of [f.feeCoefficient, f.makerFeeCoefficient, f.takerFeeCoefficient]) {
      if (neg(rate)) return `a fill's fee rate ${rate!.toFixed()} is negative`;
    }
  }
  return undefined;
}

/**
 * Apply an exchange snapshot. Returns the fills it reveals (at most one per growth of the executed
 * quantity: its price is the marginal average, sum delta / quantity delta) and whether the state changed.
 */
export function applySnapshot(o: TrackedOrder, snap: SpotOrder, now: number): SnapshotResult {
  const previous = o.state;
  const fills: FillEvent[] = [];
  if (isFinal(o.state)) return { changed: false, previous, fills };
  const problem = snapshotProblem(o, snap);
  if (problem) return refuse(o, problem, snapshotPayload(snap));
  const executed = snap.executedQty;
  if (dgt(executed, o.filled)) {
    const dq = executed.minus(o.filled);
    const sum = snap.executedSum ?? (snap.executedPrice ? snap.executedPrice.mul(executed) : undefined);
    const dQuote = sum ? sum.minus(o.filledQuote) : snap.price.mul(dq);
    // What this growth would book must be a real trade: a price above zero.
    if (!dQuote.gt(0)) return refuse(o, `the new fill of ${dq.toFixed()} would be booked at a price of ${dQuote.div(dq).toFixed()}`, snapshotPayload(snap));
    const fee = snap.fee !== undefined ? dmax(snap.fee.minus(o.fee), ZERO) : estimateFee(snap, dq);
    // The asset the answer names, else the order's received asset (set from its market's instrument).
    const feeAsset = snap.fills.at(-1)?.feeAsset ?? o.feeAsset;
    if (feeAsset === undefined)
      return refuse(o, `the new fill of ${dq.toFixed()} names no fee asset and ${o.symbol}'s instrument is not known`, snapshotPayload(snap));
    // The average price of what the snapshot newly filled; when that is exactly its last fill, that fill's price.
    const price = perUnit(dQuote, dq, snap.fills.at(-1));
    const first = o.filled.isZero() && o.filledQuote.isZero();
    fills.push({
      clientOrderId: o.clientOrderId,
      strategy: o.strategy,
      symbol: o.symbol,
      side: o.side,
      price,
      quantity: dq,
      fee,
      feeAsset,
      timestamp: snap.fills.at(-1)?.timestamp ?? now,
      ...(o.tag ? { tag: o.tag } : {}),
    });
    o.filled = executed;
    o.filledQuote = o.filledQuote.plus(dQuote);
    o.fee = o.fee.plus(fee);
    o.feeAsset = feeAsset;
    if (first) rememberAvg(o, price);
  }
  const next = stateOf(snap);
  const changed = next !== o.state || fills.length > 0;
  o.state = next;
  if (changed) {
    o.updatedAt = now;
    o.quietPolls = 0;
  } else {
    o.quietPolls++;
  }
  return { changed, previous, fills };
}

/** One fill of the order as the private stream reports it (`tradeDetails`). */
export interface TradeDetail {
  quantity: Decimal;
  price: Decimal;
  /** Quote amount of the fill. */
  sum: Decimal;
  fee: Decimal;
  feeAsset: string;
  timestamp: number;
}

/**
 * Apply one `tradeDetails`: `detailQty` grows by its quantity (capped at the order's quantity);
 * the part above `filled` (all of it, unless a snapshot already counted it) is booked at the
 * detail's price, with its fee in its own asset (pro rata when only a part is new).
 */
export function applyTradeDetail(o: TrackedOrder, t: TradeDetail, now: number): SnapshotResult {
  const previous = o.state;
  const fills: FillEvent[] = [];
  if (isFinal(o.state)) return { changed: false, previous, fills };
  if (!t.quantity.gt(0) || !t.price.gt(0) || !t.sum.gt(0) || neg(t.fee)) {
    const payload = {
      quantity: t.quantity.toFixed(),
      price: t.price.toFixed(),
      sum: t.sum.toFixed(),
      fee: t.fee.toFixed(),
      feeAsset: t.feeAsset,
      timestamp: t.timestamp,
    };
    return refuse(o, 'a trade detail needs a quantity, price and sum above 0 and a fee not below 0', payload);
  }
  const total = dmin((o.detailQty ?? new Decimal(0)).plus(t.quantity), o.quantity);
  o.detailQty = total;
  if (!dgt(total, o.filled)) return { changed: false, previous, fills };
  const dq = total.minus(o.filled);
  const whole = deq(dq, t.quantity);
  const dQuote = whole ? t.sum : t.price.mul(dq);
  const fee = whole ? t.fee : t.fee.mul(dq).div(t.quantity);
  fills.push({
    clientOrderId: o.clientOrderId,
    strategy: o.strategy,
    symbol: o.symbol,
    side: o.side,
    // The detail's own price when it is all new and its sum is exactly price × quantity.
    price: perUnit(dQuote, dq, whole ? t : undefined),
    quantity: dq,
    fee,
    feeAsset: t.feeAsset,
    timestamp: t.timestamp,
    ...(o.tag ? { tag: o.tag } : {}),
  });
  o.filled = total;
  o.filledQuote = o.filledQuote.plus(dQuote);
  o.fee = o.fee.plus(fee);
  o.feeAsset = t.feeAsset;
  o.state = dgte(o.filled, o.quantity) ? 'filled' : 'partially_filled';
  o.updatedAt = now;
  o.quietPolls = 0;
  return { changed: true, previous, fills };
}

function estimateFee(snap: SpotOrder, dq: Decimal): Decimal {
  // Fee total absent: sum the new fills' fees when the snapshot lists them; otherwise zero.
  if (snap.fills.length === 0) return new Decimal(0);
  let qty = new Decimal(0);
  let fee = new Decimal(0);
  for (let i = snap.fills.length - 1; i >= 0 && dlt(qty, dq); i--) {
    qty = qty.plus(snap.fills[i]!.quantity);
    fee = fee.plus(snap.fills[i]!.fee);
  }
  return fee;
}
