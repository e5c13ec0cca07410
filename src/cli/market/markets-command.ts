/**
 * `mizan markets`: every market of the exchange with its limits (quantity step, price tick,
 * min / max quantity, min notional) and maker / taker fees, through MarketCatalog. Fees are the
 * account's and need an API key: `WALLEX_API_KEY` from the environment when set (sent only in the
 * request header, never printed). Without a key, fees show `-` unless the market is zero-fee. When
 * the fee read fails (a refused key, a 403, a server error), the table is still printed with `-`
 * fees, a warning on stderr says why (status and the exchange's message, the key redacted) and the
 * closing note says the fees were not read, never that the exchange gave none. When the list of
 * active markets cannot be read, the trading column shows `?` (not every market as tradable) and a
 * warning says why.
 */
import type { Decimal } from '../../core/decimal.js';
import { WallexRestClient } from '../../exchange/rest/client.js';
import { makeRedactor } from '../../exchange/rest/errors.js';
import { MarketCatalog, type Market } from '../../market/market-catalog.js';
import type { MarketInfoSource } from '../../market/ports.js';
import type { ResolvedDeps } from './deps.js';

export interface MarketsCommandOptions {
  url: string;
  /** Only markets whose symbol contains this (case-insensitive). */
  filter?: string;
}

const pct = (fee: Decimal | undefined): string => (fee === undefined ? '-' : `${fee.mul(100).toFixed()}%`);

function flags(m: Market): string {
  const f = [m.isSpot ? 'spot' : '', m.isOtc ? 'otc' : '', m.isMargin ? 'margin' : '', m.isZeroFee ? 'zero-fee' : ''].filter(Boolean);
  return f.length ? f.join(',') : 'inactive';
}

/** `known`: the active-markets list was read (else what is tradable is not known: "?"). */
function renderMarketsTable(markets: readonly Market[], known: boolean): string[] {
  const head = ['symbol', 'base', 'quote', 'qty step', 'price tick', 'min qty', 'max qty', 'min notional', 'maker', 'taker', 'trading'];
  const rows = markets.map((m) => [
    m.symbol,
    m.baseAsset,
    m.quoteAsset,
    m.qtyStep.toFixed(),
    m.priceTick.toFixed(),
    m.minQty.toFixed(),
    m.maxQty ? m.maxQty.toFixed() : '-',
    m.minNotional.toFixed(),
    pct(m.makerFee),
    pct(m.takerFee),
    known ? flags(m) : '?',
  ]);
  const numeric = new Set([3, 4, 5, 6, 7, 8, 9]);
  const w = head.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  const line = (r: string[]) =>
    r
      .map((v, c) => (numeric.has(c) ? v.padStart(w[c]!) : v.padEnd(w[c]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

export async function runMarkets(o: MarketsCommandOptions, d: ResolvedDeps): Promise<void> {
  const apiKey = d.env.WALLEX_API_KEY?.trim() || undefined;
  const rest = new WallexRestClient({ baseUrl: o.url, ...(apiKey ? { apiKey } : {}), logger: d.logger.child({ component: 'rest' }) });
  // The catalog treats the fee and active-market reads as optional (it keeps the previous answer);
  // here there is none, so their failures are kept to be said.
  let feeError: unknown;
  let activeError: unknown;
  const source: MarketInfoSource = {
    getMarkets: () => rest.getMarkets(),
    getActiveMarkets: () =>
      rest.getActiveMarkets().catch((err: unknown) => {
        activeError = err;
        throw err;
      }),
    ...(apiKey
      ? {
          getFees: () =>
            rest.getFees().catch((err: unknown) => {
              feeError = err;
              throw err;
            }),
        }
      : {}),
  };
  const catalog = new MarketCatalog({ source, logger: d.logger, options: { refreshMs: 0 } });
  try {
    await catalog.start();
  } finally {
    catalog.stop();
  }
  const needle = o.filter?.toUpperCase();
  const markets = catalog
    .list()
    .filter((m) => !needle || m.symbol.includes(needle))
    .sort((a, b) => a.symbol.localeCompare(b.symbol));
  d.stdout.write(renderMarketsTable(markets, activeError === undefined).join('\n') + '\n');
  if (activeError !== undefined) {
    const why = makeRedactor(apiKey)(activeError instanceof Error ? activeError.message : String(activeError));
    d.stderr.write(`mizan: warning: the list of active markets could not be read, the trading column shows "?": ${why}\n`);
  }
  if (feeError !== undefined) {
    const why = makeRedactor(apiKey)(feeError instanceof Error ? feeError.message : String(feeError));
    d.stderr.write(`mizan: warning: the account's fee rates could not be read, maker/taker show "-": ${why}\n`);
  }
  const feeNote = apiKey
    ? feeError !== undefined
      ? 'fees: not read (see the warning above; "-" = unknown)'
      : markets.some((m) => m.feeSource === 'unknown')
        ? 'fees: the account\'s rates (WALLEX_API_KEY); "-" where the exchange gave none'
        : "fees: the account's rates (WALLEX_API_KEY)"
    : 'fees: set WALLEX_API_KEY to see your account\'s maker/taker rates ("-" = unknown)';
  d.stderr.write(`${markets.length} market${markets.length === 1 ? '' : 's'} from ${o.url}; ${feeNote}\n`);
}
