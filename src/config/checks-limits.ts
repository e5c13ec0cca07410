/**
 * Settings keyed by a market or an asset that the bot never trades, and strategy limits the global
 * ones override. The risk engine looks a limit up by the intent's market: `maxPositionValue.market`
 * by its symbol, `.asset` by its base, `.total` by its quote, `maxTotalLoan` by the asset a margin
 * open borrows (the quote of a long, the base of a short). A key no market of its scope has (the
 * bot's markets for `risk.limits`, the strategy's for its `risk`) is never read: refused, like a
 * `capital` in an unrelated asset. A starting balance in an asset no market has (`IRT`: Toman
 * markets are quoted in `TMN`) is refused too; one no traded market can value is a check note.
 */
import type { Decimal } from '../core/decimal.js';
import { routeOf } from '../kernel/valuation.js';
import type { ConfigIssue } from './issues.js';
import { describeValue } from './issues.js';
import { SYMBOL_RE } from './fields.js';
import type { MizanConfig } from './schema.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export type Legs = ReadonlyMap<string, { base: string; quote: string }>;
type Add = (path: (string | number)[], message: string, value?: unknown) => void;

const amount = (v: unknown) => describeValue(v).replace(/^"(.*)"$/, '$1');

/** What a Toman user who wrote IRT needs to hear; '' for any other asset. */
function rialHint(asset: string): string {
  return asset === 'IRT' ? '; Toman markets are quoted in TMN (IRT, the rial, is no asset of any market)' : '';
}

/** The valid symbols of a list as written. */
function symbolsOf(v: unknown): string[] {
  return arr(v).filter((m): m is string => typeof m === 'string' && SYMBOL_RE.test(m));
}

/**
 * Limits keyed by markets or assets no market of their scope has (see the file comment), each at
 * its path with the value. `known(sym)` is false for a symbol already reported as unknown.
 */
export function checkLimitKeys(root: Obj, legs: Legs, known: (sym: string) => boolean, add: Add): void {
  const strategies = arr(root.strategies);
  const describe = (markets: readonly string[]) => markets.map((m) => (legs.has(m) ? `${m}: ${legs.get(m)!.base}/${legs.get(m)!.quote}` : m)).join(', ');
  // A market outside the simulator and backtest.markets (live, the exchange's catalog) is base + quote.
  const isBase = (asset: string, m: string) => {
    const l = legs.get(m);
    return l ? l.base === asset : m !== asset && m.startsWith(asset);
  };
  const isQuote = (asset: string, m: string) => {
    const l = legs.get(m);
    return l ? l.quote === asset : m !== asset && m.endsWith(asset);
  };
  const scope = (limits: unknown, path: (string | number)[], markets: readonly string[], whose: string) => {
    if (markets.length === 0) return;
    const which = `${whose} markets (${describe(markets)})`;
    const pv = obj(obj(limits)?.maxPositionValue);
    for (const [sym, v] of Object.entries(obj(pv?.market) ?? {})) {
      if (!SYMBOL_RE.test(sym) || !known(sym) || markets.includes(sym)) continue;
      add(
        [...path, 'maxPositionValue', 'market', sym],
        `${amount(v)} would never apply: ${sym} is not one of ${which}, and maxPositionValue.market caps the position value on the market it names`,
        v,
      );
    }
    for (const [asset, v] of Object.entries(obj(pv?.asset) ?? {})) {
      if (!SYMBOL_RE.test(asset) || markets.some((m) => isBase(asset, m))) continue;
      add(
        [...path, 'maxPositionValue', 'asset', asset],
        `${amount(v)} ${asset} would never apply: ${asset} is not the base asset of ${which}, and maxPositionValue.asset caps the quantity held of a market's base asset${rialHint(asset)}`,
        v,
      );
    }
    for (const [asset, v] of Object.entries(obj(pv?.total) ?? {})) {
      if (!SYMBOL_RE.test(asset) || markets.some((m) => isQuote(asset, m))) continue;
      add(
        [...path, 'maxPositionValue', 'total', asset],
        `${amount(v)} ${asset} would never apply: ${asset} is not the quote asset of ${which}, and maxPositionValue.total caps the position value over the markets quoted in it${rialHint(asset)}`,
        v,
      );
    }
    for (const [asset, v] of Object.entries(obj(obj(limits)?.maxTotalLoan) ?? {})) {
      if (!SYMBOL_RE.test(asset) || markets.some((m) => isBase(asset, m) || isQuote(asset, m))) continue;
      add(
        [...path, 'maxTotalLoan', asset],
        `${amount(v)} ${asset} would never apply: ${asset} is neither the base nor the quote of ${which}, and maxTotalLoan caps what margin positions borrow of an asset (the quote of a long, the base of a short)${rialHint(asset)}`,
        v,
      );
    }
  };
  const all = [...new Set(strategies.flatMap((s) => symbolsOf(obj(s)?.markets)))];
  scope(obj(root.risk)?.limits, ['risk', 'limits'], all, "the bot's");
  // The margin monitor's top-up budget, per collateral asset: one of the bot's markets' assets.
  for (const [asset, v] of Object.entries(obj(obj(obj(root.risk)?.marginMonitor)?.topUpBudget) ?? {})) {
    if (all.length === 0 || !SYMBOL_RE.test(asset) || all.some((m) => isBase(asset, m) || isQuote(asset, m))) continue;
    add(
      ['risk', 'marginMonitor', 'topUpBudget', asset],
      `${amount(v)} ${asset} would never apply: ${asset} is neither the base nor the quote of the bot's markets (${describe(all)}), and topUpBudget caps the collateral added to margin positions, in their collateral asset${rialHint(asset)}`,
      v,
    );
  }
  strategies.forEach((s, i) => scope(obj(s)?.risk, ['strategies', i, 'risk'], symbolsOf(obj(s)?.markets), "the strategy's"));
}

/**
 * Starting balances (`paper.balances` in paper mode, `backtest.balances` in a backtest) in an asset
 * no known market has: nothing can trade or value them. Only where every market is known (`legs`
 * holds all of them: the simulator's and backtest.markets).
 */
export function checkBalanceAssets(root: Obj, legs: Legs, add: Add): void {
  const mode = str(root.mode);
  const section = mode === 'paper' ? 'paper' : mode === 'backtest' ? 'backtest' : undefined;
  if (!section) return;
  const assets = new Set([...legs.values()].flatMap((l) => [l.base, l.quote]));
  for (const [asset, v] of Object.entries(obj(obj(root[section])?.balances) ?? {})) {
    if (!SYMBOL_RE.test(asset) || assets.has(asset)) continue;
    add(
      [section, 'balances', asset],
      `${amount(v)} ${asset} would never be used: ${asset} is not an asset of any market (${[...assets].sort().join(', ')}): no strategy can trade it and the equity cannot value it${rialHint(asset)}`,
      v,
    );
  }
}

/** A check note: not a problem, something the file says that does not do what it seems to. */
export type ConfigNote = Pick<ConfigIssue, 'path' | 'message'> & { line?: number };

/**
 * The notes of a loaded config (`mizan check` prints them): a starting balance the written file
 * holds that no market of the run values (left out of the equity, as the run warns); a strategy
 * limit looser than the global one, which then binds.
 */
export function configNotes(raw: unknown, config: MizanConfig, split: (symbol: string) => { base: string; quote: string } | undefined): ConfigNote[] {
  const notes: ConfigNote[] = [];
  const traded = [...new Set(config.strategies.flatMap((s) => s.markets))];
  const symbols = config.mode === 'backtest' && config.backtest ? [...new Set([...traded, ...config.backtest.data.map((d) => d.symbol)])] : traded;
  const section = config.mode === 'paper' ? 'paper' : config.mode === 'backtest' ? 'backtest' : undefined;
  const written = section ? Object.keys(obj(obj(obj(raw)?.[section])?.balances) ?? {}) : [];
  if (written.length > 0 && symbols.every((s) => split(s) !== undefined)) {
    const sp = (s: string) => split(s)!;
    const legs = symbols.map(sp);
    const reference = config.reference ?? (legs.some((l) => l.quote === 'USDT') ? 'USDT' : legs[0]?.quote);
    if (reference !== undefined) {
      for (const asset of written) {
        if (routeOf({ reference, split: sp }, symbols, asset) !== undefined) continue;
        notes.push({
          path: `${section}.balances.${asset}`,
          message: `${asset} cannot be valued in ${reference} by any market of the ${config.mode === 'backtest' ? 'run' : 'bot'} (${symbols.join(', ')}): it is left out of the equity, the pnl and the protections`,
        });
      }
    }
  }
  const global = config.risk.limits;
  config.strategies.forEach((s, i) => {
    const own = s.risk;
    if (!own) return;
    const at = `strategies[${i}].risk`;
    const looser = <T extends number | Decimal>(key: string, mine: T | undefined, theirs: T | undefined, atLeast = false, dflt = '') => {
      if (mine === undefined || theirs === undefined) return;
      const cmp = typeof mine === 'number' ? Math.sign(mine - (theirs as number)) : mine.cmp(theirs as Decimal);
      if (atLeast ? cmp >= 0 : cmp <= 0) return;
      notes.push({
        path: `${at}.${key}`,
        message: `${mine.toString()} is ${atLeast ? 'below' : 'above'} risk.limits.${key} (${theirs.toString()}${dflt}): the global one binds (a strategy's limits only tighten the global ones)`,
      });
    };
    looser('maxOpenOrders', own.maxOpenOrders, global.maxOpenOrders);
    looser('maxOpenOrdersPerMarket', own.maxOpenOrdersPerMarket, global.maxOpenOrdersPerMarket);
    looser('maxPriceDeviationPct', own.maxPriceDeviationPct, global.maxPriceDeviationPct);
    const slippageWritten = obj(obj(obj(raw)?.risk)?.limits)?.maxSlippagePct !== undefined;
    looser('maxSlippagePct', own.maxSlippagePct, global.maxSlippagePct, false, slippageWritten ? '' : ', the default');
    looser('maxRiskCoef', own.maxRiskCoef, global.maxRiskCoef);
    looser('minCallDistancePct', own.minCallDistancePct, global.minCallDistancePct, true);
    const maps: [string, Record<string, Decimal> | undefined, Record<string, Decimal> | undefined][] = [
      ['maxPositionValue.market', own.maxPositionValue?.market, global.maxPositionValue?.market],
      ['maxPositionValue.asset', own.maxPositionValue?.asset, global.maxPositionValue?.asset],
      ['maxPositionValue.total', own.maxPositionValue?.total, global.maxPositionValue?.total],
      ['maxTotalLoan', own.maxTotalLoan, global.maxTotalLoan],
    ];
    for (const [key, mine, theirs] of maps) for (const [k, v] of Object.entries(mine ?? {})) looser(`${key}.${k}`, v, theirs?.[k]);
    // An order rate allowing at least as many orders in a window no longer than the global's never binds.
    const r = own.orderRate;
    const g = global.orderRate;
    if (r && g && r.limit >= g.limit && r.windowMs <= g.windowMs) {
      notes.push({
        path: `${at}.orderRate`,
        message: `${r.limit} per ${r.windowMs} ms allows at least what risk.limits.orderRate does (${g.limit} per ${g.windowMs} ms): the global one binds (a strategy's limits only tighten the global ones)`,
      });
    }
  });
  return notes;
}
