/**
 * `backtest.fees: account`: the account's own maker and taker rates per market, read from the
 * exchange (GET /v1/account/fee, an account endpoint: it needs `exchange.apiKey`) once before the
 * run, so a backtest charges what this account pays rather than the markets' listed rates.
 */
import type { FeeRates } from '../core/types/account.js';
import type { AccountFeeRates, MizanConfig } from '../config/schema.js';

/** Where the rates come from (the REST client's `getFees`). */
export interface AccountFeeSource {
  getFees(): Promise<FeeRates>;
}

/** The config with `backtest.accountFees` filled in when `backtest.fees` is `account`; else the config as it is. */
export async function resolveAccountFees(config: MizanConfig, source: () => AccountFeeSource): Promise<MizanConfig> {
  const bt = config.backtest;
  if (!bt || bt.fees !== 'account' || bt.accountFees) return config;
  if (!config.exchange.apiKey) {
    throw new Error("backtest.fees: account reads the account's rates from GET /v1/account/fee, which needs exchange.apiKey (e.g. apiKey: ${WALLEX_API_KEY})");
  }
  const rates = await source().getFees();
  const accountFees: AccountFeeRates = {};
  for (const [symbol, r] of Object.entries(rates.markets)) accountFees[symbol] = { maker: r.makerFeeRate, taker: r.takerFeeRate };
  const missing = bt.data.map((d) => d.symbol).filter((s) => !accountFees[s] && !bt.markets.some((m) => m.symbol === s));
  if (missing.length > 0)
    throw new Error(
      `backtest.fees: account: the account's fee rates list no ${missing.join(', ')} (GET /v1/account/fee); set backtest.fees to { maker, taker } instead`,
    );
  return { ...config, backtest: { ...bt, accountFees } };
}
