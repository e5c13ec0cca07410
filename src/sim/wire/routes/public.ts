/** Public market-data routes: markets, currency statistics, depth, trades, candles, active markets. */
import { RESOLUTIONS, resolutionSeconds, type Resolution } from '../../../core/types/index.js';
import type { SimulatedExchange } from '../../exchange.js';
import { amount, num, restLevel, restTrade, wireCandles, wireMarket } from '../format.js';
import { ok, type Route } from '../route.js';
import { invalid, requireMarketParam, requireParam } from './common.js';

const EN_NAMES: Record<string, string> = { BTC: 'BITCOIN', ETH: 'ETHEREUM', USDT: 'TETHER', TMN: 'TOMAN' };

export function publicRoutes(sim: SimulatedExchange): Route[] {
  const depth = (symbol: string) => {
    const b = sim.book(symbol);
    return { ask: b.asks.map(restLevel), bid: b.bids.map(restLevel) };
  };
  return [
    {
      method: 'GET',
      path: '/v1/markets',
      handler: () => ok({ symbols: Object.fromEntries(sim.markets().map((m) => [m.symbol, wireMarket(m, sim.marketSnapshot(m.symbol))])) }),
    },
    {
      method: 'GET',
      path: '/v1/currencies/stats',
      handler: () => {
        const now = new Date(sim.clock.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
        const rows = sim
          .markets()
          .filter((m) => m.quoteAsset === 'USDT')
          .map((m, i) => {
            const s = sim.marketSnapshot(m.symbol);
            return {
              key: m.baseAsset,
              name: m.faBaseAsset,
              name_en: EN_NAMES[m.baseAsset] ?? m.baseAsset,
              rank: i + 1,
              price: s.lastPrice ? num(s.lastPrice) : 0,
              volume_24h: num(s.quoteVolume24h),
              daily_high_price: s.high24h ? num(s.high24h) : null,
              daily_low_price: s.low24h ? num(s.low24h) : null,
              percent_change_24h: s.change24h,
              percent_change_7d: s.change7d,
              created_at: m.createdAt.replace(/\.\d+Z$/, 'Z'),
              updated_at: now,
            };
          });
        return ok(rows);
      },
    },
    { method: 'GET', path: '/v1/depth', handler: (req) => ok(depth(requireMarketParam(sim, req).symbol)) },
    { method: 'GET', path: '/v2/depth/all', handler: () => ok(Object.fromEntries(sim.markets().map((m) => [m.symbol, depth(m.symbol)]))) },
    {
      method: 'GET',
      path: '/v1/trades',
      handler: (req) => ok({ latestTrades: sim.recentTrades(requireMarketParam(sim, req).symbol).map(restTrade) }),
    },
    {
      method: 'GET',
      path: '/v1/udf/history',
      handler: (req) => {
        const m = requireMarketParam(sim, req);
        const resolution = requireParam(req, 'resolution');
        if (!(RESOLUTIONS as readonly string[]).includes(resolution)) throw invalid('resolution', `resolution must be one of ${RESOLUTIONS.join(', ')}, got ${JSON.stringify(resolution)}`);
        const from = Number(requireParam(req, 'from'));
        const to = Number(requireParam(req, 'to'));
        if (!Number.isInteger(from) || from < 0) throw invalid('from', 'from must be a Unix time in seconds');
        if (!Number.isInteger(to) || to < from) throw invalid('to', 'to must be a Unix time in seconds, not before from');
        const candles = sim.candles(m.symbol, resolutionSeconds(resolution as Resolution), from, to);
        return { status: 200, body: wireCandles(candles) };
      },
    },
    {
      method: 'GET',
      path: '/hector/web/v1/markets',
      handler: () =>
        ok({
          markets: sim.markets().map((m) => {
            const s = sim.marketSnapshot(m.symbol);
            return {
              symbol: m.symbol,
              base_asset: m.baseAsset,
              quote_asset: m.quoteAsset,
              fa_base_asset: m.faBaseAsset,
              fa_quote_asset: m.faQuoteAsset,
              en_base_asset: EN_NAMES[m.baseAsset] ?? m.baseAsset,
              en_quote_asset: EN_NAMES[m.quoteAsset] ?? m.quoteAsset,
              categories: [],
              price: amount(s.lastPrice),
              change_24h: s.change24h,
              volume_24h: num(s.volume24h),
              change_7D: s.change7d,
              quote_volume_24h: num(s.quoteVolume24h),
              spot_is_new: false,
              otc_is_new: false,
              is_new: false,
              is_spot: true,
              is_otc: false,
              is_margin: false,
              is_tmn_based: m.quoteAsset === 'TMN',
              is_usdt_based: m.quoteAsset === 'USDT',
              is_zero_fee: m.makerFee.isZero() && m.takerFee.isZero(),
              leverage_step: null,
              max_leverage: null,
              created_at: m.createdAt,
              amount_precision: m.stepSize,
              price_precision: m.tickSize,
              flags: [],
            };
          }),
        }),
    },
  ];
}
