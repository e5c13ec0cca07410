/**
 * InstantDesk: the simulated exchange's instant (OTC, "easy trade") orders (spec 2.13, 4.4).
 *
 * Quote (`GET /v1/account/otc/price`): BUY at best ask × (1 + spread) rounded up to the tick, SELL at
 * best bid × (1 − spread) rounded down (the last trade price stands in for an empty side). A quote
 * lives `ttlMs`; an order placed while the account's quote for that market and side is alive fills at
 * the quoted price, otherwise at a fresh one.
 * Order (`POST /v1/account/easy-trade/orders`): fills at once, whole (`FILLED`, `active: false`,
 * `executedPercent: 100`). The fee is taken in the received asset: BUY receives quantity × (1 − fee)
 * base for quantity × price quote, SELL receives quantity × price × (1 − fee) quote. 402 when the
 * spent asset's free balance is short; nothing moves then.
 */
import { createHash } from 'node:crypto';
import { Decimal } from '../core/decimal.js';
import type { Clock } from '../core/clock.js';
import { silentLogger, type Logger } from '../core/logger.js';
import type { Side } from '../core/types/market.js';
import type { Ledger } from './ledger.js';
import { simErrors } from './errors.js';
import { isoSeconds, type MarketSpec, type MarketSpecs, type PriceView } from './margin/ports.js';

export interface InstantDeskDeps {
  ledger: Ledger;
  prices: PriceView;
  specs: MarketSpecs;
  clock: Clock;
  /** Fraction added to the ask (BUY) or taken off the bid (SELL). Default 0.005 (0.5%). */
  spread?: Decimal;
  /** Quote lifetime. Default 10 s. */
  ttlMs?: number;
  /** Fee rate per market; default the market's taker fee. */
  feeRate?: (symbol: string, spec: MarketSpec, account: string) => Decimal;
  /** Every market symbol, for `GET /v1/otc/markets`; default none listed. */
  symbols?: () => string[];
  /**
   * Order total bounds (quote) per market (paper: the exchange's own, from its `/v1/otc/markets`);
   * undefined, or none given: 5-10,000 USDT and 100,000-1,000,000,000 TMN.
   */
  notionalBounds?: (symbol: string, spec: MarketSpec) => { min: Decimal; max: Decimal } | undefined;
  /** Persian and English names of a market, for `GET /v1/otc/markets`; default "BASE - QUOTE". */
  names?: (symbol: string) => { faName: string; enName: string } | undefined;
  /** 24 h change in percent, for `GET /v1/otc/markets`; default 0. */
  change24h?: (symbol: string) => number;
  /** Seed of the deterministic client ids. */
  idSeed?: string;
  /**
   * Mixed into the client ids with the seed: a value unique to this simulator (paper and `mizan sim`
   * pass a random one) makes its ids differ from every other run's, so a journal that outlives a run
   * never takes a new order for an old one. Without it (a backtest) the ids are the seed's alone:
   * the same on every run.
   */
  idNonce?: string;
  logger?: Logger;
}

export interface WireOtcQuote {
  price: string;
  price_expires_at: string;
  /** Seconds the price stays valid. */
  ttl: number;
  current_time: string;
}

export interface InstantOrderRequest {
  symbol: string;
  side: Side;
  quantity: Decimal;
}

interface WireInstantFill {
  price: string;
  quantity: string;
  fee: string;
  feeCoefficient: string;
  feeAsset: string;
  timestamp: string;
  symbol: string;
  sum: string;
  makerFeeCoefficient: string;
  takerFeeCoefficient: string;
  isBuyer: boolean;
}

export interface WireInstantOrder {
  symbol: string;
  sourceMarket: string;
  destinationMarket: string;
  type: 'OTC';
  side: Side;
  clientOrderId: string;
  transactTime: number;
  price: string;
  origQty: string;
  executedSum: string;
  executedQty: string;
  executedPrice: string;
  sum: string;
  executedPercent: number;
  status: 'FILLED';
  active: boolean;
  fills: WireInstantFill[];
}

export interface WireOtcMarket {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  faName: string;
  enName: string;
  minQty: number;
  minNotional: number;
  maxNotional: number;
  stats: { '24h_ch': number; lastPrice: number | null };
  buyStatus: 'ENABLE' | 'DISABLE';
  sellStatus: 'ENABLE' | 'DISABLE';
  exchangeStatus: 'ENABLE' | 'DISABLE';
}

interface LiveQuote {
  price: Decimal;
  expiresAtMs: number;
}

const invalid = (field: string, message: string) => simErrors.invalid({ [field]: [message] }, message);

export class InstantDesk {
  private readonly quotes = new Map<string, LiveQuote>();
  private readonly orders = new Map<string, { account: string; order: WireInstantOrder }>();
  private readonly spread: Decimal;
  private readonly ttlMs: number;
  private readonly log: Logger;
  private seq = 0;

  constructor(private readonly deps: InstantDeskDeps) {
    this.spread = deps.spread ?? new Decimal('0.005');
    this.ttlMs = deps.ttlMs ?? 10_000;
    this.log = deps.logger ?? silentLogger;
  }

  quote(account: string, symbol: string, side: Side): WireOtcQuote {
    const spec = this.spec(symbol);
    checkSide(side);
    const now = this.deps.clock.now();
    const price = this.price(symbol, side, spec);
    const expiresAtMs = now + this.ttlMs;
    this.quotes.set(quoteKey(account, symbol, side), { price, expiresAtMs });
    return { price: price.toFixed(), price_expires_at: isoSeconds(expiresAtMs), ttl: Math.round(this.ttlMs / 1000), current_time: isoSeconds(now) };
  }

  place(account: string, req: InstantOrderRequest): WireInstantOrder {
    const spec = this.spec(req.symbol);
    checkSide(req.side);
    const qty = req.quantity;
    if (qty.lte(0)) throw invalid('quantity', `quantity must be positive, got ${qty.toFixed()}`);
    if (qty.decimalPlaces() > spec.quantityPrecision) {
      throw invalid('quantity', `quantity ${qty.toFixed()} has more than ${spec.quantityPrecision} decimals`);
    }
    const now = this.deps.clock.now();
    const live = this.quotes.get(quoteKey(account, req.symbol, req.side));
    const price = live && live.expiresAtMs > now ? live.price : this.price(req.symbol, req.side, spec);
    const sum = qty.mul(price);
    const bounds = this.bounds(req.symbol, spec);
    if (sum.lt(bounds.min) || sum.gt(bounds.max)) {
      throw invalid('quantity', `order total ${sum.toFixed()} ${spec.quote} must be from ${bounds.min.toFixed()} to ${bounds.max.toFixed()}`);
    }
    const rate = this.deps.feeRate?.(req.symbol, spec, account) ?? spec.takerFee;
    const buy = req.side === 'BUY';
    const fee = (buy ? qty : sum).mul(rate);
    // Debit first: a 402 there leaves every balance as it was.
    if (buy) {
      this.deps.ledger.debitFree(account, spec.quote, sum);
      this.deps.ledger.credit(account, spec.base, qty.minus(fee));
    } else {
      this.deps.ledger.debitFree(account, spec.base, qty);
      this.deps.ledger.credit(account, spec.quote, sum.minus(fee));
    }
    this.quotes.delete(quoteKey(account, req.symbol, req.side));
    const order: WireInstantOrder = {
      symbol: req.symbol,
      sourceMarket: spec.base,
      destinationMarket: spec.quote,
      type: 'OTC',
      side: req.side,
      clientOrderId: this.nextClientId(),
      transactTime: Math.floor(now / 1000),
      price: price.toFixed(),
      origQty: qty.toFixed(),
      executedSum: sum.toFixed(),
      executedQty: qty.toFixed(),
      executedPrice: price.toFixed(),
      sum: sum.toFixed(),
      executedPercent: 100,
      status: 'FILLED',
      active: false,
      fills: [
        {
          price: price.toFixed(),
          quantity: qty.toFixed(),
          fee: fee.toFixed(),
          feeCoefficient: rate.toFixed(),
          feeAsset: buy ? spec.base : spec.quote,
          timestamp: isoSeconds(now),
          symbol: req.symbol,
          sum: sum.toFixed(),
          makerFeeCoefficient: spec.makerFee.toFixed(),
          takerFeeCoefficient: rate.toFixed(),
          isBuyer: buy,
        },
      ],
    };
    this.orders.set(order.clientOrderId, { account, order });
    // debug: the bot logs its own fills (with the strategy); this is the exchange's side of it.
    this.log.debug({ account, symbol: req.symbol, side: req.side, quantity: qty.toFixed(), price: price.toFixed() }, 'simulator instant desk: order filled');
    return order;
  }

  /**
   * `GET /v1/otc/markets` in the shape of the current documentation page (otc-markets): `result`
   * keyed by symbol, each `{symbol, baseAsset, quoteAsset, faName, enName, minQty, minNotional,
   * maxNotional, stats{24h_ch, lastPrice}, buyStatus, sellStatus, exchangeStatus}`. (The older
   * page wrapped the map in `result.symbols`; the REST client reads both.)
   */
  otcMarkets(): Record<string, WireOtcMarket> {
    const out: Record<string, WireOtcMarket> = {};
    for (const symbol of this.deps.symbols?.() ?? []) {
      const spec = this.deps.specs(symbol);
      if (!spec) continue;
      const b = this.bounds(symbol, spec);
      const last = this.deps.prices.lastPrice(symbol) ?? this.deps.prices.mid(symbol);
      const names = this.deps.names?.(symbol);
      out[symbol] = {
        symbol,
        baseAsset: spec.base,
        quoteAsset: spec.quote,
        faName: names?.faName ?? `${spec.base} - ${spec.quote}`,
        enName: names?.enName ?? `${spec.base} - ${spec.quote}`,
        minQty: new Decimal(10).pow(-spec.quantityPrecision).toNumber(),
        minNotional: b.min.toNumber(),
        maxNotional: b.max.toNumber(),
        stats: { '24h_ch': this.deps.change24h?.(symbol) ?? 0, lastPrice: last ? last.toNumber() : null },
        buyStatus: 'ENABLE',
        sellStatus: 'ENABLE',
        exchangeStatus: 'ENABLE',
      };
    }
    return out;
  }

  /** An instant order of the account by client id (404 otherwise). */
  get(account: string, clientOrderId: string): WireInstantOrder {
    const o = this.orders.get(clientOrderId);
    if (!o || o.account !== account) throw simErrors.notFound(`instant order ${JSON.stringify(clientOrderId)} not found`);
    return o.order;
  }

  private bounds(symbol: string, spec: MarketSpec): { min: Decimal; max: Decimal } {
    const given = this.deps.notionalBounds?.(symbol, spec);
    if (given) return given;
    return spec.quote === 'TMN' ? { min: new Decimal(100_000), max: new Decimal(1_000_000_000) } : { min: new Decimal(5), max: new Decimal(10_000) };
  }

  private spec(symbol: string): MarketSpec {
    const spec = this.deps.specs(symbol);
    if (!spec) throw invalid('symbol', `market ${JSON.stringify(symbol)} does not exist`);
    return spec;
  }

  private price(symbol: string, side: Side, spec: MarketSpec): Decimal {
    const p = this.deps.prices;
    const book = side === 'BUY' ? p.bestAsk(symbol) : p.bestBid(symbol);
    const base = book ?? p.lastPrice(symbol);
    if (!base) throw invalid('symbol', `market ${symbol} has no price now`);
    return side === 'BUY'
      ? base.mul(Decimal.add(1, this.spread)).toDecimalPlaces(spec.pricePrecision, Decimal.ROUND_UP)
      : base.mul(Decimal.sub(1, this.spread)).toDecimalPlaces(spec.pricePrecision, Decimal.ROUND_DOWN);
  }

  /** `OTC-` and a UUID-shaped id derived from the seed, the nonce (when given) and a counter: unique, and reproducible without a nonce. */
  private nextClientId(): string {
    const seed = this.deps.idSeed ?? 'mizan-sim';
    const h = createHash('sha256')
      .update(this.deps.idNonce === undefined ? `${seed}:${++this.seq}` : `${seed}:${this.deps.idNonce}:${++this.seq}`)
      .digest('hex');
    return `OTC-${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
  }
}

function checkSide(side: string): asserts side is Side {
  if (side !== 'BUY' && side !== 'SELL') throw invalid('side', `side must be BUY or SELL, got ${JSON.stringify(side)}`);
}

const quoteKey = (account: string, symbol: string, side: Side): string => `${account}\u0000${symbol}\u0000${side}`;
