/**
 * Intent builders for strategies: `limit('BUY', 'BTCUSDT', qty('0.01'), '60000')`. They leave the
 * strategy name out; the runner stamps it on every intent a handler returns.
 */
import { toDecimal, type DecimalInput } from '../core/decimal.js';
import type {
  Brackets,
  CancelAllIntent,
  ExitIntent,
  CancelIntent,
  InstantOrderIntent,
  Intent,
  MarginAddCollateralIntent,
  MarginCloseIntent,
  MarginBracketsIntent,
  MarginOpenIntent,
  Size,
  SpotOrderIntent,
} from '../core/intents.js';
import type { Side } from '../core/types/market.js';
import type { PositionSide } from '../core/types/margin.js';

/** An intent as a strategy writes it: the runner fills `strategy`. */
export type Draft<I extends Intent = Intent> = I extends Intent ? Omit<I, 'strategy'> & { strategy?: string } : never;

export interface OrderOptions {
  tag?: string;
  brackets?: { takeProfit?: DecimalInput; stopLoss?: DecimalInput };
}

/** Size in base units. */
export const qty = (quantity: DecimalInput): Size => ({ kind: 'base', quantity: toDecimal(quantity, 'quantity') });
/** Size as an amount of the quote currency (spent on a buy, received on a sell). */
export const quote = (amount: DecimalInput): Size => ({ kind: 'quote', amount: toDecimal(amount, 'amount') });
/** Size as a share (0 < f <= 1) of the free balance of the asset spent. */
export const fraction = (f: number): Size => {
  if (!(f > 0 && f <= 1)) throw new RangeError(`fraction must be in (0, 1], got ${f}`);
  return { kind: 'fraction', fraction: f };
};

function brackets(o?: OrderOptions): Brackets | undefined {
  if (!o?.brackets) return undefined;
  const b: Brackets = {};
  if (o.brackets.takeProfit !== undefined) b.takeProfit = toDecimal(o.brackets.takeProfit, 'brackets.takeProfit');
  if (o.brackets.stopLoss !== undefined) b.stopLoss = toDecimal(o.brackets.stopLoss, 'brackets.stopLoss');
  return b;
}

function order(
  side: Side,
  symbol: string,
  type: SpotOrderIntent['type'],
  size: Size,
  price: DecimalInput | undefined,
  stopPrice: DecimalInput | undefined,
  o?: OrderOptions,
): Draft<SpotOrderIntent> {
  const draft: Draft<SpotOrderIntent> = { kind: 'order', symbol, side, type, size };
  if (price !== undefined) draft.price = toDecimal(price, 'price');
  if (stopPrice !== undefined) draft.stopPrice = toDecimal(stopPrice, 'stopPrice');
  const b = brackets(o);
  if (b) {
    // A limit entry's exits lie on either side of its price: a buy's stop below, its target above.
    const px = draft.price;
    if (px) {
      const below = side === 'BUY' ? 'below' : 'above';
      const above = side === 'BUY' ? 'above' : 'below';
      if (b.stopLoss && (side === 'BUY' ? b.stopLoss.gte(px) : b.stopLoss.lte(px))) {
        throw new RangeError(`brackets.stopLoss: ${b.stopLoss.toFixed()} must be ${below} the ${side} entry price ${px.toFixed()}`);
      }
      if (b.takeProfit && (side === 'BUY' ? b.takeProfit.lte(px) : b.takeProfit.gte(px))) {
        throw new RangeError(`brackets.takeProfit: ${b.takeProfit.toFixed()} must be ${above} the ${side} entry price ${px.toFixed()}`);
      }
    }
    draft.brackets = b;
  }
  if (o?.tag) draft.tag = o.tag;
  return draft;
}

export const limit = (side: Side, symbol: string, size: Size, price: DecimalInput, o?: OrderOptions) => order(side, symbol, 'LIMIT', size, price, undefined, o);
export const market = (side: Side, symbol: string, size: Size, o?: OrderOptions) => order(side, symbol, 'MARKET', size, undefined, undefined, o);
export const stopLimit = (side: Side, symbol: string, size: Size, stopPrice: DecimalInput, price: DecimalInput, o?: OrderOptions) =>
  order(side, symbol, 'STOP_LIMIT', size, price, stopPrice, o);
export const stopMarket = (side: Side, symbol: string, size: Size, stopPrice: DecimalInput, o?: OrderOptions) =>
  order(side, symbol, 'STOP_MARKET', size, undefined, stopPrice, o);

export const cancel = (clientOrderId: string, tag?: string): Draft<CancelIntent> => ({ kind: 'cancel', clientOrderId, ...(tag ? { tag } : {}) });
export const cancelAll = (symbol: string, tag?: string): Draft<CancelAllIntent> => ({ kind: 'cancelAll', symbol, ...(tag ? { tag } : {}) });
/**
 * Close the strategy's position in `symbol` (core/intents.ts ExitIntent): its brackets cancel their
 * resting legs and exit at market, the rest is sold at market. A plain sell of coins a bracket's stop
 * locks is denied by the balance rule.
 */
export const exit = (symbol: string, tag?: string): Draft<ExitIntent> => ({ kind: 'exit', symbol, ...(tag ? { tag } : {}) });

export const instant = (side: Side, symbol: string, size: Size, tag?: string): Draft<InstantOrderIntent> => ({
  kind: 'instant',
  symbol,
  side,
  size,
  ...(tag ? { tag } : {}),
});

export interface MarginOpenInput {
  market: string;
  side: PositionSide;
  collateral: DecimalInput;
  riskCoef: DecimalInput;
  openPrice?: DecimalInput;
  stopLoss?: DecimalInput;
  takeProfit?: DecimalInput;
  tag?: string;
}

export function marginOpen(i: MarginOpenInput): Draft<MarginOpenIntent> {
  const draft: Draft<MarginOpenIntent> = {
    kind: 'marginOpen',
    market: i.market,
    side: i.side,
    collateral: toDecimal(i.collateral, 'collateral'),
    riskCoef: toDecimal(i.riskCoef, 'riskCoef'),
  };
  if (i.openPrice !== undefined) draft.openPrice = toDecimal(i.openPrice, 'openPrice');
  if (i.stopLoss !== undefined) draft.stopLoss = toDecimal(i.stopLoss, 'stopLoss');
  if (i.takeProfit !== undefined) draft.takeProfit = toDecimal(i.takeProfit, 'takeProfit');
  if (i.tag) draft.tag = i.tag;
  return draft;
}

export const marginAddCollateral = (positionId: number, amount: DecimalInput, tag?: string): Draft<MarginAddCollateralIntent> => ({
  kind: 'marginAddCollateral',
  positionId,
  amount: toDecimal(amount, 'amount'),
  ...(tag ? { tag } : {}),
});

/** Moves a margin position's stop loss and take profit; one left out is removed (`sltp`). */
export const marginBrackets = (positionId: number, b: { stopLoss?: DecimalInput; takeProfit?: DecimalInput }, tag?: string): Draft<MarginBracketsIntent> => ({
  kind: 'marginBrackets',
  positionId,
  ...(b.stopLoss !== undefined ? { stopLoss: toDecimal(b.stopLoss, 'stopLoss') } : {}),
  ...(b.takeProfit !== undefined ? { takeProfit: toDecimal(b.takeProfit, 'takeProfit') } : {}),
  ...(tag ? { tag } : {}),
});

export const marginClose = (positionId: number, price?: DecimalInput, tag?: string): Draft<MarginCloseIntent> => ({
  kind: 'marginClose',
  positionId,
  ...(price !== undefined ? { price: toDecimal(price, 'price') } : {}),
  ...(tag ? { tag } : {}),
});
