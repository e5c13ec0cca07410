/**
 * One call that builds the margin, instant, trading-credit, withdrawal, account-extras and crypto
 * history desks on a SimulatedExchange and returns their routes: `routes` for the wire server's
 * `routes` option and `adminRoutes` (`POST /__sim/prop/open`, `/__sim/crypto-deposits`,
 * `/__sim/crypto-withdrawals`) for its admin router. Every last-price change of the
 * simulator reaches `margin.onPrice` (interest, triggers) and `prop.check` (expiry, liquidity limit)
 * at the simulator clock's time.
 */
import type { Decimal } from '../../core/decimal.js';
import type { Logger } from '../../core/logger.js';
import type { SimulatedExchange } from '../exchange.js';
import { AccountExtras } from '../account-extras.js';
import { CryptoHistory } from '../crypto-history.js';
import { ASSET_FA_NAMES } from '../markets.js';
import { InstantDesk } from '../instant.js';
import { PropDesk, type PropPackageConfig } from '../prop.js';
import { WithdrawalDesk } from '../withdrawal.js';
import type { Route } from '../wire/route.js';
import { instantRoutes } from '../wire/routes/instant.js';
import { marginRoutes } from '../wire/routes/margin.js';
import { marginExtraRoutes } from '../wire/routes/margin-extra.js';
import { profileRoutes } from '../wire/routes/profile.js';
import { propAdminRoutes, propRoutes } from '../wire/routes/prop.js';
import { propLifecycleAdminRoutes, propLifecycleRoutes } from '../wire/routes/prop-lifecycle.js';
import { PropLifecycle } from '../prop-lifecycle.js';
import { withdrawalRoutes } from '../wire/routes/withdrawal.js';
import { walletHistoryAdminRoutes, walletHistoryRoutes } from '../wire/routes/wallet-history.js';
import type { MarginMarkets } from './config.js';
import { MarginDesk } from './desk.js';
import type { MarketSpecs } from './ports.js';

export interface SimDeskOptions {
  marginMarkets?: MarginMarkets;
  otcSpread?: Decimal;
  otcTtlMs?: number;
  propPackages?: PropPackageConfig[];
  withdrawalFee?: (amount: Decimal) => Decimal;
  /**
   * Mixed into the instant desk's order ids (InstantDeskDeps.idNonce): paper and `mizan sim` pass
   * `randomUUID()` so no two runs make the same `OTC-…` id; a backtest passes none and keeps ids
   * that are the same on every run (result.json byte-identical).
   */
  idNonce?: string;
  /** The margin desk's first position id (MarginDeskDeps.firstId). */
  firstMarginId?: number;
  /** The instant desk's order total bounds of a market (InstantDeskDeps.notionalBounds); undefined: its defaults. */
  instantBounds?: (symbol: string) => { min: Decimal; max: Decimal } | undefined;
  logger?: Logger;
}

export interface SimDesks {
  margin: MarginDesk;
  instant: InstantDesk;
  prop: PropDesk;
  withdrawals: WithdrawalDesk;
  extras: AccountExtras;
  /** Crypto deposits and withdrawals (read-only history; recorded through the admin routes). */
  cryptoHistory: CryptoHistory;
  routes: Route[];
  adminRoutes: Route[];
  /** `sub-account-client-id` -> the sub-account's ledger id (for the wire server's spot and account routes). */
  resolveSubAccount(accountId: string, subClientId: string): string;
  /** Stops forwarding the simulator's prices. */
  detach(): void;
}

/** The simulator's markets as the desks' MarketSpecs (fees: the market's defaults). */
function specsOf(sim: SimulatedExchange): MarketSpecs {
  return (symbol) => {
    const m = sim.market(symbol);
    return (
      m && {
        base: m.baseAsset,
        quote: m.quoteAsset,
        pricePrecision: m.tickSize,
        quantityPrecision: m.stepSize,
        makerFee: m.makerFee,
        takerFee: m.takerFee,
      }
    );
  };
}

export function createSimDesks(sim: SimulatedExchange, opts: SimDeskOptions = {}): SimDesks {
  const base = { ledger: sim.ledger, prices: sim, clock: sim.clock, ...(opts.logger ? { logger: opts.logger } : {}) };
  const specs = specsOf(sim);
  const symbols = () => sim.markets().map((m) => m.symbol);
  // The account's own taker rate (the simulator's per-account fees, e.g. a backtest's `fees`) for
  // margin opening and closing fees and instant orders, as for its spot orders.
  const accountTakerFee = (account: string, market: string) => (sim.market(market) ? sim.feeRates(account, market).takerFee : undefined);
  const margin = new MarginDesk({
    ...base,
    specs,
    symbols,
    accountTakerFee,
    ...(opts.marginMarkets ? { markets: opts.marginMarkets } : {}),
    ...(opts.firstMarginId !== undefined ? { firstId: opts.firstMarginId } : {}),
  });
  const instant = new InstantDesk({
    ...base,
    specs,
    symbols,
    feeRate: (symbol, spec, account) => accountTakerFee(account, symbol) ?? spec.takerFee,
    names: (symbol) => {
      const m = sim.market(symbol);
      return m && { faName: m.faName, enName: `${m.baseAsset} - ${m.quoteAsset}` };
    },
    change24h: (symbol) => sim.marketSnapshot(symbol).change24h,
    ...(opts.otcSpread ? { spread: opts.otcSpread } : {}),
    ...(opts.otcTtlMs ? { ttlMs: opts.otcTtlMs } : {}),
    ...(opts.idNonce !== undefined ? { idNonce: opts.idNonce } : {}),
    ...(opts.instantBounds ? { notionalBounds: opts.instantBounds } : {}),
  });
  const prop = new PropDesk({ ...base, ...(opts.propPackages ? { packages: opts.propPackages } : {}) });
  const extras = new AccountExtras({ clock: sim.clock });
  const cryptoHistory = new CryptoHistory({ ledger: sim.ledger, clock: sim.clock, names: (a) => ASSET_FA_NAMES[a] });
  const withdrawals = new WithdrawalDesk({ ledger: sim.ledger, extras, clock: sim.clock, ...(opts.withdrawalFee ? { fee: opts.withdrawalFee } : {}) });
  // A sub-account's ledger id becomes an account of the simulator on first use (reached through the
  // key issued for it, which authenticates as its owner, and the sub-account-client-id header).
  const resolveSubAccount = (a: string, c: string): string => {
    const id = prop.resolveSubAccount(a, c);
    if (!sim.accounts.get(id)) sim.createAccount({ id });
    return id;
  };
  // Every trading-credit account gets its own API key (the exchange's rule); the owner's keys do not
  // trade for it (wire/key-scope.ts).
  let keySeq = 0;
  const issuePropKey = (owner: string, clientId: string, key?: string): string =>
    sim.createApiKey(owner, { name: `prop:${clientId}:${++keySeq}`, permissions: ['read', 'trade'], subAccount: clientId, ...(key ? { key } : {}) }).key;
  const onPrice = (p: { symbol: string; price: Decimal }) => {
    const now = sim.clock.now();
    margin.onPrice(p.symbol, p.price, now);
    prop.check(now);
  };
  sim.on('price', onPrice);
  const propLifecycle = new PropLifecycle({ desk: prop, ledger: sim.ledger, clock: sim.clock, issueKey: (owner, clientId) => issuePropKey(owner, clientId) });
  return {
    margin,
    instant,
    prop,
    withdrawals,
    extras,
    cryptoHistory,
    resolveSubAccount,
    routes: [
      ...marginRoutes(margin, { resolveSubAccount }),
      ...marginExtraRoutes(margin, resolveSubAccount),
      ...instantRoutes(instant, { resolveSubAccount }),
      ...propRoutes(prop),
      ...propLifecycleRoutes(propLifecycle),
      ...withdrawalRoutes(withdrawals),
      ...profileRoutes(extras),
      ...walletHistoryRoutes(cryptoHistory, resolveSubAccount),
    ],
    adminRoutes: [
      ...propAdminRoutes(prop, issuePropKey),
      ...propLifecycleAdminRoutes(propLifecycle),
      ...walletHistoryAdminRoutes(cryptoHistory, (id) => sim.accounts.get(id) !== undefined),
    ],
    detach: () => void sim.off('price', onPrice),
  };
}
