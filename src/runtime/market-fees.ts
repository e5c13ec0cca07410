/**
 * The fee rates a bot trades with, per market: the exchange's (the catalog: the account's, or 0 on
 * a zero-fee market), in paper `paper.fees` where set. A traded market without a known fee stops the
 * start with a ConfigError naming it: never a guessed rate.
 */
import type { Decimal } from '../core/decimal.js';
import { ConfigError } from '../config/issues.js';
import type { MizanConfig } from '../config/schema.js';
import type { MarketCatalog } from '../market/market-catalog.js';
import { paperFees } from './paper.js';

export type FeeRates = { makerFee: Decimal; takerFee: Decimal };

/** A market's fee rates when the exchange gave them (live). */
function knownFees(m: { makerFee?: Decimal; takerFee?: Decimal }): FeeRates | undefined {
  return m.makerFee && m.takerFee ? { makerFee: m.makerFee, takerFee: m.takerFee } : undefined;
}

/** The fee rates of each catalog market (undefined when not known); throws when a traded one has none. */
export function marketFees(config: MizanConfig, catalog: MarketCatalog, traded: readonly string[]): (symbol: string) => FeeRates | undefined {
  const feesOf = (s: string) => (config.mode === 'paper' ? paperFees(catalog.get(s), config.paper.fees) : knownFees(catalog.get(s)));
  const noFee = traded.filter((s) => !feesOf(s));
  if (noFee.length) {
    throw new ConfigError(
      noFee.map((s) => ({
        path: config.mode === 'paper' ? 'paper.fees' : 'exchange.apiKey',
        message: `the fee rate of ${s} is not known: the exchange's fee list has no rate for it${config.mode === 'paper' ? ' (set paper.fees: { maker, taker })' : " (the account's fee call failed or does not list it)"}`,
        value: s,
      })),
    );
  }
  return feesOf;
}
