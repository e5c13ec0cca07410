/** The route handlers called directly with WireRequest objects: parameters, envelopes, statuses. */
import { describe, it, expect, beforeEach } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Ledger } from '../../../src/sim/ledger.js';
import { SimError } from '../../../src/sim/errors.js';
import { MarginDesk } from '../../../src/sim/margin/desk.js';
import { InstantDesk } from '../../../src/sim/instant.js';
import { PropDesk } from '../../../src/sim/prop.js';
import { AccountExtras } from '../../../src/sim/account-extras.js';
import { WithdrawalDesk } from '../../../src/sim/withdrawal.js';
import { marginRoutes } from '../../../src/sim/wire/routes/margin.js';
import { instantRoutes } from '../../../src/sim/wire/routes/instant.js';
import { propAdminRoutes, propRoutes } from '../../../src/sim/wire/routes/prop.js';
import { withdrawalRoutes } from '../../../src/sim/wire/routes/withdrawal.js';
import { profileRoutes } from '../../../src/sim/wire/routes/profile.js';
import type { HttpMethod, Route, WireRequest, WireResponse } from '../../../src/sim/wire/route.js';
import { D, FakePrices, specs, T0 } from './helpers.js';

let routes: Route[];
let ledger: Ledger;
let prop: PropDesk;

function req(method: HttpMethod, path: string, extra: Partial<WireRequest> = {}): WireRequest {
  return { method, path, params: {}, query: {}, body: {}, headers: {}, ip: '127.0.0.1', accountId: 'a', ...extra };
}

/** Finds the route like the server's router and calls it; a SimError becomes its status and fields. */
async function call(method: HttpMethod, path: string, extra: Partial<WireRequest> = {}): Promise<WireResponse & { fields?: string[] }> {
  for (const r of routes) {
    const names: string[] = [];
    const re = new RegExp(
      '^' +
        r.path.replace(/:([a-z_]+)/g, (_m, n: string) => {
          names.push(n);
          return '([^/]+)';
        }) +
        '$',
    );
    const m = re.exec(path);
    if (!m || r.method !== method) continue;
    const params = Object.fromEntries(names.map((n, i) => [n, m[i + 1] ?? '']));
    try {
      return await r.handler(req(method, path, { params, ...extra }));
    } catch (e) {
      if (e instanceof SimError) return { status: e.status, body: null, fields: Object.keys(e.fields) };
      throw e;
    }
  }
  throw new Error(`no route ${method} ${path}`);
}
const result = (r: WireResponse) => (r.body as { result: Record<string, unknown> }).result;

beforeEach(() => {
  const clock = new ManualClock(T0);
  ledger = new Ledger();
  ledger.credit('a', 'USDT', D(10000));
  ledger.credit('a', 'TMN', D(1_000_000));
  const prices = new FakePrices();
  prices.set('BTCUSDT', '50000', '50000');
  const base = { ledger, prices, clock };
  prop = new PropDesk(base);
  const extras = new AccountExtras({ clock });
  const resolveSubAccount = (a: string, c: string) => prop.resolveSubAccount(a, c);
  routes = [
    ...marginRoutes(new MarginDesk({ ...base, specs, symbols: () => ['BTCUSDT', 'ETHUSDT'] }), { resolveSubAccount }),
    ...instantRoutes(new InstantDesk({ ...base, specs }), { resolveSubAccount }),
    ...propRoutes(prop),
    ...propAdminRoutes(prop, (_owner, clientId) => `key_${clientId}`),
    ...withdrawalRoutes(new WithdrawalDesk({ ledger, extras, clock }), {
      keyInfo: (k) => (k === 'w' ? { permissions: ['read', 'withdraw'], ips: ['127.0.0.1'] } : { permissions: ['read'], ips: [] }),
    }),
    ...profileRoutes(extras),
  ];
});

const openBody = { market: 'btcusdt', side: 'long', collateral: '1000', risk_coef: '5', open_price: '50000', stop_loss: '45000' };

describe('margin routes', () => {
  it('opens from string parameters and answers the envelope with money objects', async () => {
    const r = await call('POST', '/margin-trade/v1/positions', { body: openBody });
    expect(r.status).toBe(200);
    expect(result(r)).toMatchObject({
      id: 1,
      market: 'BTCUSDT',
      stop_loss: '45000',
      collateral: { currency: 'USDT', value: '1000' },
      liquidity_price: '42105.27',
    });
    expect((r.body as { success: boolean }).success).toBe(true);
    expect(result(await call('GET', '/margin-trade/v1/positions/1'))).toMatchObject({ id: 1 });
    expect((await call('GET', '/margin-trade/v1/positions/7')).status).toBe(404);
    expect(result(await call('PATCH', '/margin-trade/v1/positions/1/sltp', { body: { take_profit: '55000' } }))).toMatchObject({
      stop_loss: null,
      take_profit: '55000',
    });
    expect(result(await call('PATCH', '/margin-trade/v1/positions/1/collateral', { body: { change: 100 } }))).toMatchObject({ collateral: { value: '1100' } });
    expect(result(await call('PATCH', '/margin-trade/v1/positions/1/close', { body: { price: '50000' } }))).toMatchObject({ state: 'closed' });
  });

  it('names the bad or missing field with 422', async () => {
    expect((await call('POST', '/margin-trade/v1/positions', { body: { ...openBody, collateral: 'lots' } })).fields).toEqual(['collateral']);
    expect((await call('POST', '/margin-trade/v1/positions', { body: { ...openBody, side: 'up' } })).fields).toEqual(['side']);
    const { risk_coef: _k, ...noCoef } = openBody;
    expect((await call('POST', '/margin-trade/v1/public/dry-run', { body: noCoef })).fields).toEqual(['risk_coef']);
    expect((await call('GET', '/margin-trade/v1/positions', { query: { active: 'maybe' } })).fields).toEqual(['active']);
  });

  it('filters the list from query strings', async () => {
    await call('POST', '/margin-trade/v1/positions', { body: openBody });
    await call('POST', '/margin-trade/v1/positions', { body: { ...openBody, side: 'short', stop_loss: '52000' } });
    expect(
      (result(await call('GET', '/margin-trade/v1/positions', { query: { position_side: 'short', active: 'true' } })) as unknown as { id: number }[]).map(
        (p) => p.id,
      ),
    ).toEqual([2]);
    expect(result(await call('GET', '/margin-trade/v1/positions', { query: { market: 'ETHUSDT' } }))).toEqual([]);
  });

  it('serves the loan bounds, public markets and ratio', async () => {
    expect(
      result(await call('POST', '/margin-trade/v1/public/loan', { body: { market: 'BTCUSDT', side: 'short', risk_coef: '5', collateral: '1000' } })),
    ).toEqual({ collateral: { min: '4', max: '40000' }, loan: { currency: 'BTC', value: '0.1' } });
    const markets = result(await call('GET', '/margin-trade/v1/public/markets')) as unknown as { symbol: string; liquidity_margin: string }[];
    expect(markets.map((m) => m.symbol)).toEqual(['BTCUSDT', 'ETHUSDT']);
    expect(markets[0]?.liquidity_margin).toBe('0.05');
    await call('POST', '/margin-trade/v1/positions', { body: openBody });
    await call('POST', '/margin-trade/v1/positions', { body: { ...openBody, side: 'short', collateral: '3000', stop_loss: '52000' } });
    // long 5000, short 15000 of exposure
    expect(result(await call('GET', '/margin-trade/v1/public/ratio/BTCUSDT'))).toEqual({ market: 'BTCUSDT', long: '25', short: '75' });
  });
});

describe('instant routes', () => {
  it('answers the quote in the envelope and the order bare with 201', async () => {
    expect(result(await call('GET', '/v1/account/otc/price', { query: { symbol: 'BTCUSDT', side: 'buy' } }))).toMatchObject({ price: '50250', ttl: 10 });
    const o = await call('POST', '/v1/account/easy-trade/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', quantity: 0.01, from: 'otc' } });
    expect(o.status).toBe(201);
    expect(o.body).toMatchObject({ status: 'FILLED', executedQty: '0.01', price: '50250' });
    expect((await call('POST', '/v1/account/easy-trade/orders', { body: { symbol: 'BTCUSDT', side: 'BUY', quantity: 0.01 } })).fields).toEqual(['from']);
  });

  it('trades on a trading-credit sub-account named by the header', async () => {
    const opened = result(await call('POST', '/__sim/prop/open', { body: { package_id: 2 } }));
    const id = opened.client_id as string;
    await call('POST', '/v1/account/easy-trade/orders', {
      body: { symbol: 'BTCUSDT', side: 'BUY', quantity: '0.01', from: 'otc' },
      headers: { 'sub-account-client-id': id },
    });
    expect(ledger.get(prop.resolveSubAccount('a', id), 'BTC').value.toFixed()).toBe('0.00998');
    expect(ledger.get('a', 'BTC').value.toFixed()).toBe('0');
    const closed = await call('DELETE', '/v1/prop/user/packages', { headers: { 'sub-account-client-id': id } });
    expect(result(closed)).toMatchObject({ client_id: id, prop_package_id: 2 });
    expect((await call('DELETE', '/v1/prop/user/packages')).fields).toEqual(['sub-account-client-id']);
    const hist = await call('GET', '/v1/prop/user/packages/history');
    expect((hist.body as { result_info: unknown }).result_info).toEqual({ page: 1, per_page: 1, count: 1, total_count: 1 });
  });
});

describe('withdrawal and profile routes', () => {
  it('checks the key again from keyInfo: a read key is refused 403 with nothing moved', async () => {
    const iban = (result(await call('GET', '/v1/account/ibans')) as unknown as { id: number }[])[0]?.id;
    expect((await call('POST', '/v1/account/money-withdrawal', { body: { iban, value: 1000 }, headers: { 'x-api-key': 'r' } })).status).toBe(403);
    expect(ledger.get('a', 'TMN').locked.toFixed()).toBe('0');
    const ok = await call('POST', '/v1/account/money-withdrawal', { body: { iban: String(iban), value: '1000' }, headers: { 'x-api-key': 'w' } });
    expect(result(ok)).toMatchObject({ amount: 1000, status: 'pending' });
    expect((await call('POST', '/v1/account/money-withdrawal', { body: { iban: 'x', value: 1 }, headers: { 'x-api-key': 'w' } })).fields).toEqual(['iban']);
  });

  it('serves profile, cards, IBANs with result_info, wallets with provider; 401 without an account', async () => {
    expect(result(await call('GET', '/v1/account/profile'))).toMatchObject({ verification: 'VERIFIED' });
    expect(result(await call('GET', '/v1/account/card-numbers'))).toHaveLength(1);
    expect((await call('GET', '/v1/account/ibans')).body).toMatchObject({ result_info: { total_count: 1 } });
    const w = await call('GET', '/v1/account/wallets/btc', { query: { network: 'BTC' } });
    expect(w.body).toMatchObject({ success: true, provider: 'mizan-sim', result: { coin_type: { key: 'BTC' } } });
    expect((await call('GET', '/v1/account/profile', { accountId: undefined })).status).toBe(401);
  });
});
