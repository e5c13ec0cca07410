/**
 * Views of a running bot the API gives besides its status: precisions (each market's, the reference
 * asset's) so every amount is rounded as the exchange writes it, the books (best bid / ask, spread,
 * depth) and the strategies' plots. Kept apart from bot-adapter.ts, which wires them.
 */
import type { Decimal } from '../core/decimal.js';
import type { MarketCatalog } from '../market/market-catalog.js';
import type { MarketDataEngine } from '../market/engine.js';
import type { PlotRing } from '../runtime/plot-ring.js';
import { paneOf } from '../strategy/plots.js';
import type { BookDto, LevelDto, MarketDto, PlotDto } from './port.js';

/** Decimals shown for an asset no market of the bot names (none in practice). */
const FALLBACK_DECIMALS = 8;
const BOOK_LEVELS = 10;
const DEPTH_PERCENT = 1;

export class Precisions {
  private readonly markets = new Map<string, MarketDto>();
  private readonly assets = new Map<string, number>();

  constructor(catalog: Pick<MarketCatalog, 'get' | 'has'>, symbols: readonly string[]) {
    const known = symbols.filter((s) => catalog.has(s)).map((s) => ({ s, m: catalog.get(s) }));
    // An asset's decimals: the most any market of the bot gives it (as base or as quote).
    for (const { m } of known) {
      this.assets.set(m.baseAsset, Math.max(this.assets.get(m.baseAsset) ?? 0, m.baseAssetPrecision));
      this.assets.set(m.quoteAsset, Math.max(this.assets.get(m.quoteAsset) ?? 0, m.quoteAssetPrecision));
    }
    for (const { s, m } of known) {
      this.markets.set(s, {
        symbol: s,
        base: m.baseAsset,
        quote: m.quoteAsset,
        pricePrecision: m.pricePrecision,
        quantityPrecision: m.quantityPrecision,
        basePrecision: this.asset(m.baseAsset),
        quotePrecision: this.asset(m.quoteAsset),
      });
    }
  }

  list(): MarketDto[] {
    return [...this.markets.values()];
  }

  market(symbol: string): MarketDto | undefined {
    return this.markets.get(symbol);
  }

  asset(asset: string): number {
    return this.assets.get(asset) ?? FALLBACK_DECIMALS;
  }

  /** A price of the market, rounded to its tick's decimals (half-even, as the Decimal default). */
  price(symbol: string, d: Decimal): string {
    return fixed(d, this.markets.get(symbol)?.pricePrecision);
  }

  quantity(symbol: string, d: Decimal): string {
    return fixed(d, this.markets.get(symbol)?.quantityPrecision);
  }

  /** An amount of the market's base asset (a position: fees taken in the base leave more decimals than an order's step). */
  base(symbol: string, d: Decimal): string {
    const m = this.markets.get(symbol);
    return fixed(d, m ? this.asset(m.base) : undefined);
  }

  /** An amount in the market's quote asset. */
  quote(symbol: string, d: Decimal): string {
    const m = this.markets.get(symbol);
    return fixed(d, m ? this.asset(m.quote) : undefined);
  }

  amount(asset: string, d: Decimal): string {
    return fixed(d, this.asset(asset));
  }
}

/** Rounded to `dp` decimals, written without trailing zeros (undefined: as is). */
function fixed(d: Decimal, dp: number | undefined): string {
  return dp === undefined ? d.toFixed() : d.toDecimalPlaces(dp).toFixed();
}

export function booksView(market: Pick<MarketDataEngine, 'book' | 'health' | 'symbols'>, symbols: readonly string[], p: Precisions): BookDto[] {
  return symbols.map((symbol) => {
    const h = market.health(symbol);
    const empty: BookDto = {
      symbol,
      healthy: h.healthy,
      bestBid: null,
      bestAsk: null,
      mid: null,
      spread: null,
      spreadBps: null,
      depth: null,
      bids: [],
      asks: [],
      lastUpdateAt: h.lastUpdateAt ?? null,
    };
    if (!market.symbols().includes(symbol)) return empty;
    const book = market.book(symbol);
    const level = (l: { price: Decimal; quantity: Decimal }): LevelDto => ({ price: p.price(symbol, l.price), quantity: p.quantity(symbol, l.quantity) });
    const bid = book.bestBid();
    const ask = book.bestAsk();
    const mid = book.mid();
    const spread = book.spread();
    const bps = book.spreadBps();
    const band = book.depthWithin(DEPTH_PERCENT);
    const side = (s: { quantity: Decimal; notional: Decimal; levels: number }) => ({
      quantity: p.quantity(symbol, s.quantity),
      notional: p.quote(symbol, s.notional),
      levels: s.levels,
    });
    return {
      ...empty,
      bestBid: bid ? level(bid) : null,
      bestAsk: ask ? level(ask) : null,
      mid: mid ? p.price(symbol, mid) : null,
      spread: spread ? p.price(symbol, spread) : null,
      spreadBps: bps ? bps.toDecimalPlaces(2).toFixed() : null,
      depth: band ? { percent: DEPTH_PERCENT, bid: side(band.bid), ask: side(band.ask) } : null,
      bids: book.levels('bid', BOOK_LEVELS).map(level),
      asks: book.levels('ask', BOOK_LEVELS).map(level),
    };
  });
}

/** Every declared plot of the strategy on each of its markets, with the points drawn so far (none yet: empty). */
export function plotsView(strategy: string, ring: PlotRing): PlotDto[] {
  const { specs, markets } = ring.declaredOf(strategy);
  const drawn = ring.of(strategy);
  const out: PlotDto[] = [];
  for (const symbol of markets) {
    for (const [name, spec] of Object.entries(specs)) {
      const points = drawn.find((d) => d.symbol === symbol && d.name === name)?.points ?? [];
      out.push({ name, symbol, pane: paneOf(spec), color: spec.color ?? null, levels: [...(spec.levels ?? [])], points });
    }
  }
  return out;
}
