/**
 * Paper trading: a SimulatedExchange of its own is the venue, and its books are the bot's live local
 * books (every side the market-data engine applies is copied in, every public trade recorded), so
 * paper orders fill against what the bot sees, with the same matching code as backtests.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { Decimal, type DecimalInput } from '../core/decimal.js';
import type { Logger } from '../core/logger.js';
import { SimVenue } from '../venues/sim-venue.js';
import type { Market } from '../market/market-catalog.js';
import type { MarketDataEngine } from '../market/engine.js';
import { SimulatedExchange } from '../sim/exchange.js';
import { createSimDesks } from '../sim/margin/wiring.js';
import type { MarketSpec } from '../sim/markets.js';
import type { MarginCosts } from '../portfolio/trade-record.js';

export interface PaperVenueOptions {
  clock: Clock;
  logger: Logger;
  markets: Market[];
  balances: Record<string, DecimalInput>;
  fees?: { maker?: DecimalInput; taker?: DecimalInput };
  seed?: number;
  /** The first margin position id: past the ids the journal holds (a paper run's fresh exchange would reuse them). */
  firstMarginId?: number;
  /** Closed orders the paper exchange keeps for lookups, the newest (default PAPER_RETAINED_ORDERS). */
  retainClosedOrders?: number;
}

export interface PaperVenue {
  sim: SimulatedExchange;
  venue: SimVenue;
  /** What a margin position of the paper account cost (the desk's own record: exact). */
  marginCosts(positionId: number): MarginCosts;
  /** Copy the local books and trades of the engine into the paper exchange; returns a detach function. */
  follow(engine: MarketDataEngine): () => void;
  detach(): void;
}

/**
 * Closed orders the paper exchange keeps (the newest): the bot looks up only live and just-closed
 * orders there, its journal keeps every order and the execution engine the last 1,000 final ones.
 * Keeping every order made a paper bot's memory grow for as long as it ran (a market maker
 * requoting every 2 s places ~43,000 orders a day).
 */
export const PAPER_RETAINED_ORDERS = 10_000;

/**
 * A market's fee rates in paper: `paper.fees` where it sets them, else the exchange's (the market
 * catalog: the account's rate, or 0 on a zero-fee market); undefined when neither says: never a
 * guessed fee (the bot refuses to start on a traded market without one).
 */
export function paperFees(m: Pick<Market, 'makerFee' | 'takerFee'>, fees: PaperVenueOptions['fees']): { makerFee: Decimal; takerFee: Decimal } | undefined {
  const makerFee = fees?.maker !== undefined ? new Decimal(fees.maker) : m.makerFee;
  const takerFee = fees?.taker !== undefined ? new Decimal(fees.taker) : m.takerFee;
  return makerFee && takerFee ? { makerFee, takerFee } : undefined;
}

function specOf(m: Market, rates: { makerFee: Decimal; takerFee: Decimal }): MarketSpec {
  return {
    symbol: m.symbol,
    baseAsset: m.baseAsset,
    quoteAsset: m.quoteAsset,
    baseAssetPrecision: m.baseAssetPrecision,
    quoteAssetPrecision: m.quoteAssetPrecision,
    faName: m.faName ?? m.symbol,
    faBaseAsset: m.baseAsset,
    faQuoteAsset: m.quoteAsset,
    stepSize: m.quantityPrecision,
    tickSize: m.pricePrecision,
    minQty: m.minQty,
    maxQty: m.maxQty ?? new Decimal('1e12'),
    minNotional: m.minNotional,
    makerFee: rates.makerFee,
    takerFee: rates.takerFee,
    createdAt: '2020-01-01T00:00:00.000000Z',
  };
}

export function createPaperVenue(opts: PaperVenueOptions): PaperVenue {
  const sim = new SimulatedExchange({
    clock: opts.clock,
    seed: opts.seed ?? 1,
    // Markets whose fee is known (the bot checked its traded ones before it came here).
    markets: opts.markets.flatMap((m) => {
      const rates = paperFees(m, opts.fees);
      return rates ? [specOf(m, rates)] : [];
    }),
    logger: opts.logger.child({ component: 'paper' }),
    retainClosedOrders: opts.retainClosedOrders ?? PAPER_RETAINED_ORDERS,
  });
  const account = sim.createAccount({ id: 'paper', balances: opts.balances });
  const instantOf = new Map(opts.markets.map((m) => [m.symbol, m.instant]));
  // Instant order ids unique to this run: the journal outlives it, and a later run's order must not
  // take an id it already holds (its fill would be dropped as a duplicate).
  const desks = createSimDesks(sim, {
    logger: opts.logger,
    idNonce: randomUUID(),
    // The exchange's instant desk bounds (the catalog's /v1/otc/markets): paper refuses what the exchange would.
    instantBounds: (symbol) => {
      const b = instantOf.get(symbol);
      return b && { min: b.minNotional, max: b.maxNotional };
    },
    ...(opts.firstMarginId !== undefined ? { firstMarginId: opts.firstMarginId } : {}),
  });
  const venue = new SimVenue({ sim, account: account.id, kind: 'paper', instant: desks.instant, margin: desks.margin });
  const detachers: (() => void)[] = [() => desks.detach()];
  return {
    sim,
    venue,
    marginCosts: (id) => desks.margin.costs(account.id, id),
    follow(engine) {
      const onBook = (symbol: string, book: { levels(side: 'bid' | 'ask', limit?: number): { price: Decimal; quantity: Decimal }[] }) => {
        if (!sim.market(symbol)) return;
        const t = opts.clock.now();
        sim.replaceBookSide(symbol, 'bid', book.levels('bid', 50), t);
        sim.replaceBookSide(symbol, 'ask', book.levels('ask', 50), t);
      };
      const onTrade = (t: { symbol: string; price: Decimal; quantity: Decimal; isBuyOrder: boolean; timestamp: number }) => {
        if (sim.market(t.symbol)) sim.recordTrade(t);
      };
      engine.on('book', onBook);
      engine.on('trade', onTrade);
      const off = () => {
        engine.off('book', onBook);
        engine.off('trade', onTrade);
      };
      detachers.push(off);
      return off;
    },
    detach() {
      for (const d of detachers.splice(0)) d();
    },
  };
}
