/**
 * Every endpoint of the exchange's specification (and the ones its current documentation adds),
 * so a request to one that no module serves yet gets a clear 501 instead of a 404.
 */
import type { HttpMethod } from './route.js';

export const SPEC_ENDPOINTS: { method: HttpMethod; path: string; area: string }[] = [
  { method: 'GET', path: '/v1/account/profile', area: 'profile' },
  { method: 'GET', path: '/v1/account/card-numbers', area: 'bank cards' },
  { method: 'GET', path: '/v1/account/ibans', area: 'IBANs' },
  { method: 'GET', path: '/v1/account/wallets/:coin', area: 'crypto wallets' },
  { method: 'POST', path: '/v1/account/money-withdrawal', area: 'withdrawals' },
  { method: 'GET', path: '/v1/account/crypto-deposit', area: 'wallet history' },
  { method: 'GET', path: '/v1/account/crypto-withdrawal', area: 'wallet history' },
  { method: 'POST', path: '/v1/account/easy-trade/orders', area: 'instant (OTC) orders' },
  { method: 'POST', path: '/v1/account/otc/orders', area: 'instant (OTC) orders' },
  { method: 'GET', path: '/v1/account/otc/price', area: 'instant (OTC) orders' },
  { method: 'GET', path: '/v1/otc/markets', area: 'instant (OTC) orders' },
  { method: 'GET', path: '/margin-trade/v1/public/markets', area: 'margin' },
  { method: 'POST', path: '/margin-trade/v1/public/dry-run', area: 'margin' },
  { method: 'POST', path: '/margin-trade/v1/public/loan', area: 'margin' },
  { method: 'GET', path: '/margin-trade/v1/public/ratio/:market', area: 'margin' },
  { method: 'GET', path: '/margin-trade/v1/positions', area: 'margin' },
  { method: 'POST', path: '/margin-trade/v1/positions', area: 'margin' },
  { method: 'GET', path: '/margin-trade/v1/positions/:id', area: 'margin' },
  { method: 'PATCH', path: '/margin-trade/v1/positions/:id/collateral', area: 'margin' },
  { method: 'PATCH', path: '/margin-trade/v1/positions/:id/close', area: 'margin' },
  { method: 'PATCH', path: '/margin-trade/v1/positions/:id/sltp', area: 'margin' },
  { method: 'POST', path: '/margin-trade/v1/positions/:id/profit', area: 'margin' },
  { method: 'GET', path: '/margin-trade/v1/orders', area: 'margin' },
  { method: 'GET', path: '/margin-trade/v1/user/levels', area: 'margin' },
  { method: 'GET', path: '/margin-trade/v1/user/levels/:market', area: 'margin' },
  { method: 'GET', path: '/margin-trade/v1/user/pnl', area: 'margin' },
  { method: 'GET', path: '/v1/prop/user/packages/history', area: 'trading credit' },
  { method: 'GET', path: '/v1/prop/packages/:id', area: 'trading credit' },
  { method: 'DELETE', path: '/v1/prop/user/packages', area: 'trading credit' },
];
