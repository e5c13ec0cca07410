/** Margin routes (spec 4.5, plus the documentation's public markets, ratio and sltp calls). */
import type { PositionSide } from '../../../core/types/margin.js';
import type { MarginDesk } from '../../margin/desk.js';
import { checkSide } from '../../margin/validate.js';
import { boolParam, decimalParam, intParam, requireDecimal, requireText, textParam, tradingAccount, type SubAccountResolver } from '../../margin/parse.js';
import { ok, type Route, type WireRequest } from '../route.js';
import type { MarginInput } from '../../margin/validate.js';

export interface MarginRoutesOptions {
  /** Maps `sub-account-client-id` to a ledger account (PropDesk.resolveSubAccount). */
  resolveSubAccount?: SubAccountResolver;
}

function input(req: WireRequest): MarginInput {
  const stopLoss = decimalParam(req, 'stop_loss');
  const takeProfit = decimalParam(req, 'take_profit');
  return {
    market: requireText(req, 'market').toUpperCase(),
    side: checkSide(requireText(req, 'side').toLowerCase()),
    collateral: requireDecimal(req, 'collateral'),
    riskCoef: requireDecimal(req, 'risk_coef'),
    openPrice: requireDecimal(req, 'open_price'),
    ...(stopLoss ? { stopLoss } : {}),
    ...(takeProfit ? { takeProfit } : {}),
  };
}

export function marginRoutes(desk: MarginDesk, opts: MarginRoutesOptions = {}): Route[] {
  const account = (req: WireRequest) => tradingAccount(req, opts.resolveSubAccount);
  const id = (req: WireRequest) => intParam(req, 'id', 'path');
  return [
    { method: 'GET', path: '/margin-trade/v1/public/markets', handler: () => ok(desk.publicMarkets()) },
    { method: 'GET', path: '/margin-trade/v1/public/ratio/:market', handler: (req) => ok(desk.ratio((req.params.market ?? '').toUpperCase())) },
    { method: 'POST', path: '/margin-trade/v1/public/dry-run', handler: (req) => ok(desk.dryRun(input(req))) },
    {
      method: 'POST',
      path: '/margin-trade/v1/public/loan',
      handler: (req) => {
        const collateral = decimalParam(req, 'collateral');
        const openPrice = decimalParam(req, 'open_price');
        return ok(
          desk.loanBounds({
            market: requireText(req, 'market').toUpperCase(),
            side: checkSide(requireText(req, 'side').toLowerCase()),
            riskCoef: requireDecimal(req, 'risk_coef'),
            ...(collateral ? { collateral } : {}),
            ...(openPrice ? { openPrice } : {}),
          }),
        );
      },
    },
    {
      method: 'GET',
      path: '/margin-trade/v1/positions',
      auth: 'read',
      handler: (req) => {
        const active = boolParam(req, 'active');
        const side = textParam(req, 'position_side');
        const market = textParam(req, 'market');
        return ok(
          desk.list(account(req), {
            ...(active !== undefined ? { active } : {}),
            ...(side ? { positionSide: checkSide(side.toLowerCase()) as PositionSide } : {}),
            ...(market ? { market: market.toUpperCase() } : {}),
          }),
        );
      },
    },
    { method: 'POST', path: '/margin-trade/v1/positions', auth: 'trade', orderCall: true, handler: (req) => ok(desk.open(account(req), input(req))) },
    { method: 'GET', path: '/margin-trade/v1/positions/:id', auth: 'read', handler: (req) => ok(desk.get(account(req), id(req))) },
    {
      method: 'PATCH',
      path: '/margin-trade/v1/positions/:id/collateral',
      auth: 'trade',
      orderCall: true,
      handler: (req) => ok(desk.addCollateral(account(req), id(req), requireDecimal(req, 'change'))),
    },
    {
      method: 'PATCH',
      path: '/margin-trade/v1/positions/:id/close',
      auth: 'trade',
      orderCall: true,
      handler: (req) => ok(desk.close(account(req), id(req), decimalParam(req, 'price'))),
    },
    {
      method: 'PATCH',
      path: '/margin-trade/v1/positions/:id/sltp',
      auth: 'trade',
      orderCall: true,
      handler: (req) => ok(desk.setBrackets(account(req), id(req), decimalParam(req, 'stop_loss'), decimalParam(req, 'take_profit'))),
    },
  ];
}
