/**
 * The account's value in the run's reference asset, from plain numbers, for the equity curve: each
 * held asset converted through the markets of the run (`routeOf`), balances re-read only after they
 * changed, and open margin profit valued like a balance of its market's quote asset. An asset no
 * market converts is left out and named (`unpriced`).
 */
import { toDecimal, type Decimal } from '../core/decimal.js';
import { decimalToNumber } from '../market/fast-parse.js';
import type { MizanConfig } from '../config/schema.js';
import type { Series } from './data.js';
import { routeOf, type Leg, type RouteContext } from '../kernel/valuation.js';
import { BACKTEST_ACCOUNT, type Harness, type UnvaluedAsset } from './setup.js';

/** The starting balances the run cannot value in the reference asset (no market of the run converts them). */
export function unpricedBalances(config: MizanConfig, h: RouteContext, series: readonly Series[]): string[] {
  const out: string[] = [];
  for (const [asset, v] of Object.entries(config.backtest!.balances)) {
    if (
      !toDecimal(v, `backtest.balances.${asset}`).isZero() &&
      !routeOf(
        h,
        series.map((s) => s.symbol),
        asset,
      )
    )
      out.push(asset);
  }
  return out.sort();
}

/**
 * Account value in the reference asset from plain numbers at sample time `t` (ms); balances re-read
 * only after they changed. An asset held that no market of the run converts is left out of the value
 * and named in `unpriced`. A market whose first candle has begun by `t` but not yet closed (a slower
 * resolution than the others, a market no strategy trades and so with no warm-up, the run's very
 * start) is valued at that candle's open, the price at its start: without it the asset would drop out
 * of the first samples and its value would later appear as a fake return. An asset whose route still
 * has no price (its market's data starts later) is left out of that sample and recorded in `unvalued`.
 */
export function equityValuer(h: Harness, series: Series[], unpriced: Set<string>, unvalued: Map<string, UnvaluedAsset> = new Map()): (t: number) => number {
  const assets: { asset: string; value: number; legs: Leg[] }[] = [];
  const bookList = series.map((s) => h.books.get(s.symbol)!);
  const firstOpen = series.map((s) => (s.length > 0 ? s.open[0]! : Number.NaN));
  const firstStartMs = series.map((s) => (s.length > 0 ? s.time[0]! * 1000 : Infinity));
  const priceOf = (j: number, t: number): number => {
    const px = bookList[j]!.price;
    if (!Number.isNaN(px)) return px;
    return firstStartMs[j]! <= t ? firstOpen[j]! : Number.NaN;
  };
  /** `asset` left out of the sample at `t`: its route's market `j` has no price. */
  const leftOut = (asset: string, legs: readonly Leg[], t: number): void => {
    const j = legs.find((l) => Number.isNaN(priceOf(l.book, t)))?.book ?? legs[0]!.book;
    const u = unvalued.get(asset);
    if (u) {
      u.to = t;
      u.samples++;
    } else unvalued.set(asset, { market: series[j]!.symbol, from: t, to: t, samples: 1 });
  };
  const symbols = series.map((s) => s.symbol);
  const routes = new Map<string, Leg[] | undefined>();
  // The account's held balances in the order sim.balances() lists them (every listed asset, then
  // any other held one), so the float sum below adds in the same order; assets never held are zero
  // there and skipped here without building an entry for each listed asset.
  const listed = h.sim.assets();
  const rank = new Map(listed.map((a, i) => [a, i]));
  const add = (asset: string, b: { value: Decimal }) => {
    const value = decimalToNumber(b.value); // the double toNumber() gives, without printing a string
    if (value === 0) return;
    if (!routes.has(asset)) routes.set(asset, routeOf(h, symbols, asset));
    const legs = routes.get(asset);
    if (!legs) {
      unpriced.add(asset); // not priceable in the reference asset: left out, reported
      return;
    }
    assets.push({ asset, value, legs });
  };
  // Whether every asset held is the reference itself (no price to read: the value only changes with
  // the balances), and that value, summed as the loop below sums it.
  let flat = false;
  let flatValue = 0;
  const refresh = () => {
    assets.length = 0;
    const held = h.sim.ledger.balances(BACKTEST_ACCOUNT);
    // The listed assets in their order, then any other held one in the ledger's order.
    for (const asset of listed) {
      const b = held[asset];
      if (b) add(asset, b);
    }
    for (const asset of Object.keys(held)) if (!rank.has(asset)) add(asset, held[asset]!);
    flat = assets.every((a) => a.legs.length === 0);
    flatValue = 0;
    for (const a of assets) flatValue += a.value;
  };
  return (t) => {
    if (h.changes.takeBalances()) refresh();
    if (flat && h.marginMarkets.size === 0) return flatValue;
    let v = 0;
    for (const a of assets) {
      const legs = a.legs;
      if (legs.length === 0) v += a.value;
      else if (legs.length === 1) {
        const l = legs[0]!;
        const px = priceOf(l.book, t);
        if (!Number.isNaN(px)) v += l.inverse ? a.value / px : a.value * px;
        else leftOut(a.asset, legs, t);
      } else {
        let x = a.value;
        for (const l of legs) {
          const px = priceOf(l.book, t);
          x = l.inverse ? x / px : x * px;
        }
        if (!Number.isNaN(x)) v += x;
        else leftOut(a.asset, legs, t);
      }
    }
    if (h.marginMarkets.size > 0) {
      for (const p of h.portfolio.marginPositions()) {
        if (p.state !== 'open') continue;
        // The open profit is in the market's quote asset: valued like a balance of it.
        const quote = h.split(p.market).quote;
        if (!routes.has(quote)) routes.set(quote, routeOf(h, symbols, quote));
        const legs = routes.get(quote);
        if (!legs) {
          unpriced.add(quote);
          continue;
        }
        let x = p.profit.value.toNumber();
        for (const l of legs) x = l.inverse ? x / priceOf(l.book, t) : x * priceOf(l.book, t);
        if (!Number.isNaN(x)) v += x;
        else leftOut(quote, legs, t);
      }
    }
    return v;
  };
}
