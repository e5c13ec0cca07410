/**
 * A real trading stack on the in-process simulator for risk tests: SimulatedExchange with its
 * desks, SimVenue (wrapped by PositionOwners), ExecutionEngine, Portfolio, RiskEngine and
 * TradingCore, wired as src/runtime/bot.ts wires them.
 */
import { ManualClock } from '../../src/core/clock.js';
import { d, Decimal, incrementFromDecimals } from '../../src/core/decimal.js';
import { silentLogger } from '../../src/core/logger.js';
import { ClientIdGenerator } from '../../src/execution/client-id.js';
import { ExecutionEngine } from '../../src/execution/engine.js';
import { SimVenue } from '../../src/venues/sim-venue.js';
import { Portfolio } from '../../src/portfolio/portfolio.js';
import { RiskEngine } from '../../src/risk/engine.js';
import type { RiskLimits } from '../../src/risk/limits.js';
import { followAcceptance } from '../../src/risk/lock-coverage.js';
import { PositionOwners } from '../../src/risk/margin-owners.js';
import type { RiskBook, RiskMarket } from '../../src/risk/ports.js';
import { MemorySink } from '../../src/risk/sinks.js';
import { riskPort } from '../../src/kernel/risk-port.js';
import { TradingCore, type StrategyInstance } from '../../src/kernel/trading-core.js';
import { SimulatedExchange } from '../../src/sim/exchange.js';
import { createSimDesks } from '../../src/sim/margin/wiring.js';
import { defineStrategy } from '../../src/strategy/define.js';
import type { Denial, MarginAlert, MarketView } from '../../src/strategy/views.js';

export const ACCOUNT = 'a1';
const T0 = Date.UTC(2025, 0, 6, 12, 0, 0);

interface StackLog {
  alerts: MarginAlert[];
  denials: Denial[];
}

function recorder(name: string, log: StackLog, markets = ['BTCUSDT']): StrategyInstance {
  const def = defineStrategy({
    name: 'recorder',
    description: 'records margin alerts and denials',
    params: {},
    create() {
      return {
        onMarginAlert(a) {
          log.alerts.push(a);
        },
        onDenied(x) {
          log.denials.push(x);
        },
      };
    },
  });
  return { name, definition: def as never, params: {}, markets, resolutionSec: 60, account: 'main' };
}

class SimBook implements RiskBook {
  constructor(
    private readonly sim: SimulatedExchange,
    private readonly symbol: string,
  ) {}
  mid() {
    return this.sim.mid(this.symbol);
  }
  bestBid() {
    return this.sim.bestBid(this.symbol);
  }
  bestAsk() {
    return this.sim.bestAsk(this.symbol);
  }
  bids(depth?: number) {
    return this.sim.book(this.symbol, depth).bids.map((l) => ({ price: d(l.price.toString()), quantity: d(l.quantity.toString()) }));
  }
  asks(depth?: number) {
    return this.sim.book(this.symbol, depth).asks.map((l) => ({ price: d(l.price.toString()), quantity: d(l.quantity.toString()) }));
  }
  health() {
    return { healthy: true, reasons: [] };
  }
}

export function simStack(opts: { balances: Record<string, string>; names?: string[]; limits?: RiskLimits; coverage?: boolean }) {
  const clock = new ManualClock(T0);
  const sim = new SimulatedExchange({ clock, seed: 3, orderRateLimit: { limit: 1_000_000, windowMs: 1000 } });
  const desks = createSimDesks(sim);
  sim.createAccount({ id: ACCOUNT, balances: opts.balances });
  const owners = new PositionOwners();
  const venue = owners.wrapVenue(new SimVenue({ sim, account: ACCOUNT, kind: 'paper', margin: desks.margin, instant: desks.instant }));
  const split = (s: string) => {
    const m = sim.requireMarket(s);
    return { base: m.baseAsset, quote: m.quoteAsset };
  };
  const portfolio = new Portfolio({ split, price: () => undefined, reference: 'USDT' });
  const markets = new Map<string, MarketView>();
  for (const m of sim.markets()) {
    const fees = sim.feeRates(ACCOUNT, m.symbol);
    markets.set(m.symbol, {
      symbol: m.symbol,
      base: m.baseAsset,
      quote: m.quoteAsset,
      qtyStep: incrementFromDecimals(m.stepSize),
      priceTick: incrementFromDecimals(m.tickSize),
      quantityPrecision: m.stepSize,
      pricePrecision: m.tickSize,
      minQty: m.minQty,
      maxQty: m.maxQty,
      minNotional: m.minNotional,
      makerFee: fees.makerFee,
      takerFee: fees.takerFee,
    });
  }
  const market = (s: string): RiskMarket | undefined => markets.get(s);
  let engine!: ExecutionEngine;
  const risk = new RiskEngine({
    clock,
    sink: new MemorySink(),
    ...(opts.limits ? { limits: opts.limits } : {}),
    ports: {
      market,
      book: (s) => (markets.has(s) ? new SimBook(sim, s) : undefined),
      balance: (account, asset) => portfolio.balance(asset, account),
      openOrders: () => engine.liveOrders(),
      positions: () => portfolio.positions.all(),
      marginPositions: () => portfolio.marginPositions(),
      markPrice: (s) => sim.lastPrice(s),
    },
  });
  engine = new ExecutionEngine({
    venueFor: () => venue,
    instrument: (s) => (markets.has(s) ? split(s) : undefined),
    clock,
    logger: silentLogger,
    ids: new ClientIdGenerator(clock),
    reservations: risk,
  });
  engine.listen(venue);
  if (opts.coverage ?? true) followAcceptance(engine, risk.reservations, clock, (a, sym, side, amount) => portfolio.releaseLocked(a, sym, side, amount));
  const log: StackLog = { alerts: [], denials: [] };
  const instances = (opts.names ?? ['holder']).map((n) => recorder(n, log));
  const kv = new Map<string, unknown>();
  const core = new TradingCore({
    clock,
    logger: silentLogger,
    instances,
    engine,
    portfolio,
    risk: riskPort(risk, portfolio),
    journal: { recordDecision: (v) => owners.noteVerdict(v) },
    venueFor: () => venue,
    market: (s) => markets.get(s),
    instrument: (s) => (markets.has(s) ? split(s) : undefined),
    book: () => undefined,
    kv: (n) => ({
      get: <T>(k: string) => kv.get(`${n}/${k}`) as T | undefined,
      set: (k, v) => void kv.set(`${n}/${k}`, v),
      delete: (k) => void kv.delete(`${n}/${k}`),
    }),
  });
  /** The bot loop's balance and margin sync (`startedAt`: when the balance request went out). */
  const sync = async (startedAt = clock.now()) => {
    portfolio.syncBalances('main', await venue.balances(), clock.now());
    if (opts.coverage ?? true) risk.reservations.balancesSynced('main', startedAt);
    portfolio.syncMargin(await venue.positions({ active: true }));
  };
  /** Book around `price` (spread ± 0.01%) and a public trade at it. */
  const setPrice = (symbol: string, price: Decimal | string) => {
    const p = d(price.toString());
    const half = p.mul('0.0001').toDecimalPlaces(2);
    sim.replaceBookSide(symbol, 'bid', [{ price: p.minus(half), quantity: d('50') }]);
    sim.replaceBookSide(symbol, 'ask', [{ price: p.plus(half), quantity: d('50') }]);
    sim.recordTrade({ symbol, price: p, quantity: d('0.001'), isBuyOrder: false, timestamp: clock.now() });
  };
  return { clock, sim, desks, owners, venue, portfolio, risk, engine, core, log, sync, setPrice, market };
}
