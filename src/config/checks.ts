/**
 * Cross-field checks. They read the raw (env-substituted) data defensively, so they run even when
 * some fields failed the schema, and every problem is reported in one go.
 */
import type { ConfigIssue } from './issues.js';
import { describeValue, didYouMean, formatPath } from './issues.js';
import { isEnvReference } from './env.js';
import { SYMBOL_RE } from './fields.js';
import { clientIdPrefix } from '../execution/client-id.js';
import { checkNotifications } from './checks-notify.js';
import { checkAccounts } from './accounts.js';
import { defaultMarketSpecs } from '../sim/markets.js';
import { checkBalanceAssets, checkLimitKeys } from './checks-limits.js';

/** Markets of the embedded simulator. */
/** The form of a stream key (what the stream client accepts, see validateStreamKey). */
const STREAM_KEY_RE = /^[\x21-\x3f\x41-\x7e]{6,87}$/;

export const SIMULATOR_MARKETS: readonly string[] = ['BTCUSDT', 'ETHUSDT', 'USDTTMN', 'BTCTMN', 'ETHTMN'];

export interface CheckOptions {
  /** Market symbols that exist. Unset: the simulator's markets (and backtest.markets) in paper and backtest; no check in live. */
  knownMarkets?: readonly string[];
  allowLiteralApiKey?: boolean;
  /** Variables the trading-credit accounts' keys are read from (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export function crossCheck(raw: unknown, original: unknown, opts: CheckOptions): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const add = (path: (string | number)[], message: string, value?: unknown) =>
    issues.push(value === undefined ? { path: formatPath(path), message } : { path: formatPath(path), message, value });
  const root = obj(raw) ?? {};
  const mode = str(root.mode);
  const exchange = obj(root.exchange) ?? {};
  const backtest = obj(root.backtest);
  const strategies = arr(root.strategies);

  // API key: an environment reference unless explicitly allowed; its value is never printed.
  const writtenKey = obj(obj(original)?.exchange)?.apiKey;
  const allowLiteral = opts.allowLiteralApiKey === true || exchange.allowLiteralApiKey === true;
  if (typeof writtenKey === 'string' && !isEnvReference(writtenKey) && !allowLiteral) {
    add(
      ['exchange', 'apiKey'],
      'is written literally (value hidden); write apiKey: ${WALLEX_API_KEY} and set the variable, or set exchange.allowLiteralApiKey: true',
    );
  }

  // Stream key: a secret like the API key (an environment reference unless explicitly allowed).
  const writtenStreamKey = obj(obj(obj(original)?.exchange)?.stream)?.privateKey;
  const stream = obj(exchange.stream) ?? {};
  if (typeof writtenStreamKey === 'string' && !isEnvReference(writtenStreamKey) && stream.allowLiteralPrivateKey !== true) {
    add(
      ['exchange', 'stream', 'privateKey'],
      'is written literally (value hidden); write privateKey: ${WALLEX_STREAM_KEY} and set the variable, or set exchange.stream.allowLiteralPrivateKey: true',
    );
  }
  const streamKey = str(stream.privateKey);
  if (streamKey !== undefined && streamKey.length > 0 && !STREAM_KEY_RE.test(streamKey)) {
    add(
      ['exchange', 'stream', 'privateKey'],
      `is not a stream key (value hidden, ${streamKey.length} characters): 6 to 87 printable ASCII characters without "@" or spaces`,
    );
  }

  // API server tokens: secrets, so environment references only; the two must differ.
  const server = obj(root.server) ?? {};
  const writtenServer = obj(obj(original)?.server) ?? {};
  for (const k of ['token', 'controlToken'] as const) {
    const w = writtenServer[k];
    if (typeof w === 'string' && !isEnvReference(w))
      add(
        ['server', k],
        `is written literally (value hidden); write ${k}: \${${k === 'token' ? 'MIZAN_SERVER_TOKEN' : 'MIZAN_SERVER_CONTROL_TOKEN'}} and set the variable`,
      );
  }
  if (typeof server.token === 'string' && server.token !== '' && server.token === server.controlToken)
    add(['server', 'controlToken'], 'is the same as server.token (value hidden): the read-only and the control token must differ');

  if (mode === 'live') {
    if (exchange.simulator === true)
      add(['exchange', 'simulator'], 'true is not allowed in live mode (live orders go to the exchange: set simulator: false)', true);
    if (writtenKey === undefined) add(['exchange', 'apiKey'], 'is required in live mode (write apiKey: ${WALLEX_API_KEY})');
  }
  if (mode === 'backtest' && root.server !== undefined) add(['server'], 'is for a running bot (mizan run); a backtest serves no API: remove it');
  checkNotifications(root, original, add);
  checkAccounts(root, opts.env ?? process.env, add);
  if (mode === 'backtest' && backtest === undefined) add(['backtest'], 'is required in backtest mode (data, from, to)');

  // Strategy names and the client-id prefixes derived from them are unique.
  const names = new Map<string, number>();
  const prefixes = new Map<string, number>();
  strategies.forEach((s, i) => {
    const name = str(obj(s)?.name);
    if (name === undefined) return;
    const first = names.get(name);
    if (first !== undefined) add(['strategies', i, 'name'], `${describeValue(name)} is already the name of strategies[${first}] (names must be unique)`, name);
    else {
      names.set(name, i);
      const prefix = clientIdPrefix(name);
      const other = prefixes.get(prefix);
      if (other !== undefined)
        add(
          ['strategies', i, 'name'],
          `${describeValue(name)} gives the same client-id prefix ${prefix} as strategies[${other}] (client ids keep the name's letters and digits, at most 16)`,
          name,
        );
      else prefixes.set(prefix, i);
    }
  });

  // Markets.
  const declared = arr(backtest?.markets)
    .map((m) => str(obj(m)?.symbol))
    .filter((s): s is string => s !== undefined);
  const checkMarkets = opts.knownMarkets !== undefined || (mode !== 'live' && exchange.simulator !== false) || mode === 'backtest';
  const known = [...(opts.knownMarkets ?? SIMULATOR_MARKETS), ...declared];
  const checkKnown = (path: (string | number)[], sym: string) => {
    if (checkMarkets && SYMBOL_RE.test(sym) && !known.includes(sym)) {
      add(
        path,
        `${describeValue(sym)} is not a known market${didYouMean(sym, known)} (known: ${known.join(', ')}; declare others under backtest.markets)`,
        sym,
      );
    }
  };
  const dataSymbols = new Set<string>();
  // A recording (kind: book) without `markets` replays the strategies' markets: the run checks them against its directories.
  let recordingOfAny = false;
  let candleEntries = 0;
  let bookEntries = 0;
  arr(backtest?.data).forEach((e, i) => {
    if (obj(e)?.kind === 'book') {
      bookEntries++;
      const markets = arr(obj(e)?.markets);
      if (markets.length === 0) recordingOfAny = true;
      markets.forEach((m, j) => {
        const sym = str(m);
        if (sym === undefined) return;
        dataSymbols.add(sym);
        checkKnown(['backtest', 'data', i, 'markets', j], sym);
      });
      return;
    }
    const kind = obj(e)?.kind;
    if (kind === undefined || kind === 'candles') candleEntries++;
    const sym = str(obj(e)?.symbol);
    if (sym === undefined) return;
    if (dataSymbols.has(sym)) add(['backtest', 'data', i, 'symbol'], `${describeValue(sym)} is listed twice`, sym);
    dataSymbols.add(sym);
    checkKnown(['backtest', 'data', i, 'symbol'], sym);
  });
  if (candleEntries > 0 && bookEntries > 0) {
    add(
      ['backtest', 'data'],
      `a backtest replays either candles or recordings (kind: book), not both: ${candleEntries} candle and ${bookEntries} book entries`,
    );
  }
  const limitMarkets = (limits: unknown, path: (string | number)[]) => {
    for (const sym of Object.keys(obj(obj(obj(limits)?.maxPositionValue)?.market) ?? {})) checkKnown([...path, 'maxPositionValue', 'market', sym], sym);
  };
  limitMarkets(obj(root.risk)?.limits, ['risk', 'limits']);
  strategies.forEach((s, i) => {
    const seen = new Set<string>();
    arr(obj(s)?.markets).forEach((m, j) => {
      const sym = str(m);
      if (sym === undefined) return;
      const path = ['strategies', i, 'markets', j];
      if (seen.has(sym)) add(path, `${describeValue(sym)} is listed twice`, sym);
      seen.add(sym);
      checkKnown(path, sym);
      if (mode === 'backtest' && backtest !== undefined && !dataSymbols.has(sym) && !recordingOfAny) {
        add(path, `${describeValue(sym)} has no backtest data (add { symbol: ${sym}, file: <path> } or fetch: true under backtest.data)`, sym);
      }
    });
    limitMarkets(obj(s)?.risk, ['strategies', i, 'risk']);
  });

  arr(backtest?.markets).forEach((m, i) => {
    const o = obj(m);
    const sym = str(o?.symbol);
    const base = str(o?.base);
    const quote = str(o?.quote);
    if (sym !== undefined && base !== undefined && quote !== undefined && sym !== base + quote) {
      add(['backtest', 'markets', i, 'symbol'], `${describeValue(sym)} must be base + quote (${base}${quote})`, sym);
    }
  });

  // Capital: the risk engine caps what a strategy spends of an asset (the quote of a buy or a margin
  // open, the base of a sell), so an asset that is neither leg of any of its markets never applies.
  // The legs are those of the simulator's markets and backtest.markets; a market known to neither (live,
  // the exchange's catalog) is base + quote, so the asset must begin or end its symbol.
  const legs = new Map<string, { base: string; quote: string }>(defaultMarketSpecs().map((m) => [m.symbol, { base: m.baseAsset, quote: m.quoteAsset }]));
  arr(backtest?.markets).forEach((m) => {
    const o = obj(m);
    const sym = str(o?.symbol);
    const base = str(o?.base);
    const quote = str(o?.quote);
    if (sym !== undefined && base !== undefined && quote !== undefined) legs.set(sym, { base, quote });
  });
  strategies.forEach((s, i) => {
    const markets = arr(obj(s)?.markets).filter((m): m is string => typeof m === 'string' && SYMBOL_RE.test(m));
    if (markets.length === 0) return;
    // A capital caps what buys and margin opens spend: the quote asset of a market.
    const spends = (asset: string, sym: string) => {
      const l = legs.get(sym);
      return l ? l.quote === asset : sym !== asset && sym.endsWith(asset);
    };
    for (const [asset, amount] of Object.entries(obj(obj(s)?.capital) ?? {})) {
      if (!SYMBOL_RE.test(asset) || markets.some((m) => spends(asset, m))) continue;
      const which = markets.map((m) => (legs.has(m) ? `${m}: ${legs.get(m)!.base}/${legs.get(m)!.quote}` : m)).join(', ');
      add(
        ['strategies', i, 'capital', asset],
        `${describeValue(amount).replace(/^"(.*)"$/, '$1')} ${asset} would never apply: ${asset} is not the quote asset of the strategy's markets (${which}), and a capital caps what the strategy's buys and margin opens spend, in their market's quote asset`,
        amount,
      );
    }
  });

  // Limits keyed by a market or an asset no market of their scope has; balances in an asset of no market.
  checkLimitKeys(root, legs, (sym) => !checkMarkets || known.includes(sym), add);
  if (checkMarkets) checkBalanceAssets(root, legs, add);

  // Margin monitor: close nearer the call price than top-up, top-up nearer than warn.
  const mm = obj(obj(root.risk)?.marginMonitor);
  const warn = num(mm?.warnAtPct);
  const topUp = num(mm?.topUpAtPct);
  const close = num(mm?.closeAtPct);
  if (topUp !== undefined && warn !== undefined && topUp >= warn)
    add(['risk', 'marginMonitor', 'topUpAtPct'], `${topUp} must be less than warnAtPct (${warn})`, topUp);
  if (close !== undefined && topUp !== undefined && close >= topUp)
    add(['risk', 'marginMonitor', 'closeAtPct'], `${close} must be less than topUpAtPct (${topUp})`, close);
  else if (close !== undefined && warn !== undefined && close >= warn)
    add(['risk', 'marginMonitor', 'closeAtPct'], `${close} must be less than warnAtPct (${warn})`, close);
  return issues;
}
