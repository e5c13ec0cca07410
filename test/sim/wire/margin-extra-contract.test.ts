/**
 * Contract of the margin calls beyond open / top up / close (issue #35 item 3): mizan's REST client
 * against the simulator over HTTP on 127.0.0.1, parsed by the client's types, and the simulator's
 * answers checked against the documented field lists (test/fixtures/exchange-samples/
 * doc_margin_endpoints__developers-wallex-ir.txt: the pages give schemas only, no example values).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Decimal } from '../../../src/core/decimal.js';
import { ParameterError } from '../../../src/core/errors.js';
import { readSampleText } from '../../support/samples.js';
import { shapeDiff, startFullSim } from './contract.js';

const D = (v: string | number) => new Decimal(v);
const DOC = 'doc_margin_endpoints__developers-wallex-ir.txt';

/** The documented field list of a line of the doc (e.g. `{symbol, base, ...}` after `->`, or `Position fields:`). */
function documentedMarketFields(): string[] {
  const line = readSampleText(DOC)
    .split('\n')
    .find((l) => l.includes('/margin-trade/v1/public/markets'))!;
  return /\{([^}]*)\}/
    .exec(line)![1]!
    .split(',')
    .map((s) => s.trim());
}
function documentedPositionFields(): string[] {
  const text = readSampleText(DOC);
  const block = text.slice(text.indexOf('Position fields:') + 'Position fields:'.length, text.indexOf('Generated pages'));
  // Each entry starts with its name; `{currency,value}` and `("…" = every 4 hours)` notes follow some.
  const names = block
    .replace(/\{[^}]*\}/g, '')
    .split(',')
    .map((s) => /^\s*([a-z_]+)/.exec(s)?.[1])
    .filter((s): s is string => s !== undefined);
  return [...new Set(names)];
}
const schema = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, null]));
const missing = (keys: string[], o: unknown) => keys.filter((k) => !(k in (o as object)));

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function withPosition() {
  const h = await startFullSim();
  stop = h.stop;
  h.sim.replaceBookSide('BTCUSDT', 'bid', [{ price: D(50000), quantity: D(5) }]);
  h.sim.replaceBookSide('BTCUSDT', 'ask', [{ price: D(50010), quantity: D(5) }]);
  h.sim.setLastPrice('BTCUSDT', D(50000));
  const p = await h.client.openMarginPosition({ market: 'BTCUSDT', side: 'long', collateral: D(1000), riskCoef: D(5), openPrice: D(50010) });
  return { h, p };
}

describe('margin extras: the documented calls, client against the simulator', () => {
  it('public markets carry every documented field and load as risk-coefficient bounds', async () => {
    const h = await startFullSim();
    stop = h.stop;
    const raw = await h.call('GET', '/margin-trade/v1/public/markets', { key: null });
    expect(raw.status).toBe(200);
    const fields = documentedMarketFields();
    expect(fields).toEqual(['symbol', 'base', 'quote', 'min_risk_coef', 'max_risk_coef', 'risk_coef_step', 'liquidity_margin', 'max_age']);
    expect((raw.result as unknown[]).length).toBeGreaterThan(0);
    expect(shapeDiff([schema(fields)], raw.result, '$', { types: false })).toEqual([]);
    const markets = await h.client.getMarginMarkets();
    const btc = markets.find((m) => m.symbol === 'BTCUSDT')!;
    expect([btc.minRiskCoef.toFixed(), btc.maxRiskCoef.toFixed(), btc.riskCoefStep?.toFixed(), btc.maxAgeSec]).toEqual(['2', '10', '0.5', 21 * 86400]);
  });

  it('ratio, one position (every documented field), sltp, profit, orders, levels, pnl', async () => {
    const { h, p } = await withPosition();
    expect(await h.client.getMarginRatio('BTCUSDT')).toEqual({ market: 'BTCUSDT', long: D(100), short: D(0) });
    await expect(h.client.getMarginRatio('NOPE')).rejects.toMatchObject({ status: 404 });

    const raw = await h.call('GET', `/margin-trade/v1/positions/${p.id}`);
    expect(documentedPositionFields()).toHaveLength(28);
    expect(missing(documentedPositionFields(), raw.result)).toEqual([]);
    const one = await h.client.getMarginPosition(p.id);
    expect(one).toMatchObject({ id: p.id, market: 'BTCUSDT', side: 'long', state: 'open' });
    await expect(h.client.getMarginPosition(999)).rejects.toMatchObject({ status: 404 });

    const moved = await h.client.setMarginBrackets(p.id, { stopLoss: '48000', takeProfit: '56000' });
    expect([moved.stopLoss?.toFixed(), moved.takeProfit?.toFixed()]).toEqual(['48000', '56000']);
    // A stop loss on the wrong side of a long is refused by the simulator, naming the field.
    const bad = await h.call('PATCH', `/margin-trade/v1/positions/${p.id}/sltp`, { body: { stop_loss: '60000' } });
    expect([bad.status, Object.keys(bad.result as object)]).toEqual([422, ['stop_loss']]);
    await expect(h.client.setMarginBrackets(p.id, { stopLoss: '-1' })).rejects.toThrow(/stopLoss/);

    const profit = await h.client.getMarginProfit(p.id);
    expect(profit).toMatchObject({ id: p.id, market: 'BTCUSDT', state: 'open' });
    expect(profit.profit.currency).toBe('USDT');

    // The stop loss triggers on a replayed price through it.
    h.sim.recordTrade({ symbol: 'BTCUSDT', price: D(47900), quantity: D('0.1'), isBuyOrder: false, timestamp: h.clock.now() });
    const after = await h.client.getMarginPosition(p.id);
    expect(after).toMatchObject({ state: 'closed', closeReason: 'stop_loss' });

    const orders = await h.client.getMarginOrders({ market: 'BTCUSDT' });
    expect(orders.items.map((o) => [o.positionId, o.purpose, o.side, o.state])).toEqual([
      [p.id, 'close', 'sell', 'filled'],
      [p.id, 'open', 'buy', 'filled'],
    ]);
    expect(orders.pageInfo).toEqual({ page: 1, perPage: 50, count: 2, totalCount: 2 });
    // Each order's fee (the simulator's reading): the opening fee and the closing fee, in USDT.
    expect(orders.items.map((o) => [o.purpose, o.fee?.currency, o.fee?.value.gt(0)])).toEqual([
      ['close', 'USDT', true],
      ['open', 'USDT', true],
    ]);
    expect((await h.client.getMarginOrders({ positionId: 42 })).items).toEqual([]);

    const levels = await h.client.getMarginLevels();
    expect(levels.map((l) => l.market)).toContain('BTCUSDT');
    const level = await h.client.getMarginLevel('BTCUSDT');
    expect([level.minRiskCoef.toFixed(), level.maxRiskCoef.toFixed()]).toEqual(['2', '10']);
    await expect(h.client.getMarginLevel('NOPE')).rejects.toMatchObject({ status: 404 });

    const [pnl] = await h.client.getMarginPnl();
    expect(pnl).toMatchObject({ currency: 'USDT', closedPositions: 1, openPositions: 0 });
    expect(pnl!.realizedProfit.toFixed()).toBe(after.profit.value.toFixed());
    expect(pnl!.realizedProfit.isNegative()).toBe(true);
  });

  it("sltp trails: a long's stop moves above the open price once the market is there, never above the market", async () => {
    const { h, p } = await withPosition();
    h.sim.replaceBookSide('BTCUSDT', 'ask', [{ price: D(55010), quantity: D(5) }]);
    h.sim.replaceBookSide('BTCUSDT', 'bid', [{ price: D(55000), quantity: D(5) }]);
    h.sim.recordTrade({ symbol: 'BTCUSDT', price: D(55000), quantity: D('0.1'), isBuyOrder: true, timestamp: h.clock.now() });
    const trailed = await h.client.setMarginBrackets(p.id, { stopLoss: '52000' });
    expect(trailed.stopLoss?.toFixed()).toBe('52000');
    const above = await h.call('PATCH', `/margin-trade/v1/positions/${p.id}/sltp`, { body: { stop_loss: '56000' } });
    expect(above.status).toBe(422);
    expect(JSON.stringify(above.result)).toContain('stop_loss 56000 must be below the market price 55000');
    h.sim.recordTrade({ symbol: 'BTCUSDT', price: D(51900), quantity: D('0.1'), isBuyOrder: false, timestamp: h.clock.now() });
    const closed = await h.client.getMarginPosition(p.id);
    expect(closed).toMatchObject({ state: 'closed', closeReason: 'stop_loss' });
    expect(closed.profit.value.gt(0)).toBe(true);
  });

  it('private calls need a key; close needs its documented price', async () => {
    const { h, p } = await withPosition();
    for (const path of ['/margin-trade/v1/orders', '/margin-trade/v1/user/levels', '/margin-trade/v1/user/pnl', `/margin-trade/v1/positions/${p.id}`]) {
      expect((await h.call('GET', path, { key: null })).status).toBe(401);
    }
    expect((await h.call('POST', `/margin-trade/v1/positions/${p.id}/profit`, { key: null, body: {} })).status).toBe(401);
    await expect(h.client.closeMarginPosition(p.id, undefined as unknown as string)).rejects.toThrow(ParameterError);
    await expect(h.client.closeMarginPosition(p.id, undefined as unknown as string)).rejects.toThrow(/price/);
    const closed = await h.client.closeMarginPosition(p.id, '49000');
    expect(closed.state).toBe('closed');
  });
});
