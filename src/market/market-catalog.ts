/**
 * The market catalog: `/v1/markets` (limits and precision) merged with `/hector/web/v1/markets`
 * (which markets are active for spot, OTC and margin) and the account's fee rates into one `Market`
 * per symbol, refreshed on a schedule. Limits are Decimal increments: `qtyStep` and `priceTick` come
 * from the decimal-place counts `stepSize` / `tickSize` (counts, not increments: the exchange's
 * documented answer is test/fixtures/exchange-samples/rest_v1_markets__api-docs-wallex-ir-crawl.txt).
 *
 * Merge rules: only markets listed by /v1/markets are in the catalog (they carry the limits). When
 * the active-markets list was loaded, a market absent from it is not tradable (`isSpot` false);
 * without that list, /v1/markets markets are assumed spot-tradable and `activeKnown` is false.
 * Fees: the account's rate for the market; else 0 on a zero-fee market; else `defaultFees` if given;
 * else undefined (`feeSource: 'unknown'`): never a guessed fee. If the active-markets or fee call
 * fails, the previous answer is kept; if /v1/markets fails, the whole previous catalog is kept.
 */
import { EventEmitter } from 'eventemitter3';
import { type Decimal, ZERO, incrementFromDecimals } from '../core/decimal.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { FeeRates } from '../core/types/account.js';
import type { ActiveMarket, MarketInfo, MarketStats } from '../core/types/market.js';
import type { MarginMarket } from '../core/types/margin-extra.js';
import type { InstantBounds, RiskCoefBounds } from '../core/views.js';
import type { OtcMarket } from '../exchange/parse/otc.js';
import { withMarginBounds } from './margin-bounds.js';
import { withInstantBounds } from './instant-bounds.js';
import { CatalogNotLoadedError, UnknownMarketError } from './errors.js';
import type { MarketInfoSource, Timers } from './ports.js';
import { realTimers } from './ports.js';

type FeeSource = 'account' | 'zero_fee_market' | 'default' | 'unknown';

export interface Market {
  symbol: string;
  baseAsset: string;
  quoteAsset: string;
  faName?: string;
  /** Decimal places of quantities and prices (`stepSize` / `tickSize` of /v1/markets). */
  quantityPrecision: number;
  pricePrecision: number;
  baseAssetPrecision: number;
  quoteAssetPrecision: number;
  /** Quantity increment (10^−quantityPrecision) and price increment (10^−pricePrecision). */
  qtyStep: Decimal;
  priceTick: Decimal;
  minQty: Decimal;
  /** Undefined when the exchange gave no upper bound. */
  maxQty?: Decimal;
  minNotional: Decimal;
  makerFee?: Decimal;
  takerFee?: Decimal;
  feeSource: FeeSource;
  isSpot: boolean;
  isOtc: boolean;
  isMargin: boolean;
  isZeroFee: boolean;
  /** True when the active-markets list was loaded (so the flags above come from it). */
  activeKnown: boolean;
  maxLeverage?: Decimal;
  leverageStep?: Decimal;
  /** Statistics as /v1/markets reported them at the last refresh. */
  stats?: MarketStats;
  /** Margin markets: risk-coefficient bounds of `/margin-trade/v1/public/markets` (see margin-bounds.ts). */
  riskCoef?: RiskCoefBounds;
  /** Margin markets: longest life of a position, seconds. */
  marginMaxAgeSec?: number;
  /** Instant (OTC) markets: the instant desk's bounds of `/v1/otc/markets` (see instant-bounds.ts). */
  instant?: InstantBounds;
}

export interface MarketCatalogOptions {
  /** Refresh period (ms). Default one hour. 0 disables the schedule. */
  refreshMs: number;
  defaultFees?: { maker: Decimal; taker: Decimal };
}

export interface MarketCatalogEvents {
  updated: (markets: readonly Market[]) => void;
  refreshFailed: (error: unknown) => void;
}

/** Upper-case, without spaces or invisible marks (channel names copied from Persian docs carry U+064E). */
export function normalizeSymbol(symbol: string): string {
  return symbol.replace(/[^\x21-\x7e]/g, '').toUpperCase();
}

/** Merge the three sources into Markets (pure; exported for tests and tools). */
function mergeMarkets(
  infos: readonly MarketInfo[],
  active: readonly ActiveMarket[] | undefined,
  fees: FeeRates | undefined,
  defaultFees?: { maker: Decimal; taker: Decimal },
): Market[] {
  const activeBySymbol = new Map((active ?? []).map((a) => [normalizeSymbol(a.symbol), a]));
  return infos.map((info) => {
    const symbol = normalizeSymbol(info.symbol);
    const a = activeBySymbol.get(symbol);
    const fee = fees?.markets[symbol];
    const isZeroFee = a?.isZeroFee ?? false;
    let makerFee: Decimal | undefined;
    let takerFee: Decimal | undefined;
    let feeSource: FeeSource = 'unknown';
    if (fee) [makerFee, takerFee, feeSource] = [fee.makerFeeRate, fee.takerFeeRate, 'account'];
    else if (isZeroFee) [makerFee, takerFee, feeSource] = [ZERO, ZERO, 'zero_fee_market'];
    else if (defaultFees) [makerFee, takerFee, feeSource] = [defaultFees.maker, defaultFees.taker, 'default'];
    const m: Market = {
      symbol,
      baseAsset: info.baseAsset,
      quoteAsset: info.quoteAsset,
      quantityPrecision: info.stepSize,
      pricePrecision: info.tickSize,
      baseAssetPrecision: info.baseAssetPrecision,
      quoteAssetPrecision: info.quoteAssetPrecision,
      qtyStep: incrementFromDecimals(info.stepSize),
      priceTick: incrementFromDecimals(info.tickSize),
      minQty: info.minQty,
      minNotional: info.minNotional,
      feeSource,
      isSpot: active ? (a?.isSpot ?? false) : true,
      isOtc: a?.isOtc ?? false,
      isMargin: a?.isMargin ?? false,
      isZeroFee,
      activeKnown: active !== undefined,
    };
    if (info.faName !== undefined) m.faName = info.faName;
    if (info.maxQty !== undefined) m.maxQty = info.maxQty;
    if (makerFee !== undefined) m.makerFee = makerFee;
    if (takerFee !== undefined) m.takerFee = takerFee;
    if (a?.maxLeverage !== undefined) m.maxLeverage = a.maxLeverage;
    if (a?.leverageStep !== undefined) m.leverageStep = a.leverageStep;
    if (info.stats !== undefined) m.stats = info.stats;
    return m;
  });
}

export class MarketCatalog extends EventEmitter<MarketCatalogEvents> {
  private markets = new Map<string, Market>();
  private loaded = false;
  private lastActive: ActiveMarket[] | undefined;
  private lastFees: FeeRates | undefined;
  private lastMargin: MarginMarket[] | undefined;
  private lastOtc: OtcMarket[] | undefined;
  private timer: unknown;
  private readonly opts: MarketCatalogOptions;
  private readonly log: Logger;
  private readonly timers: Timers;
  private refreshing: Promise<void> | undefined;
  private readonly source: MarketInfoSource;

  constructor(deps: { source: MarketInfoSource; timers?: Timers; logger?: Logger; options?: Partial<MarketCatalogOptions> }) {
    super();
    this.source = deps.source;
    this.opts = { refreshMs: 3_600_000, ...deps.options };
    this.log = deps.logger ?? silentLogger;
    this.timers = deps.timers ?? realTimers;
  }

  /** Load once (throws if /v1/markets fails), then refresh every `refreshMs`. */
  async start(): Promise<void> {
    await this.refresh();
    if (this.opts.refreshMs > 0 && this.timer === undefined) {
      this.timer = this.timers.setInterval(() => {
        this.refresh().catch(() => undefined); // reported through 'refreshFailed' and the log
      }, this.opts.refreshMs);
    }
  }

  stop(): void {
    if (this.timer !== undefined) this.timers.clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Fetch and merge now. Concurrent calls share one refresh. */
  refresh(): Promise<void> {
    this.refreshing ??= this.doRefresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  /** The market, or UnknownMarketError (CatalogNotLoadedError before the first load). */
  get(symbol: string): Market {
    const s = normalizeSymbol(symbol);
    const m = this.markets.get(s);
    if (m) return m;
    if (!this.loaded) throw new CatalogNotLoadedError(symbol);
    throw new UnknownMarketError(symbol, this.markets.size);
  }

  has(symbol: string): boolean {
    return this.markets.has(normalizeSymbol(symbol));
  }

  list(): Market[] {
    return [...this.markets.values()];
  }

  private async doRefresh(): Promise<void> {
    try {
      const [infos, active, fees] = await Promise.all([
        this.source.getMarkets(),
        this.optional('active markets', () => this.source.getActiveMarkets?.()),
        this.optional('fee rates', () => this.source.getFees?.()),
      ]);
      // After the markets: optional, and the start's three reads keep the exchange to themselves.
      const margin = await this.optional('margin markets', () => this.source.getMarginMarkets?.());
      const otc = await this.optional('instant markets', () => this.source.getOtcMarkets?.());
      if (active) this.lastActive = active;
      if (fees) this.lastFees = fees;
      if (margin) this.lastMargin = margin;
      if (otc) this.lastOtc = otc;
      const list = Array.isArray(infos) ? infos : Object.values(infos);
      const merged = withInstantBounds(
        withMarginBounds(mergeMarkets(list, this.lastActive, this.lastFees, this.opts.defaultFees), this.lastMargin),
        this.lastOtc,
      );
      this.markets = new Map(merged.map((m) => [m.symbol, m]));
      this.loaded = true;
      this.log.info({ markets: merged.length }, 'market catalog refreshed');
      this.emit('updated', merged);
    } catch (err) {
      this.log.warn({ err }, 'market catalog refresh failed; keeping the previous catalog');
      this.emit('refreshFailed', err);
      throw err;
    }
  }

  private async optional<T>(what: string, fn: () => Promise<T> | undefined): Promise<T | undefined> {
    try {
      return await fn();
    } catch (err) {
      this.log.warn({ err }, `market catalog: ${what} unavailable; keeping the previous answer`);
      return undefined;
    }
  }
}
