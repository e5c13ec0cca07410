/**
 * Parsers of the margin calls beyond positions (developers.wallex.ir margin pages): public markets
 * (documented fields `symbol, base, quote, min_risk_coef, max_risk_coef, risk_coef_step,
 * liquidity_margin, max_age`), the long/short ratio, margin orders, the user's levels and profit.
 * Every answer is read bare or wrapped in `result`; lists also as `{items|orders|markets: [...]}`.
 */
import type { MarginLevel, MarginMarket, MarginOrder, MarginPnl, MarginProfit, MarginRatio } from '../../core/types/index.js';
import { unwrapResult } from './envelope.js';
import { compact, dec, decOpt, int, intOpt, isObject, obj, parseFail, str, strOpt } from './fields.js';
import { parseMoney } from './margin.js';

function list(json: unknown, field: string, keys: string[]): unknown[] {
  const v = unwrapResult(json);
  if (Array.isArray(v)) return v;
  const o = obj(v, field);
  for (const k of keys) if (Array.isArray(o[k])) return o[k] as unknown[];
  // A map keyed by symbol.
  if (Object.values(o).every(isObject)) return Object.values(o);
  throw parseFail(field, `an array (or {${keys.join('|')}: [...]})`, v);
}

function parseMarginMarket(json: unknown, f = 'market'): MarginMarket {
  const o = obj(json, f);
  const maxAge = o.max_age;
  return compact<MarginMarket>({
    symbol: str(o.symbol, `${f}.symbol`).toUpperCase(),
    base: str(o.base, `${f}.base`),
    quote: str(o.quote, `${f}.quote`),
    minRiskCoef: dec(o.min_risk_coef, `${f}.min_risk_coef`),
    maxRiskCoef: dec(o.max_risk_coef, `${f}.max_risk_coef`),
    riskCoefStep: decOpt(o.risk_coef_step, `${f}.risk_coef_step`),
    liquidityMargin: decOpt(o.liquidity_margin, `${f}.liquidity_margin`),
    maxAgeSec: maxAge == null || maxAge === '' ? undefined : int(typeof maxAge === 'string' ? Number(maxAge) : maxAge, `${f}.max_age`),
  });
}

export function parseMarginMarkets(json: unknown): MarginMarket[] {
  return list(json, 'result', ['markets', 'items']).map((m, i) => parseMarginMarket(m, `markets[${i}]`));
}

export function parseMarginRatio(json: unknown): MarginRatio {
  const o = obj(unwrapResult(json), 'ratio');
  return { market: str(o.market, 'ratio.market'), long: dec(o.long, 'ratio.long'), short: dec(o.short, 'ratio.short') };
}

export function parseMarginOrders(json: unknown): MarginOrder[] {
  return list(json, 'result', ['orders', 'items']).map((x, i) => {
    const f = `orders[${i}]`;
    const o = obj(x, f);
    const side = str(o.side, `${f}.side`).toLowerCase();
    if (side !== 'buy' && side !== 'sell') throw parseFail(`${f}.side`, 'buy or sell', o.side);
    return compact<MarginOrder>({
      id: String(o.id ?? ''),
      positionId: int(o.position_id, `${f}.position_id`),
      market: str(o.market, `${f}.market`),
      side,
      purpose: str(o.purpose, `${f}.purpose`),
      price: decOpt(o.price, `${f}.price`),
      filledPrice: decOpt(o.filled_price, `${f}.filled_price`),
      quantity: decOpt(o.quantity, `${f}.quantity`),
      state: str(o.state, `${f}.state`),
      createdAt: strOpt(o.created_at, `${f}.created_at`),
      fee: o.fee == null || o.fee === '' ? undefined : parseMoney(o.fee, `${f}.fee`),
    });
  });
}

export function parseMarginLevel(json: unknown, f = 'level'): MarginLevel {
  const o = obj(unwrapResult(json), f);
  return compact<MarginLevel>({
    market: str(o.market, `${f}.market`),
    level: int(o.level, `${f}.level`),
    minRiskCoef: dec(o.min_risk_coef, `${f}.min_risk_coef`),
    maxRiskCoef: dec(o.max_risk_coef, `${f}.max_risk_coef`),
    riskCoefStep: decOpt(o.risk_coef_step, `${f}.risk_coef_step`),
  });
}

export function parseMarginLevels(json: unknown): MarginLevel[] {
  return list(json, 'result', ['levels', 'items']).map((l, i) => parseMarginLevel(l, `levels[${i}]`));
}

export function parseMarginPnl(json: unknown): MarginPnl[] {
  return list(json, 'result', ['pnl', 'items']).map((x, i) => {
    const f = `pnl[${i}]`;
    const o = obj(x, f);
    return compact<MarginPnl>({
      currency: str(o.currency, `${f}.currency`),
      realizedProfit: dec(o.realized_profit, `${f}.realized_profit`),
      unrealizedProfit: dec(o.unrealized_profit, `${f}.unrealized_profit`),
      closedPositions: intOpt(o.closed_positions, `${f}.closed_positions`),
      openPositions: intOpt(o.open_positions, `${f}.open_positions`),
    });
  });
}

export function parseMarginProfit(json: unknown): MarginProfit {
  const o = obj(unwrapResult(json), 'profit');
  return compact<MarginProfit>({
    id: int(o.id, 'profit.id'),
    market: str(o.market, 'profit.market'),
    state: strOpt(o.state, 'profit.state'),
    profit: parseMoney(o.profit, 'profit.profit'),
    profitPercentage: decOpt(o.profit_percentage, 'profit.profit_percentage'),
  });
}
