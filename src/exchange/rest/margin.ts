/**
 * Margin (commitment) positions (spec 4.5). The two calculators are side-effect free (retried, key
 * sent when there is one); opening, adding collateral and closing are writes: never retried, and a
 * lost answer gives OrderOutcomeUnknownError (check the position list before acting again).
 */
import { toPlain, type Decimal } from '../../core/decimal.js';
import type { LoanBounds, MarginDryRun, MarginPosition, MarginPositionFilter, MarginRequest, PositionSide } from '../../core/types/index.js';
import { parseLoanBounds, parseMarginDryRun, parseMarginPosition, parseMarginPositions } from '../parse/margin.js';
import type { HttpCore } from './http.js';
import { guardWrite } from './write.js';
import * as v from './validate.js';

type Amount = Decimal | string | number;

function positionBody(r: MarginRequest): Record<string, string> {
  const body: Record<string, string> = {
    market: v.symbol(r.market, 'market'),
    side: v.positionSide(r.side),
    collateral: toPlain(v.positive(r.collateral, 'collateral')),
    risk_coef: toPlain(v.positive(r.riskCoef, 'riskCoef')),
    open_price: toPlain(v.positive(r.openPrice, 'openPrice')),
  };
  const sl = v.positiveOpt(r.stopLoss, 'stopLoss');
  const tp = v.positiveOpt(r.takeProfit, 'takeProfit');
  if (sl) body.stop_loss = toPlain(sl);
  if (tp) body.take_profit = toPlain(tp);
  return body;
}

/** POST /margin-trade/v1/public/dry-run: preview prices and fees of a position. */
export async function marginDryRun(http: HttpCore, r: MarginRequest): Promise<MarginDryRun> {
  const body = positionBody(r);
  const res = await http.request({ method: 'POST', path: '/margin-trade/v1/public/dry-run', body, auth: 'optional', retry: true, envelope: 'optional' });
  return parseMarginDryRun(res.payload);
}

export interface LoanQuery {
  market: string;
  side: PositionSide;
  riskCoef: Amount;
  collateral?: Amount;
  openPrice?: Amount;
}

/** POST /margin-trade/v1/public/loan: collateral bounds and the loan for a credit ratio. */
export async function marginLoan(http: HttpCore, q: LoanQuery): Promise<LoanBounds> {
  const body: Record<string, string> = {
    market: v.symbol(q.market, 'market'),
    side: v.positionSide(q.side),
    risk_coef: toPlain(v.positive(q.riskCoef, 'riskCoef')),
  };
  const c = v.positiveOpt(q.collateral, 'collateral');
  const p = v.positiveOpt(q.openPrice, 'openPrice');
  if (c) body.collateral = toPlain(c);
  if (p) body.open_price = toPlain(p);
  const res = await http.request({ method: 'POST', path: '/margin-trade/v1/public/loan', body, auth: 'optional', retry: true, envelope: 'optional' });
  return parseLoanBounds(res.payload);
}

/** GET /margin-trade/v1/positions?active=&position_side=&market= */
export async function getMarginPositions(http: HttpCore, f: MarginPositionFilter = {}): Promise<MarginPosition[]> {
  const active = v.booleanOpt(f.active, 'active');
  const query = {
    active: active === undefined ? undefined : String(active),
    position_side: f.positionSide === undefined ? undefined : v.positionSide(f.positionSide, 'positionSide'),
    market: f.market === undefined ? undefined : v.symbol(f.market, 'market'),
  };
  const res = await http.request({ method: 'GET', path: '/margin-trade/v1/positions', query, auth: true, retry: true, envelope: 'optional' });
  return parseMarginPositions(res.payload);
}

/** POST /margin-trade/v1/positions */
export async function openMarginPosition(http: HttpCore, r: MarginRequest): Promise<MarginPosition> {
  const body = positionBody(r);
  return guardWrite('openMarginPosition', undefined, async () => {
    const res = await http.request({
      method: 'POST',
      path: '/margin-trade/v1/positions',
      body,
      auth: true,
      retry: false,
      envelope: 'optional',
      orderCall: true,
    });
    return parseMarginPosition(res.payload, 'result');
  });
}

/** PATCH /margin-trade/v1/positions/{id}/collateral with `{change}`: adds to the collateral. */
export async function addMarginCollateral(http: HttpCore, id: number, change: Amount): Promise<MarginPosition> {
  const pid = v.positiveInt(id, 'id');
  const body = { change: toPlain(v.positive(change, 'change')) };
  return guardWrite('addMarginCollateral', undefined, async () => {
    const res = await http.request({
      method: 'PATCH',
      path: `/margin-trade/v1/positions/${pid}/collateral`,
      body,
      auth: true,
      retry: false,
      envelope: 'optional',
    });
    return parseMarginPosition(res.payload, 'result');
  });
}

/** PATCH /margin-trade/v1/positions/{id}/close with `{price}` (required, as documented). */
export async function closeMarginPosition(http: HttpCore, id: number, price: Amount): Promise<MarginPosition> {
  const pid = v.positiveInt(id, 'id');
  const body = { price: toPlain(v.positive(price, 'price')) };
  return guardWrite('closeMarginPosition', undefined, async () => {
    const res = await http.request({ method: 'PATCH', path: `/margin-trade/v1/positions/${pid}/close`, body, auth: true, retry: false, envelope: 'optional' });
    return parseMarginPosition(res.payload, 'result');
  });
}
