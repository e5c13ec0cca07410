/**
 * Parsers for margin (commitment) positions, dry runs and loan bounds (spec 2.14). Responses are
 * documented both bare and wrapped in `result`; money fields both as `{currency, value}` objects
 * and as plain values (the create response).
 */
import type { LoanBounds, MarginDryRun, MarginPosition, Money, PositionSide } from '../../core/types/index.js';
import { arr, bool, boolOpt, compact, dec, decOpt, int, isObject, obj, parseFail, str, strOpt, strOrNull } from './fields.js';
import { unwrapResult } from './envelope.js';

function parsePositionSide(value: unknown, field: string): PositionSide {
  const s = typeof value === 'string' ? value.toLowerCase() : value;
  if (s === 'long' || s === 'short') return s;
  throw parseFail(field, 'long or short', value);
}

/** A money object `{currency, value}` or a plain number / numeric string. */
export function parseMoney(value: unknown, field: string): Money {
  if (isObject(value)) {
    const currency = strOpt(value.currency, `${field}.currency`);
    const v = dec(value.value, `${field}.value`);
    return currency === undefined ? { value: v } : { currency, value: v };
  }
  return { value: dec(value, field) };
}

function moneyOpt(value: unknown, field: string): Money | undefined {
  return value == null || value === '' ? undefined : parseMoney(value, field);
}

function ageOpt(value: unknown, field: string): string | number | undefined {
  if (value == null || value === '') return undefined;
  if (typeof value === 'number' || typeof value === 'string') return value;
  throw parseFail(field, 'a duration (number or string)', value);
}

export function parseMarginPosition(json: unknown, field = 'position'): MarginPosition {
  const o = obj(unwrapResult(json), field);
  const zero = (k: string): Money => moneyOpt(o[k], `${field}.${k}`) ?? { value: dec(0, k) };
  return compact<MarginPosition>({
    id: int(o.id, `${field}.id`),
    market: str(o.market, `${field}.market`),
    side: parsePositionSide(o.side, `${field}.side`),
    state: str(o.state, `${field}.state`),
    callPrice: dec(o.call_price, `${field}.call_price`),
    liquidityPrice: dec(o.liquidity_price, `${field}.liquidity_price`),
    isCalled: bool(o.is_called ?? false, `${field}.is_called`),
    openPrice: dec(o.open_price, `${field}.open_price`),
    openFilledPrice: decOpt(o.open_filled_price, `${field}.open_filled_price`),
    openedAt: strOpt(o.opened_at, `${field}.opened_at`),
    closePrice: decOpt(o.close_price, `${field}.close_price`),
    closeFilledPrice: decOpt(o.close_filled_price, `${field}.close_filled_price`),
    closeReason: strOrNull(o.close_reason, `${field}.close_reason`),
    closedAt: strOrNull(o.closed_at, `${field}.closed_at`),
    createdAt: strOpt(o.created_at, `${field}.created_at`),
    updatedAt: strOpt(o.updated_at, `${field}.updated_at`),
    expiresAt: strOpt(o.expires_at, `${field}.expires_at`),
    extendTime: strOpt(o.extend_time, `${field}.extend_time`),
    maxAge: ageOpt(o.max_age, `${field}.max_age`),
    firstOrderFilled: boolOpt(o.first_order_filled, `${field}.first_order_filled`),
    // Collateral and loan are what the position is: required. Interest and profit start at zero.
    collateral: parseMoney(o.collateral, `${field}.collateral`),
    loan: parseMoney(o.loan, `${field}.loan`),
    interest: zero('interest'),
    profit: zero('profit'),
    profitPercentage: decOpt(o.profit_percentage, `${field}.profit_percentage`),
    riskCoef: dec(o.risk_coef, `${field}.risk_coef`),
    stopLoss: decOpt(o.stop_loss, `${field}.stop_loss`),
    takeProfit: decOpt(o.take_profit, `${field}.take_profit`),
  });
}

/** Position list: an array, `{positions: [...]}`, or either wrapped in `result`. */
export function parseMarginPositions(json: unknown): MarginPosition[] {
  const v = unwrapResult(json);
  let list: unknown[];
  if (Array.isArray(v)) list = v;
  else {
    const o = obj(v, 'result');
    list = arr(o.positions ?? o.items ?? o.data, 'result.positions');
  }
  return list.map((p, i) => parseMarginPosition(p, `positions[${i}]`));
}

export function parseMarginDryRun(json: unknown): MarginDryRun {
  const o = obj(unwrapResult(json), 'dryRun');
  const f = 'dryRun';
  return compact<MarginDryRun>({
    market: str(o.market, `${f}.market`),
    side: parsePositionSide(o.side, `${f}.side`),
    callPrice: dec(o.call_price, `${f}.call_price`),
    liquidityPrice: dec(o.liquidity_price, `${f}.liquidity_price`),
    openPrice: dec(o.open_price, `${f}.open_price`),
    riskCoef: dec(o.risk_coef, `${f}.risk_coef`),
    stopLoss: decOpt(o.stop_loss, `${f}.stop_loss`),
    takeProfit: decOpt(o.take_profit, `${f}.take_profit`),
    extendTime: strOpt(o.extend_time, `${f}.extend_time`),
    maxAge: ageOpt(o.max_age, `${f}.max_age`),
    collateral: parseMoney(o.collateral, `${f}.collateral`),
    loan: parseMoney(o.loan, `${f}.loan`),
    extendFee: parseMoney(o.extend_fee, `${f}.extend_fee`),
    openFee: parseMoney(o.open_fee, `${f}.open_fee`),
    tradeFee: parseMoney(o.trade_fee, `${f}.trade_fee`),
  });
}

export function parseLoanBounds(json: unknown): LoanBounds {
  const o = obj(unwrapResult(json), 'loan');
  const c = obj(o.collateral, 'loan.collateral');
  return {
    collateralMin: dec(c.min, 'loan.collateral.min'),
    collateralMax: dec(c.max, 'loan.collateral.max'),
    loan: parseMoney(o.loan, 'loan.loan'),
  };
}
