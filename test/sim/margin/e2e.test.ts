/**
 * End to end: mizan's REST client against the wire server with the margin, instant, trading-credit,
 * withdrawal and profile routes plugged in (127.0.0.1, port 0).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { Decimal } from '../../../src/core/decimal.js';
import { createDefaultSimulator } from '../../../src/sim/default.js';
import type { SimulatedExchange } from '../../../src/sim/exchange.js';
import { createSimDesks, type SimDesks } from '../../../src/sim/margin/wiring.js';
import { createWireServer, type WireServer } from '../../../src/sim/wire/server.js';
import { SPEC_ENDPOINTS } from '../../../src/sim/wire/spec-endpoints.js';
import { WallexRestClient } from '../../../src/exchange/rest/client.js';
import { RestVenue } from '../../../src/venues/rest-venue.js';
import { SimVenue } from '../../../src/venues/sim-venue.js';
import { T0 } from './helpers.js';

let sim: SimulatedExchange;
let desks: SimDesks;
let server: WireServer;
let client: WallexRestClient;
let withdrawKey: string;

const D = (v: string | number) => new Decimal(v);
const statusOf = async (p: Promise<unknown>): Promise<number | undefined> => {
  try {
    await p;
  } catch (e) {
    return (e as { status?: number }).status;
  }
  return undefined;
};

beforeAll(async () => {
  const clock = new ManualClock(T0);
  sim = createDefaultSimulator({ clock, seed: 7, seedBooks: false });
  sim.replaceBookSide('BTCUSDT', 'bid', [{ price: D(50000), quantity: D(5) }]);
  sim.replaceBookSide('BTCUSDT', 'ask', [{ price: D(50010), quantity: D(5) }]);
  sim.setLastPrice('BTCUSDT', D(50000));
  const acc = sim.createAccount({ id: 'e2e', balances: { USDT: '20000', BTC: '1', TMN: '500000000' } });
  const key = sim.createApiKey(acc.id, { name: 'bot', permissions: ['read', 'trade'] });
  withdrawKey = sim.createApiKey(acc.id, { name: 'cash', permissions: ['read', 'withdraw'], ips: ['127.0.0.1'] }).key;
  desks = createSimDesks(sim);
  server = await createWireServer({ sim, routes: desks.routes });
  client = new WallexRestClient({ baseUrl: server.url, apiKey: key.key, retries: 0, allowWithdrawals: true, clock });
});

afterAll(async () => {
  desks.detach();
  await server.close();
});

describe('REST client against the simulator: margin', () => {
  it("the live venue's previewPosition is the exchange's dry run: the call price the paper venue gives", async () => {
    const req = { market: 'BTCUSDT', side: 'short' as const, collateral: D(800), riskCoef: D(3), openPrice: D(50000) };
    const live = await new RestVenue(client).previewPosition(req);
    const paper = await new SimVenue({ sim, account: 'e2e', kind: 'paper', margin: desks.margin }).previewPosition(req);
    expect(live.callPrice.gt(50000)).toBe(true);
    expect(live.callPrice.toFixed()).toBe(paper.callPrice.toFixed());
    expect(live.liquidityPrice.toFixed()).toBe(paper.liquidityPrice.toFixed());
    expect(desks.margin.list('e2e', {})).toEqual([]);
  });

  it('dry-run, loan, open, list, add collateral, close', async () => {
    const req = { market: 'BTCUSDT', side: 'long' as const, collateral: D(1000), riskCoef: D(5), openPrice: D(50100) };
    const dry = await client.marginDryRun(req);
    expect(dry.loan.value.toFixed()).toBe('4000');
    const bounds = await client.marginLoan({ market: 'BTCUSDT', side: 'long', riskCoef: 5, collateral: 1000 });
    expect(bounds.collateralMin.toFixed()).toBe('4');
    const p = await client.openMarginPosition(req);
    expect(p).toMatchObject({ market: 'BTCUSDT', side: 'long', state: 'open', isCalled: false });
    expect(p.openFilledPrice?.toFixed()).toBe('50010');
    expect(p.collateral.value.toFixed()).toBe('1000');
    expect((await client.getMarginPositions({ active: true, positionSide: 'long', market: 'BTCUSDT' })).map((x) => x.id)).toEqual([p.id]);
    expect(await client.getMarginPositions({ positionSide: 'short' })).toEqual([]);
    const topped = await client.addMarginCollateral(p.id, '500');
    expect(topped.collateral.value.toFixed()).toBe('1500');
    expect(topped.liquidityPrice.lt(p.liquidityPrice)).toBe(true);
    const closed = await client.closeMarginPosition(p.id, '49000');
    expect(closed).toMatchObject({ state: 'closed', closeReason: 'user' });
    expect(closed.closeFilledPrice?.toFixed()).toBe('50000');
  });

  it('a 5%-away open price is refused with 422', async () => {
    expect(await statusOf(client.openMarginPosition({ market: 'BTCUSDT', side: 'long', collateral: D(1000), riskCoef: D(5), openPrice: D(60000) }))).toBe(422);
  });

  it('a replayed price through the liquidation price liquidates', async () => {
    const p = await client.openMarginPosition({ market: 'BTCUSDT', side: 'long', collateral: D(1000), riskCoef: D(10), openPrice: D(50010) });
    // a replayed public trade below the liquidation price (the simulator's `price` event drives the desk)
    sim.recordTrade({ symbol: 'BTCUSDT', price: p.liquidityPrice.minus(1), quantity: D('0.5'), isBuyOrder: false, timestamp: T0 + 1000 });
    const [after] = (await client.getMarginPositions({ market: 'BTCUSDT' })).filter((x) => x.id === p.id);
    expect(after).toMatchObject({ state: 'liquidated', closeReason: 'liquidation' });
    sim.recordTrade({ symbol: 'BTCUSDT', price: D(50000), quantity: D('0.5'), isBuyOrder: true, timestamp: T0 + 2000 });
  });
});

describe('REST client against the simulator: instant orders', () => {
  it('quotes and fills at once', async () => {
    const q = await client.getInstantQuote('BTCUSDT', 'BUY');
    expect(q.price.toFixed()).toBe('50260.05'); // 50010 * 1.005
    const before = sim.ledger.get('e2e', 'BTC').value;
    const o = await client.createInstantOrder({ symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.01') });
    expect(o).toMatchObject({ status: 'FILLED', active: false, executedPercent: 100, type: 'OTC' });
    expect(o.clientOrderId.startsWith('OTC-')).toBe(true);
    // 0.01 BTC less the 0.2% fee taken in BTC
    expect(sim.ledger.get('e2e', 'BTC').value.minus(before).toFixed()).toBe('0.00998');
  });
});

describe('REST client against the simulator: trading credit', () => {
  it('package, history, trading on the sub-account, closing', async () => {
    expect((await client.getPropPackage(2)).detail.loan.toFixed()).toBe('9000');
    const opened = desks.prop.openSubAccount('e2e', 2);
    const subId = opened.client_id as string;
    // The sub-account trades with its own key (the exchange refuses the main key for its orders).
    const subKey = sim.createApiKey('e2e', { name: 'prop', permissions: ['read', 'trade'], subAccount: subId }).key;
    const sub = client.withSubAccount(subId, subKey);
    const o = await sub.createInstantOrder({ symbol: 'BTCUSDT', side: 'BUY', quantity: D('0.01') });
    expect(o.status).toBe('FILLED');
    const ledgerId = desks.prop.resolveSubAccount('e2e', subId);
    expect(sim.ledger.get(ledgerId, 'BTC').value.toFixed()).toBe('0.00998');
    const hist = await client.getPropHistory();
    expect(hist.items[0]).toMatchObject({ clientId: subId, status: 'active', currency: 'USDT' });
    const closed = await client.closePropAccount(subId);
    expect(closed).toMatchObject({ clientId: subId, currency: 'USDT', propPackageId: 2 });
    expect(closed.startBalance.toFixed()).toBe('10000');
    expect((await client.getPropHistory()).items[0]?.status).toBe('closed');
  });
});

describe('REST client against the simulator: account extras and withdrawals', () => {
  it('profile, cards, IBANs with result_info, wallets', async () => {
    expect((await client.getProfile()).verification).toBe('VERIFIED');
    expect((await client.getBankCards())[0]?.status).toBe('ACCEPTED');
    const ibans = await client.getIbans();
    expect(ibans.pageInfo?.totalCount).toBe(1);
    expect(ibans.items[0]?.withdrawDailyAmount?.toFixed()).toBe('100000000');
    const w = await client.getWalletAddress('USDT', 'TRC20');
    expect(w.wallets.TRC20?.address).toMatch(/^T/);
  });

  it('withdraws with a withdraw key from a permitted IP, refuses otherwise with nothing moved', async () => {
    const ibanId = (await client.getIbans()).items[0]?.id as number;
    const tmn = () => sim.ledger.get('e2e', 'TMN');
    expect(await statusOf(client.requestWithdrawal({ iban: ibanId, value: 1_000_000 }))).toBe(403); // no withdraw permission
    const cash = new WallexRestClient({ baseUrl: server.url, apiKey: withdrawKey, retries: 0, allowWithdrawals: true });
    expect(await statusOf(cash.requestWithdrawal({ iban: 999, value: 1_000_000 }))).toBe(422);
    expect(await statusOf(cash.requestWithdrawal({ iban: ibanId, value: 100_000_001 }))).toBe(422);
    expect(tmn()).toEqual({ value: D(500_000_000), locked: D(0) });
    const w = await cash.requestWithdrawal({ iban: ibanId, value: 1_000_000 });
    expect(w).toMatchObject({ status: 'pending' });
    expect(w.details[0]?.status).toBe('pending');
    expect(tmn().locked.toFixed()).toBe('1000000');
    expect((await client.getIbans()).items[0]?.withdrawAvailableAmount?.toFixed()).toBe('99000000');
  });

  it('a withdrawal from a non-permitted IP is refused with 403', async () => {
    const res = await fetch(`${server.url}/v1/account/money-withdrawal`, {
      method: 'POST',
      headers: { 'x-api-key': withdrawKey, 'content-type': 'application/json', 'x-sim-client-ip': '10.1.1.1' },
      body: JSON.stringify({ iban: 1, value: 1000 }),
    });
    expect(res.status).toBe(403);
    expect(sim.ledger.get('e2e', 'TMN').locked.toFixed()).toBe('1000000');
  });
});

describe('coverage of the spec', () => {
  it('no endpoint of the spec answers 501 once these routes are plugged in', async () => {
    for (const e of SPEC_ENDPOINTS) {
      const path = e.path.replace(':coin', 'USDT').replace(':id', '1').replace(':market', 'BTCUSDT');
      const res = await fetch(`${server.url}${path}`, {
        method: e.method,
        headers: { 'content-type': 'application/json' },
        ...(e.method === 'GET' ? {} : { body: '{}' }),
      });
      expect({ path: `${e.method} ${path}`, status: res.status }).not.toMatchObject({ status: 501 });
    }
  });
});
