/**
 * The simulated exchange of a backtest (setup.ts builds the rest of the run on it): its markets (the
 * simulator's defaults and the config's declared ones), the backtest account with its balances and
 * fee rates, and the margin and instant desks.
 */
import type { ManualClock } from '../core/clock.js';
import { Decimal, toDecimal } from '../core/decimal.js';
import type { Logger } from '../core/logger.js';
import type { MarketDecl, MizanConfig } from '../config/schema.js';
import { SimulatedExchange } from '../sim/exchange.js';
import { createSimDesks, type SimDesks } from '../sim/margin/wiring.js';
import { defaultMarketSpecs, type MarketSpec } from '../sim/markets.js';
import { PlacementClock } from './fill-model.js';

export const BACKTEST_ACCOUNT = 'backtest';
/**
 * Closed orders the backtest's simulated exchange keeps (the newest), and final orders its execution
 * engine keeps: lookups there concern live or just-closed orders, a cancel of an older one is still
 * recognised as its owner's (ExecutionEngine.keepRetiredOwners), and the result's order records are
 * made as each order ends (spot-order-log.ts). Few on purpose: an order kept through two young-
 * generation collections is promoted, so a window of 1,000 orders (~3 collections' worth on the 1M
 * sma-cross run) made every order's objects old garbage: 64 took that run from 2.8 s and 270 MB to
 * 2.5 s and 197 MB (with the churning maps in ChurnMaps, src/core/churn-map.ts).
 */
export const BACKTEST_RETAINED_ORDERS = 64;

/** A market declared in the config (data from elsewhere) as a simulator market. */
function declToSpec(m: MarketDecl): MarketSpec {
  return {
    symbol: m.symbol,
    baseAsset: m.base,
    quoteAsset: m.quote,
    baseAssetPrecision: Math.max(8, m.quantityPrecision),
    quoteAssetPrecision: Math.max(8, m.pricePrecision),
    faName: m.symbol,
    faBaseAsset: m.base,
    faQuoteAsset: m.quote,
    stepSize: m.quantityPrecision,
    tickSize: m.pricePrecision,
    minQty: m.minQty,
    maxQty: m.maxQty ?? new Decimal('1e12'),
    minNotional: m.minNotional,
    makerFee: m.makerFee,
    takerFee: m.takerFee,
    createdAt: '2020-01-01T00:00:00.000000Z',
  };
}

/** The simulated exchange of a backtest: its markets, the account with its balances and fees, the desks. */
export interface BacktestExchange {
  sim: SimulatedExchange;
  specs: MarketSpec[];
  desks: SimDesks;
  /** The placement clock the exchange reads (the next open while an order is handed over). */
  simClock: PlacementClock;
  /** Feed the margin desk the exchange's prices (only while margin is in play). */
  listenMargin(on: boolean): void;
}

type RunSettings = NonNullable<MizanConfig['backtest']>;

/** The markets a backtest knows: the simulator's defaults, and the config's declared ones (which replace a default of the same symbol). */
export function runMarketSpecs(bt: Pick<RunSettings, 'markets'>): MarketSpec[] {
  return [...defaultMarketSpecs().filter((m) => !bt.markets.some((d) => d.symbol === m.symbol)), ...bt.markets.map(declToSpec)];
}

/**
 * The account's fee rates of a market when the config sets them (`fees: { maker, taker }`, or
 * `fees: account` for a market not declared in `backtest.markets`); undefined: the market's listed rates.
 */
export function runFeeOverride(
  bt: Pick<RunSettings, 'fees' | 'accountFees' | 'markets'>,
  symbol: string,
): { makerFee: Decimal; takerFee: Decimal } | undefined {
  if (bt.fees === 'account') {
    if (!bt.accountFees)
      throw new Error("backtest.fees: account: the account's fee rates were not read before the run (mizan backtest reads them with exchange.apiKey)");
    const f = bt.accountFees[symbol];
    return f && !bt.markets.some((d) => d.symbol === symbol) ? { makerFee: f.maker, takerFee: f.taker } : undefined;
  }
  return bt.fees ? { makerFee: bt.fees.maker, takerFee: bt.fees.taker } : undefined;
}

export function backtestExchange(config: Pick<MizanConfig, 'backtest' | 'simulator'>, clock: ManualClock, logger: Logger): BacktestExchange {
  const bt = config.backtest!;
  const specs = runMarketSpecs(bt);
  // No 24-hour stats, trade candles or recent-trade list: nothing in a backtest reads them.
  // The exchange reads the next open while an order is handed over (fill-model.ts; the test:
  // test/backtest/cli/daily-data.test.ts).
  const simClock = new PlacementClock(clock);
  const sim = new SimulatedExchange({
    clock: simClock,
    seed: config.simulator.seed,
    markets: specs,
    logger,
    orderRateLimit: { limit: 1_000_000_000, windowMs: 1 },
    recordMarketData: false,
    retainClosedOrders: BACKTEST_RETAINED_ORDERS,
  });
  const balances: Record<string, Decimal> = {};
  for (const [asset, v] of Object.entries(bt.balances)) balances[asset] = toDecimal(v, `backtest.balances.${asset}`);
  sim.createAccount({ id: BACKTEST_ACCOUNT, balances });
  // The account's own rates (read before the run; a declared market keeps the fees it declares), or the configured pair.
  for (const m of specs) {
    const f = runFeeOverride(bt, m.symbol);
    if (f) sim.setAccountFees(BACKTEST_ACCOUNT, m.symbol, f);
  }
  const desks = createSimDesks(sim, { logger });
  // The desks listen to the sim's price events; any such listener makes the sim build a market
  // snapshot (24 h stats) after every order. Backtests trade only the main account (no prop
  // checks), so the margin desk alone gets the prices, and only while margin is in play.
  desks.detach();
  const marginPrice = (p: { symbol: string; price: Decimal }) => desks.margin.onPrice(p.symbol, p.price, sim.clock.now());
  let marginListening = false;
  const listenMargin = (on: boolean) => {
    if (on === marginListening) return;
    marginListening = on;
    if (on) sim.on('price', marginPrice);
    else sim.off('price', marginPrice);
  };
  return { sim, specs, desks, simClock, listenMargin };
}
