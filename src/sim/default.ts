/**
 * The default simulator: the five markets (BTCUSDT, ETHUSDT, USDTTMN, BTCTMN, ETHTMN), each with a
 * deterministic starting book of 50 levels a side around a fixed reference price, and a last
 * price; plus a funded test account with a read+trade key. Used by `mizan sim`, by `npm start`
 * and by tests until replayed market data moves the books.
 */
import { Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { SimulatedExchange } from './exchange.js';
import type { MarketSpec } from './markets.js';
import { Prng } from './prng.js';
import type { LevelInput } from './order-types.js';

/** Reference prices of the starting books (mid-2024 levels; Toman prices in whole Toman). */
export const DEFAULT_PRICES: Record<string, string> = {
  BTCUSDT: '62550',
  ETHUSDT: '2650',
  USDTTMN: '82100',
  BTCTMN: '5135355000',
  ETHTMN: '217565000',
};

/** Typical quantity range per level, in the base asset. */
const LEVEL_QTY: Record<string, [number, number]> = { BTC: [0.005, 0.4], ETH: [0.05, 6], USDT: [20, 4000] };

export interface DefaultSimulatorOptions {
  clock: Clock;
  seed?: number;
  logger?: Logger;
  /** Levels per side of the starting books (50). */
  levels?: number;
  /** Seed the starting books and last prices (default true); false when replayed data will fill them. */
  seedBooks?: boolean;
}

export function createDefaultSimulator(opts: DefaultSimulatorOptions): SimulatedExchange {
  const seed = opts.seed ?? 1;
  const sim = new SimulatedExchange({ clock: opts.clock, seed, ...(opts.logger ? { logger: opts.logger } : {}) });
  const prng = new Prng(seed ^ 0x5eed);
  if (opts.seedBooks === false) return sim;
  for (const m of sim.markets()) {
    const ref = DEFAULT_PRICES[m.symbol];
    if (!ref) continue;
    const book = startingBook(m, new Decimal(ref), opts.levels ?? 50, prng);
    sim.replaceBookSide(m.symbol, 'bid', book.bids);
    sim.replaceBookSide(m.symbol, 'ask', book.asks);
    sim.setLastPrice(m.symbol, new Decimal(ref));
  }
  return sim;
}

/** Levels 1 to 2 basis points apart, starting half a basis point from the reference, on the market's grids. */
export function startingBook(m: MarketSpec, ref: Decimal, count: number, prng: Prng): { bids: LevelInput[]; asks: LevelInput[] } {
  const tick = new Decimal(10).pow(-m.tickSize);
  const [lo, hi] = LEVEL_QTY[m.baseAsset] ?? [1, 10];
  const side = (dir: 1 | -1): LevelInput[] => {
    const out: LevelInput[] = [];
    let offsetBp = 0.5;
    let last: Decimal | undefined;
    for (let i = 0; i < count; i++) {
      let price = ref.mul(1 + (dir * offsetBp) / 10_000).toDecimalPlaces(m.tickSize, dir > 0 ? Decimal.ROUND_UP : Decimal.ROUND_DOWN);
      if (last && (dir > 0 ? price.lte(last) : price.gte(last))) price = last.plus(tick.mul(dir));
      const qty = new Decimal(lo + prng.next() * (hi - lo)).toDecimalPlaces(m.stepSize, Decimal.ROUND_DOWN);
      out.push({ price, quantity: Decimal.max(qty, m.minQty) });
      last = price;
      offsetBp += 1 + prng.next();
    }
    return out;
  };
  return { bids: side(-1), asks: side(1) };
}

export interface TestAccount {
  accountId: string;
  apiKey: string;
}

/** Starting balances of the test account. */
export const TEST_BALANCES: Record<string, string> = { TMN: '5000000000', USDT: '100000', BTC: '2', ETH: '20' };

/** A funded account with a read + trade key (the key is drawn from the simulator's seed unless given). */
export function createTestAccount(sim: SimulatedExchange, opts: { id?: string; apiKey?: string; balances?: Record<string, string> } = {}): TestAccount {
  const account = sim.createAccount({ id: opts.id ?? 'test', balances: opts.balances ?? TEST_BALANCES });
  const key = sim.createApiKey(account.id, { name: 'test', permissions: ['read', 'trade'], ...(opts.apiKey ? { key: opts.apiKey } : {}) });
  return { accountId: account.id, apiKey: key.key };
}
