/** One order as result.json lists it (backtest/order-records.ts makes them; spot-order-log.ts as spot orders end). */
export interface OrderRecord {
  /** `spot` (through the execution engine), `instant` (OTC desk) or `margin` (a position's opening or closing). */
  kind: 'spot' | 'instant' | 'margin';
  clientOrderId: string;
  strategy: string;
  symbol: string;
  side: string;
  type: string;
  price: string | null;
  stopPrice: string | null;
  quantity: string;
  filled: string;
  avgPrice: string | null;
  fee: string;
  feeAsset: string | null;
  state: string;
  reason: string | null;
  tag: string | null;
  createdAt: number;
  updatedAt: number;
}
