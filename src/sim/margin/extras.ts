/**
 * The margin calls the documentation lists by path only (developers.wallex.ir: `POST positions/{id}/profit`,
 * `GET /margin-trade/v1/orders`, `GET user/levels[/{market}]`, `GET user/pnl`), answered from the
 * desk's positions. Their fields are the simulator's reading, built from the position's own fields
 * (snake_case, money as `{currency, value}`); docs/EXCHANGE-COVERAGE.md says so.
 */
import { Decimal } from '../../core/decimal.js';
import { simErrors } from '../errors.js';
import type { MarginDesk } from './desk.js';
import type { WirePosition } from './position.js';
import { money, type WireMoney } from './ports.js';

/** One order the desk sent for a position: its opening, and its closing once it closed. */
export interface WireMarginOrder {
  id: string;
  position_id: number;
  market: string;
  /** buy opens a long and closes a short. */
  side: 'buy' | 'sell';
  purpose: 'open' | 'close';
  price: string | null;
  filled_price: string | null;
  quantity: string;
  state: 'filled' | 'pending' | 'canceled';
  created_at: string | null;
  /** What the order cost: the opening fee (0 once a pending opening is canceled: refunded), the closing fee. */
  fee: WireMoney;
}

export interface WireMarginLevel {
  market: string;
  level: number;
  min_risk_coef: string;
  max_risk_coef: string;
  risk_coef_step: string;
}

export interface WireMarginPnl {
  currency: string;
  realized_profit: string;
  unrealized_profit: string;
  closed_positions: number;
  open_positions: number;
}

function ordersOf(desk: MarginDesk, account: string, p: WirePosition): WireMarginOrder[] {
  const costs = desk.costs(account, p.id);
  const qty = costs.baseQty.abs().toFixed();
  const fee = (v: Decimal) => money(p.profit.currency, v);
  const openSide = p.side === 'long' ? 'buy' : 'sell';
  const closeSide = p.side === 'long' ? 'sell' : 'buy';
  const out: WireMarginOrder[] = [
    {
      id: `${p.id}-open`,
      position_id: p.id,
      market: p.market,
      side: openSide,
      purpose: 'open',
      price: p.open_price,
      filled_price: p.open_filled_price,
      quantity: qty,
      state: p.open_filled_price ? 'filled' : p.state === 'canceled' ? 'canceled' : 'pending',
      created_at: p.created_at,
      fee: fee(costs.openFee),
    },
  ];
  if (p.close_price || p.close_filled_price) {
    out.push({
      id: `${p.id}-close`,
      position_id: p.id,
      market: p.market,
      side: closeSide,
      purpose: 'close',
      price: p.close_price ?? p.close_filled_price,
      filled_price: p.close_filled_price,
      quantity: qty,
      state: p.close_filled_price ? 'filled' : 'pending',
      created_at: p.closed_at ?? p.updated_at,
      fee: fee(costs.closeFee),
    });
  }
  return out;
}

/** `GET /margin-trade/v1/orders[?market=&position_id=]`: the account's margin orders, newest first. */
export function marginOrders(desk: MarginDesk, account: string, filter: { market?: string; positionId?: number } = {}): WireMarginOrder[] {
  const list = desk.list(account, filter.market ? { market: filter.market } : {}).filter((p) => filter.positionId === undefined || p.id === filter.positionId);
  return list.flatMap((p) => ordersOf(desk, account, p)).reverse();
}

/** `POST positions/{id}/profit`: the position's profit now (at the mark while open, final once closed). */
export function positionProfit(
  desk: MarginDesk,
  account: string,
  id: number,
): { id: number; market: string; state: string; profit: WirePosition['profit']; profit_percentage: string } {
  const p = desk.get(account, id);
  return { id: p.id, market: p.market, state: p.state, profit: p.profit, profit_percentage: p.profit_percentage };
}

/** `GET user/levels[/{market}]`: the risk-coefficient range open to this user (the simulator has one level, the market's). */
export function userLevels(desk: MarginDesk): WireMarginLevel[] {
  return desk.publicMarkets().map((m) => ({
    market: String(m.symbol),
    level: 1,
    min_risk_coef: String(m.min_risk_coef),
    max_risk_coef: String(m.max_risk_coef),
    risk_coef_step: String(m.risk_coef_step),
  }));
}

export function userLevel(desk: MarginDesk, market: string): WireMarginLevel {
  const level = userLevels(desk).find((l) => l.market === market);
  if (!level) throw simErrors.notFound(`margin market ${JSON.stringify(market)} not found`);
  return level;
}

/** `GET user/pnl`: profit of the account's positions per currency, realized (closed) and unrealized (open). */
export function userPnl(desk: MarginDesk, account: string): WireMarginPnl[] {
  const by = new Map<string, { realized: Decimal; unrealized: Decimal; closed: number; open: number }>();
  for (const p of desk.list(account)) {
    if (p.state === 'pending' || p.state === 'canceled') continue;
    const currency = p.profit.currency;
    const row = by.get(currency) ?? { realized: new Decimal(0), unrealized: new Decimal(0), closed: 0, open: 0 };
    const value = new Decimal(p.profit.value);
    if (p.state !== 'open') {
      row.realized = row.realized.plus(value);
      row.closed += 1;
    } else {
      row.unrealized = row.unrealized.plus(value);
      row.open += 1;
    }
    by.set(currency, row);
  }
  return [...by.entries()].map(([currency, r]) => ({
    currency,
    realized_profit: r.realized.toFixed(),
    unrealized_profit: r.unrealized.toFixed(),
    closed_positions: r.closed,
    open_positions: r.open,
  }));
}
