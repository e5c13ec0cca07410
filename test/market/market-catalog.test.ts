import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { d } from '../../src/core/decimal.js';
import { isRetryable } from '../../src/core/errors.js';
import type { FeeRates } from '../../src/core/types/account.js';
import type { ActiveMarket, MarketInfo } from '../../src/core/types/market.js';
import { CatalogNotLoadedError, UnknownMarketError } from '../../src/market/errors.js';
import { MarketCatalog, normalizeSymbol } from '../../src/market/market-catalog.js';
import type { MarketInfoSource } from '../../src/market/ports.js';
import { ManualTimers } from './support/fakes.js';

const info = (symbol: string, base: string, quote: string, step: number, tick: number, extra: Partial<MarketInfo> = {}): MarketInfo => ({
  symbol,
  baseAsset: base,
  quoteAsset: quote,
  baseAssetPrecision: 8,
  quoteAssetPrecision: quote === 'TMN' ? 0 : 8,
  stepSize: step,
  tickSize: tick,
  minQty: d('1e-6'),
  minNotional: d(quote === 'TMN' ? 100000 : 10),
  ...extra,
});

const active = (symbol: string, flags: Partial<ActiveMarket> = {}): ActiveMarket => ({
  symbol,
  baseAsset: '',
  quoteAsset: '',
  categories: [],
  spotIsNew: false,
  otcIsNew: false,
  isNew: false,
  isSpot: true,
  isOtc: false,
  isMargin: false,
  isTmnBased: false,
  isUsdtBased: false,
  isZeroFee: false,
  ...flags,
});

class FakeInfo implements MarketInfoSource {
  markets: MarketInfo[] | Record<string, MarketInfo> = [
    info('BTCUSDT', 'BTC', 'USDT', 6, 2, { maxQty: d(100) }),
    info('USDTTMN', 'USDT', 'TMN', 2, 0),
    info('DOGETMN', 'DOGE', 'TMN', 0, 1),
    info('OLDTMN', 'OLD', 'TMN', 0, 0),
  ];
  activeList: ActiveMarket[] = [
    active('BTCUSDT', { isMargin: true, maxLeverage: d(5) }),
    active('USDTTMN', { isOtc: true }),
    active('DOGETMN', { isZeroFee: true }),
  ];
  fees: FeeRates = { markets: { BTCUSDT: { symbol: 'BTCUSDT', makerFeeRate: d('0.0020'), takerFeeRate: d('0.0025') } } };
  calls = 0;
  failMarkets = false;
  failFees = false;
  async getMarkets() {
    this.calls++;
    if (this.failMarkets) throw new Error('markets down');
    return this.markets;
  }
  async getActiveMarkets() {
    return this.activeList;
  }
  async getFees() {
    if (this.failFees) throw new Error('fees down');
    return this.fees;
  }
}

describe('MarketCatalog', () => {
  it('merges markets, active flags and fees into Markets with Decimal increments', async () => {
    const cat = new MarketCatalog({ source: new FakeInfo(), options: { refreshMs: 0 } });
    await cat.start();
    const btc = cat.get('BTCUSDT');
    expect(btc.qtyStep.toString()).toBe('0.000001');
    expect(btc.priceTick.toString()).toBe('0.01');
    expect(btc.quantityPrecision).toBe(6);
    expect(btc.pricePrecision).toBe(2);
    expect(btc.minQty.toString()).toBe('0.000001');
    expect(btc.maxQty?.toString()).toBe('100');
    expect(btc.minNotional.toString()).toBe('10');
    expect([btc.makerFee?.toString(), btc.takerFee?.toString(), btc.feeSource]).toEqual(['0.002', '0.0025', 'account']);
    expect([btc.isSpot, btc.isMargin, btc.isOtc, btc.maxLeverage?.toString()]).toEqual([true, true, false, '5']);
    const usdt = cat.get('usdttmn');
    expect(usdt.priceTick.toString()).toBe('1');
    expect(usdt.maxQty).toBeUndefined();
    expect([usdt.makerFee, usdt.feeSource, usdt.isOtc]).toEqual([undefined, 'unknown', true]);
    const doge = cat.get('DOGETMN');
    expect([doge.makerFee?.toString(), doge.feeSource]).toEqual(['0', 'zero_fee_market']);
    expect(cat.get('OLDTMN').isSpot).toBe(false); // not among the active markets
    expect(cat.list().map((m) => m.symbol)).toEqual(['BTCUSDT', 'USDTTMN', 'DOGETMN', 'OLDTMN']);
  });

  it('throws clear errors for an unknown market and before loading; normalizes symbols', async () => {
    const cat = new MarketCatalog({ source: new FakeInfo(), options: { refreshMs: 0 } });
    expect(() => cat.get('BTCUSDT')).toThrow(CatalogNotLoadedError);
    await cat.refresh();
    expect(() => cat.get('NOPE')).toThrow(UnknownMarketError);
    expect(() => cat.get('NOPE')).toThrow(/NOPE.*4 markets/);
    try {
      cat.get('NOPE');
    } catch (err) {
      expect(isRetryable(err)).toBe(false);
    }
    expect(cat.get('BTCUSDT\u064E').symbol).toBe('BTCUSDT');
    expect(normalizeSymbol(' btc tmn ')).toBe('BTCTMN');
  });

  it('refreshes on its schedule, keeps the previous catalog or answer on failure, accepts a map', async () => {
    const src = new FakeInfo();
    const clock = new ManualClock(0);
    const timers = new ManualTimers(clock);
    const cat = new MarketCatalog({ source: src, timers, options: { refreshMs: 60_000, defaultFees: { maker: d('0.003'), taker: d('0.004') } } });
    const updates: number[] = [];
    const failures: unknown[] = [];
    cat.on('updated', (m) => updates.push(m.length));
    cat.on('refreshFailed', (e) => failures.push(e));
    await cat.start();
    expect(cat.get('USDTTMN').feeSource).toBe('default');
    src.markets = { BTCUSDT: info('BTCUSDT', 'BTC', 'USDT', 5, 1) };
    src.failFees = true;
    await timers.advance(60_000);
    expect(src.calls).toBe(2);
    expect(cat.get('BTCUSDT').qtyStep.toString()).toBe('0.00001');
    expect(cat.get('BTCUSDT').feeSource).toBe('account'); // previous fee answer kept
    expect(cat.has('USDTTMN')).toBe(false);
    src.failMarkets = true;
    await timers.advance(60_000);
    expect(failures).toHaveLength(1);
    expect(cat.get('BTCUSDT').qtyStep.toString()).toBe('0.00001');
    expect(updates).toEqual([4, 1]);
    cat.stop();
    await timers.advance(120_000);
    expect(src.calls).toBe(3);
  });
});
