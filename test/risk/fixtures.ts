/** Test fixtures: a market, a hand-built book, balances and a RiskEngine wired to them. */
import { ManualClock } from '../../src/core/clock.js';
import { d, Decimal } from '../../src/core/decimal.js';
import type { BookLevel } from '../../src/core/types/market.js';
import type { MarginPosition } from '../../src/core/types/margin.js';
import type { Intent, Size } from '../../src/core/intents.js';
import { RiskEngine, type RiskEngineDeps } from '../../src/risk/engine.js';
import type { OpenOrderRef, PositionRef, RiskBook, RiskMarket, RiskPorts } from '../../src/risk/ports.js';
import { MemorySink } from '../../src/risk/sinks.js';

export const BTCUSDT: RiskMarket = {
  symbol: 'BTCUSDT',
  base: 'BTC',
  quote: 'USDT',
  qtyStep: d('0.0001'),
  priceTick: d('0.01'),
  minQty: d('0.0002'),
  maxQty: d('5'),
  minNotional: d('10'),
  makerFee: d('0.001'),
  takerFee: d('0.002'),
};

const USDTTMN: RiskMarket = {
  symbol: 'USDTTMN',
  base: 'USDT',
  quote: 'TMN',
  qtyStep: d('0.01'),
  priceTick: d('1'),
  minQty: d('1'),
  minNotional: d('100000'),
  makerFee: d('0.0025'),
  takerFee: d('0.0035'),
};

export class FakeBook implements RiskBook {
  healthy = true;
  reasons: string[] = [];
  constructor(
    public bidLevels: BookLevel[],
    public askLevels: BookLevel[],
  ) {}
  static of(bids: [string, string][], asks: [string, string][]): FakeBook {
    const lv = (xs: [string, string][]) => xs.map(([p, q]) => ({ price: d(p), quantity: d(q) }));
    return new FakeBook(lv(bids), lv(asks));
  }
  bestBid(): Decimal | undefined {
    return this.bidLevels[0]?.price;
  }
  bestAsk(): Decimal | undefined {
    return this.askLevels[0]?.price;
  }
  mid(): Decimal | undefined {
    const b = this.bestBid();
    const a = this.bestAsk();
    return b && a ? b.plus(a).div(2) : undefined;
  }
  bids(): BookLevel[] {
    return this.bidLevels;
  }
  asks(): BookLevel[] {
    return this.askLevels;
  }
  health() {
    return { healthy: this.healthy, reasons: this.reasons };
  }
}

/** BTCUSDT around 60000: bid 59990 / ask 60010, mid 60000. */
export function btcBook(): FakeBook {
  return FakeBook.of(
    [
      ['59990', '1'],
      ['59900', '2'],
      ['59000', '5'],
    ],
    [
      ['60010', '1'],
      ['60100', '2'],
      ['61000', '5'],
    ],
  );
}

export class World {
  clock = new ManualClock(Date.UTC(2025, 0, 6, 12, 0, 0));
  markets = new Map<string, RiskMarket>([
    [BTCUSDT.symbol, BTCUSDT],
    [USDTTMN.symbol, USDTTMN],
  ]);
  books = new Map<string, FakeBook>([[BTCUSDT.symbol, btcBook()]]);
  balances = new Map<string, { value: Decimal; locked: Decimal }>();
  orders: OpenOrderRef[] = [];
  spot: PositionRef[] = [];
  margin: MarginPosition[] = [];
  accounts: Record<string, string> = {};
  sink = new MemorySink();

  setBalance(asset: string, value: string, locked = '0', account = 'main'): void {
    this.balances.set(`${account}:${asset}`, { value: d(value), locked: d(locked) });
  }

  ports(extra: Partial<RiskPorts> = {}): RiskPorts {
    return {
      market: (s) => this.markets.get(s),
      book: (s) => this.books.get(s),
      balance: (account, asset) => this.balances.get(`${account}:${asset}`),
      openOrders: () => this.orders,
      positions: () => this.spot,
      marginPositions: () => this.margin,
      accountOf: (s) => this.accounts[s] ?? 'main',
      ...extra,
    };
  }

  engine(deps: Partial<RiskEngineDeps> = {}): RiskEngine {
    return new RiskEngine({ ports: this.ports(), clock: this.clock, sink: this.sink, ...deps });
  }
}

const base = (q: string): Size => ({ kind: 'base', quantity: d(q) });

export function limit(side: 'BUY' | 'SELL', qty: string | Size, price: string, strategy = 's1', symbol = 'BTCUSDT'): Intent {
  return { kind: 'order', strategy, symbol, side, type: 'LIMIT', size: typeof qty === 'string' ? base(qty) : qty, price: d(price) };
}

export function market(side: 'BUY' | 'SELL', qty: string | Size, strategy = 's1', symbol = 'BTCUSDT'): Intent {
  return { kind: 'order', strategy, symbol, side, type: 'MARKET', size: typeof qty === 'string' ? base(qty) : qty };
}

export function marginPosition(over: Partial<MarginPosition> & { id: number }): MarginPosition {
  return {
    market: 'BTCUSDT',
    side: 'long',
    state: 'open',
    callPrice: d('50000'),
    liquidityPrice: d('48000'),
    isCalled: false,
    openPrice: d('60000'),
    collateral: { currency: 'USDT', value: d('1000') },
    interest: { currency: 'USDT', value: d('0') },
    loan: { currency: 'USDT', value: d('2000') },
    profit: { currency: 'USDT', value: d('0') },
    riskCoef: d('3'),
    ...over,
  };
}
