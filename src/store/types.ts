/** What the journal stores and returns. Money, prices and quantities are Decimal in and out. */
import type { Decimal } from '../core/decimal.js';
import type { Side } from '../core/types/market.js';

export type TradingStateName = 'active' | 'reducing' | 'halted';

export interface TradingStateRecord {
  state: TradingStateName;
  reason?: string;
  /** Epoch ms since when the state holds. */
  since: number;
}

export interface OrderRecord {
  clientId: string;
  strategy: string;
  symbol: string;
  side: Side;
  /** LIMIT, MARKET, STOP_LIMIT, STOP_MARKET, OTC, ... */
  type: string;
  /** Where the order went: `wallex`, `sim`, `paper`, ... */
  venue: string;
  /** `main` or `prop:<clientId>`. */
  account?: string;
  price?: Decimal;
  quantity: Decimal;
  executedQty?: Decimal;
  /** Tracker state or exchange status (`pending`, `open`, `filled`, `canceled`, ...). */
  status: string;
  /** True once the order can never change again. */
  final: boolean;
  /** Epoch ms. */
  ts: number;
  intentId?: number;
  tag?: string;
  /** Anything else worth keeping (the exchange's last snapshot); stored as JSON. */
  detail?: unknown;
  /** Detail of the first event written with the order (default: `detail`). */
  eventDetail?: unknown;
}

export interface OrderUpdate {
  status: string;
  final: boolean;
  executedQty?: Decimal;
  ts: number;
  detail?: unknown;
}

export interface OrderRow extends Required<Omit<OrderRecord, 'price' | 'intentId' | 'tag' | 'detail' | 'eventDetail' | 'ts'>> {
  price?: Decimal;
  intentId?: number;
  tag?: string;
  detail?: unknown;
  createdTs: number;
  updatedTs: number;
}

export interface OrderEventRow {
  clientId: string;
  ts: number;
  state: string;
  detail?: unknown;
}

export interface FillRecord {
  clientId: string;
  /**
   * What makes this fill unique within its order (a trade id, or the executed quantity after it).
   * Default: `<ts>:<price>:<quantity>`. The same (clientId, fillKey) is stored once.
   */
  fillKey?: string;
  strategy: string;
  symbol: string;
  side: Side;
  price: Decimal;
  quantity: Decimal;
  fee: Decimal;
  feeAsset: string;
  /** Epoch ms. */
  ts: number;
  tag?: string;
}

export interface FillRow extends Required<Omit<FillRecord, 'tag'>> {
  id: number;
  tag?: string;
}

export interface EquityRow {
  ts: number;
  asset: string;
  equity: Decimal;
  balances: Record<string, Decimal>;
}

export interface PositionRow {
  id: number;
  strategy?: string;
  market: string;
  state: string;
  updatedTs: number;
  /** The position as stored (Decimals as strings). */
  position: Record<string, unknown>;
}

export interface IntentRow {
  id: number;
  ts: number;
  strategy: string;
  kind: string;
  intent: Record<string, unknown>;
  verdict?: { ok: boolean; rule?: string; reason?: string; adjustments: unknown[]; ts: number };
}

export interface QueryFilter {
  strategy?: string;
  symbol?: string;
  /** Epoch ms, inclusive. */
  since?: number;
  /** Epoch ms, exclusive. */
  until?: number;
}

/** A page of orders or fills (the API's lists): newest first, `limit` rows after skipping `offset`. */
export interface PageFilter extends QueryFilter {
  /** Orders: the exchange state (`open`, `filled`, `cancelled`, ...). */
  status?: string;
  /** Fills: only rows with a larger id (a tail of the table). */
  afterId?: number;
  limit: number;
  offset?: number;
}
