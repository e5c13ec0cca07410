/**
 * The orders of a backtest as the result lists them (result.json's `orders`): spot orders from the
 * execution engine, instant orders from the OTC desk, margin positions as their opening and closing
 * orders. Plain JSON: amounts as decimal strings, times in ms.
 */
import { Decimal } from '../core/decimal.js';
import { parseMarginPosition } from '../exchange/parse/margin.js';
import { BACKTEST_ACCOUNT, type Harness } from './setup.js';
import type { OrderRecord } from './order-record.js';

export type { OrderRecord } from './order-record.js';

const iso = (s: string | null | undefined): number => (s ? Date.parse(s) : 0);

/**
 * Instant orders and margin positions as order records. A margin position is an opening order
 * (`MARGIN_OPEN`, BUY for a long, SELL for a short; fee = the opening fee) and, once closed, a
 * closing one (`MARGIN_CLOSE`; fee = the closing fee, reason = the close reason). Quantities are
 * the base quantity the position held.
 */
export function otherOrders(h: Harness): OrderRecord[] {
  const out: OrderRecord[] = [];
  for (const { order: o, strategy, tag } of h.instants) {
    const t = o.transactTime ? o.transactTime * 1000 : iso(o.createdAt);
    out.push({
      kind: 'instant',
      clientOrderId: o.clientOrderId,
      strategy: strategy ?? 'unknown',
      symbol: o.symbol,
      side: o.side,
      type: 'OTC',
      price: o.price.toFixed(),
      stopPrice: null,
      quantity: o.origQty.toFixed(),
      filled: o.executedQty.toFixed(),
      avgPrice: o.executedPrice ? o.executedPrice.toSignificantDigits(12).toFixed() : null,
      fee: (o.fee ?? o.fills.reduce((a, f) => a.plus(f.fee), new Decimal(0))).toFixed(),
      feeAsset: o.fills[0]?.feeAsset ?? null,
      state: o.status === 'FILLED' ? 'filled' : o.status.toLowerCase(),
      reason: null,
      tag: tag ?? null,
      createdAt: t,
      updatedAt: t,
    });
  }
  const desk = h.desks.margin;
  for (const w of desk.list(BACKTEST_ACCOUNT, {})) {
    const p = parseMarginPosition(w);
    const c = desk.costs(BACKTEST_ACCOUNT, p.id);
    const strategy = h.owners.owner(p) ?? 'unknown';
    const { quote } = h.split(p.market);
    const qty = c.baseQty.abs().toFixed();
    const filled = p.openFilledPrice !== undefined;
    const created = iso(p.createdAt);
    const opened = iso(p.openedAt) || created;
    out.push({
      kind: 'margin',
      clientOrderId: `margin-${p.id}-open`,
      strategy,
      symbol: p.market,
      side: p.side === 'long' ? 'BUY' : 'SELL',
      type: 'MARGIN_OPEN',
      price: p.openPrice.toFixed(),
      stopPrice: null,
      quantity: qty,
      filled: filled ? qty : '0',
      avgPrice: p.openFilledPrice?.toFixed() ?? null,
      fee: c.openFee.toFixed(),
      feeAsset: quote,
      state: filled ? 'filled' : p.state === 'canceled' ? 'cancelled' : 'open',
      reason: null,
      tag: null,
      createdAt: created,
      updatedAt: filled ? opened : iso(p.updatedAt) || created,
    });
    if (p.state === 'closed' || p.state === 'liquidated') {
      const closed = iso(p.closedAt);
      out.push({
        kind: 'margin',
        clientOrderId: `margin-${p.id}-close`,
        strategy,
        symbol: p.market,
        side: p.side === 'long' ? 'SELL' : 'BUY',
        type: 'MARGIN_CLOSE',
        price: p.closePrice?.toFixed() ?? null,
        stopPrice: null,
        quantity: qty,
        filled: qty,
        avgPrice: p.closeFilledPrice?.toFixed() ?? null,
        // What the account paid of the closing fee: interest comes out of the position's equity
        // first, and after a gap liquidation the clamped payout may have left nothing for the fee.
        fee: Decimal.min(c.closeFee, Decimal.max(0, c.closeCostsPaid.minus(c.interest))).toFixed(),
        feeAsset: quote,
        state: 'filled',
        reason: p.state === 'liquidated' ? 'liquidation' : String(p.closeReason ?? 'closed'),
        tag: null,
        createdAt: closed,
        updatedAt: closed,
      });
    }
  }
  return out;
}

/** The spot orders of the run as records, in the order they were placed (made as each one ended: spot-order-log.ts). */
export function spotOrders(h: Harness): OrderRecord[] {
  if (!h.spotLog) throw new Error("the run kept no order records (runBacktest with detail: 'summary')");
  return h.spotLog.all();
}

/** Spot orders, then instant and margin ones merged in by time (stable). */
export function withOthers(spot: OrderRecord[], other: OrderRecord[]): OrderRecord[] {
  return other.length === 0 ? spot : [...spot, ...other].sort((a, b) => a.createdAt - b.createdAt);
}
