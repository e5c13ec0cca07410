/** Public market-data routes: markets, currency statistics, depth, trades, candles, active markets. */
import { RESOLUTIONS, resolutionSeconds, type Resolution } from '../../../core/types/index.js';
import type { SimulatedExchange } from '../../exchange.js';
import { amount, num, restLevel, restTrade, wireCandles, wireMarket } from '../format.js';
import { ok, type Route } from '../route.js';
import { invalid, param, requireMarketParam } from './common.js';
import type { WireRequest } from '../route.js';

/** Trades listed by `/v1/trades` without a symbol (every market, newest first). */
const ALL_TRADES = 100;

/**
 * `/v1/udf/history` parameters. The documentation marks all four optional without stating defaults;
 * its example values stand in: symbol BTCUSDT, resolution 15, and the example's span (one hour,
 * 3600 s) ending now. `from` alone means from then until now; `to` alone, the hour before it.
 */
export const CANDLE_DEFAULTS = { symbol: 'BTCUSDT', resolution: '15', spanSeconds: 3600 } as const;

function candleQuery(sim: SimulatedExchange, req: WireRequest): { symbol: string; resolution: Resolution; from: number; to: number } {
  const symbol = param(req, 'symbol') === undefined ? CANDLE_DEFAULTS.symbol : requireMarketParam(sim, req).symbol;
  const resolution = param(req, 'resolution') ?? CANDLE_DEFAULTS.resolution;
  if (!(RESOLUTIONS as readonly string[]).includes(resolution))
    throw invalid('resolution', `resolution must be one of ${RESOLUTIONS.join(', ')}, got ${JSON.stringify(resolution)}`);
  const seconds = (name: 'from' | 'to'): number | undefined => {
    const raw = param(req, name);
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n)) throw invalid(name, `${name} must be a Unix time in seconds, got ${JSON.stringify(raw)}`);
    return n;
  };
  const nowSec = Math.floor(sim.clock.now() / 1000);
  const fromIn = seconds('from');
  const toIn = seconds('to');
  const to = toIn ?? (fromIn !== undefined ? Math.max(nowSec, fromIn) : nowSec);
  const from = fromIn ?? Math.max(0, to - CANDLE_DEFAULTS.spanSeconds);
  if (to < from) throw invalid('to', `to must not be before from (${from}), got ${to}`);
  return { symbol, resolution: resolution as Resolution, from, to };
}

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
      // `symbol` is optional in the documentation: without it, the latest trades of every market.
      handler: (req) => {
        if (param(req, 'symbol') !== undefined) return ok({ latestTrades: sim.recentTrades(requireMarketParam(sim, req).symbol).map(restTrade) });
        const all = sim.markets().flatMap((m) => sim.recentTrades(m.symbol));
        all.sort((a, b) => b.timestamp - a.timestamp);
        return ok({ latestTrades: all.slice(0, ALL_TRADES).map(restTrade) });
      },
    },
    {
      method: 'GET',
      path: '/v1/udf/history',
      handler: (req) => {
        const q = candleQuery(sim, req);
        return { status: 200, body: wireCandles(sim.candles(q.symbol, resolutionSeconds(q.resolution), q.from, q.to)) };
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
              // Read by community clients (navid-fn/radar) next to is_spot: the market's trading is on.
              is_market_type_enable: true,
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
