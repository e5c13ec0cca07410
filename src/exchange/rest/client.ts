/**
 * WallexRestClient: one typed method per REST endpoint the framework uses — the 27 of the spec's
 * section 4 plus open orders, account trades, the instant-order price quote and markets, and the
 * crypto deposit and withdrawal history.
 *
 * - Parameters are checked before sending (ParameterError names the parameter).
 * - Responses are parsed into the domain types (Decimal amounts), failures mapped to the typed
 *   errors of src/core/errors.ts; the API key never appears in a log line or an error.
 * - Reads (and the idempotent cancel) are retried with backoff and jitter; writes never are: a lost
 *   answer gives OrderOutcomeUnknownError carrying the client id to look up.
 * - Order calls (spot create and cancel, instant order, margin open) share a queueing limiter,
 *   20 per 10 seconds by default.
 */
import { SystemClock, type Clock } from '../../core/clock.js';
import type { Decimal } from '../../core/decimal.js';
import type { Logger } from '../../core/logger.js';
import type {
  AccountTrade,
  ActiveMarket,
  Balances,
  BankCard,
  Candle,
  ClosedPropAccount,
  CurrencyStats,
  DepthSnapshot,
  FeeRates,
  FiatWithdrawal,
  Iban,
  InstantOrder,
  InstantQuote,
  LoanBounds,
  MarginDryRun,
  MarginLevel,
  MarginMarket,
  MarginOrder,
  MarginPnl,
  MarginProfit,
  MarginRatio,
  MarginPosition,
  MarginPositionFilter,
  MarginRequest,
  MarketInfo,
  NewInstantOrder,
  NewSpotOrder,
  Paged,
  Profile,
  PropHistoryEntry,
  PropPackage,
  PropPackageDetail,
  PublicTrade,
  Side,
  SpotOrder,
  WalletAddress,
} from '../../core/types/index.js';
import { ParameterError } from '../../core/errors.js';
import * as account from './account.js';
import { makeRedactor, scrubError, type Redact } from './errors.js';
import { HttpCore } from './http.js';
import * as instant from './instant.js';
import type { OrderRateLimit } from './limiter.js';
import * as margin from './margin.js';
import * as marginExtra from './margin-extra.js';
import * as market from './market.js';
import * as prop from './prop.js';
import * as propLife from './prop-lifecycle.js';
import type { RetryPolicy } from './retry.js';
import * as spot from './spot.js';
import * as orderHistory from './order-history.js';
import { headerId } from './validate.js';
import type { OtcMarket } from '../parse/otc.js';
import type { CryptoDeposit, CryptoWithdrawal } from '../parse/wallet-history.js';
import type { ActivePropAccount, PropAvailabilityCheck, SubAccount, SubAccountTransfer, WalletConnection } from '../parse/prop-lifecycle.js';

export interface WallexRestClientOptions {
  /** e.g. `https://api.wallex.ir`, or the simulator's `http://127.0.0.1:<port>`. */
  baseUrl: string;
  /** Needed for every private call; sent only in the `x-api-key` header. */
  apiKey?: string;
  /** Per attempt. Default 10 000 ms. */
  timeoutMs?: number;
  /** Retries of reads and cancels. Default 3. */
  retries?: number;
  /** Backoff tuning: base and cap of the jittered delay, longest Retry-After waited for, rate-limit window. */
  retryPolicy?: Partial<Omit<RetryPolicy, 'retries'>>;
  /** Order calls per window. Default 20 per 10 000 ms. */
  orderRateLimit?: OrderRateLimit;
  /** Withdrawals are refused unless this is true. */
  allowWithdrawals?: boolean;
  logger?: Logger;
  /** Trading-credit sub-account: sent as `sub-account-client-id` on every call. */
  subAccountId?: string;
  clock?: Clock;
  /** Waits between retries (tests pass a fast one). */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). */
  random?: () => number;
  /** How order calls are sent: 'node-http' (default, a kept-alive connection) or 'ky'. See transport.ts. */
  orderTransport?: 'node-http' | 'ky';
}

export class WallexRestClient {
  private readonly http: HttpCore;
  /** The core without the sub-account header, shared by every view made with withSubAccount. */
  private readonly rootHttp: HttpCore;
  private readonly clock: Clock;
  private readonly redact: Redact;
  readonly subAccountId: string | undefined;

  /**
   * `shared` is internal: the HTTP core of the client this one is a sub-account view of;
   * `subAccountKey` the trading-credit account's own key that view sends instead of `apiKey`.
   */
  constructor(
    private readonly options: WallexRestClientOptions,
    shared?: HttpCore,
    subAccountKey?: string,
  ) {
    this.clock = options.clock ?? new SystemClock();
    this.subAccountId = options.subAccountId === undefined ? undefined : headerId(options.subAccountId, 'subAccountId');
    this.rootHttp = shared ?? new HttpCore({ ...options, clock: this.clock });
    const redactMain = makeRedactor(options.apiKey);
    const redactSub = makeRedactor(subAccountKey);
    this.redact = (t) => redactSub(redactMain(t));
    const sub: Record<string, string> = this.subAccountId === undefined ? {} : { 'sub-account-client-id': this.subAccountId };
    this.http =
      subAccountKey !== undefined
        ? this.rootHttp.withApiKey(subAccountKey, sub)
        : this.subAccountId === undefined
          ? this.rootHttp
          : this.rootHttp.withHeaders(sub);
  }

  /** Last line of defence: no error leaves the client with the API key in it. */
  private guard<T>(p: Promise<T>): Promise<T> {
    return p.catch((err: unknown) => {
      throw scrubError(err, this.redact);
    });
  }

  /** Close the kept-alive connections (idle ones never hold the process; this frees them at once). */
  close(): void {
    this.rootHttp.close();
  }

  /**
   * A client that sends `sub-account-client-id: id` on every call, with `apiKey`: the trading-credit
   * account's own key (the exchange refuses the main key for a trading-credit account's orders).
   * Without `apiKey` the main key is sent: enough for the calls that manage the account from the
   * main one (closing it, connecting the wallet). It shares this client's connections, limiter and
   * rate-limit state.
   */
  withSubAccount(id: string, apiKey?: string): WallexRestClient {
    if (apiKey !== undefined && apiKey.length === 0)
      throw new ParameterError('apiKey', '(empty)', "the trading-credit account's API key, or leave it out to send the main key");
    return new WallexRestClient({ ...this.options, subAccountId: id }, this.rootHttp, apiKey);
  }

  // ---------------------------------------------------------------- public market data (4.1)
  getMarkets(): Promise<MarketInfo[]> {
    return this.guard(market.getMarkets(this.http));
  }
  getCurrencyStats(): Promise<CurrencyStats[]> {
    return this.guard(market.getCurrencyStats(this.http));
  }
  getDepth(symbol: string): Promise<DepthSnapshot> {
    return this.guard(market.getDepth(this.http, symbol));
  }
  getAllDepth(): Promise<Record<string, DepthSnapshot>> {
    return this.guard(market.getAllDepth(this.http));
  }
  /** Latest trades of `symbol`, or of every market when it is left out. */
  getTrades(symbol?: string): Promise<PublicTrade[]> {
    return this.guard(market.getTrades(this.http, symbol));
  }
  getCandles(q: market.CandleQuery): Promise<Candle[]> {
    return this.guard(market.getCandles(this.http, q));
  }
  getActiveMarkets(): Promise<ActiveMarket[]> {
    return this.guard(market.getActiveMarkets(this.http));
  }

  // ------------------------------------------------------------------------- account (4.2)
  getProfile(): Promise<Profile> {
    return this.guard(account.getProfile(this.http));
  }
  getFees(): Promise<FeeRates> {
    return this.guard(account.getFees(this.http));
  }
  getBankCards(): Promise<BankCard[]> {
    return this.guard(account.getBankCards(this.http));
  }
  getIbans(): Promise<Paged<Iban>> {
    return this.guard(account.getIbans(this.http));
  }
  getBalances(): Promise<Balances> {
    return this.guard(account.getBalances(this.http));
  }
  getWalletAddress(coin: string, network: string): Promise<WalletAddress> {
    return this.guard(account.getWalletAddress(this.http, coin, network));
  }
  /** Crypto deposits of the account, newest first (read only). */
  getCryptoDeposits(q?: account.HistoryPage): Promise<Paged<CryptoDeposit>> {
    return this.guard(account.getCryptoDeposits(this.http, q));
  }
  /** Crypto withdrawals of the account (read only; mizan does not create them). */
  getCryptoWithdrawals(q?: account.HistoryPage): Promise<Paged<CryptoWithdrawal>> {
    return this.guard(account.getCryptoWithdrawals(this.http, q));
  }
  requestWithdrawal(req: account.WithdrawalRequest): Promise<FiatWithdrawal> {
    return this.guard(account.requestWithdrawal(this.http, this.options.allowWithdrawals === true, req));
  }

  // --------------------------------------------------------------------- spot orders (4.3+)
  createOrder(o: NewSpotOrder): Promise<SpotOrder> {
    return this.guard(spot.createOrder(this.http, o));
  }
  getOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.guard(spot.getOrder(this.http, clientOrderId));
  }
  cancelOrder(clientOrderId: string): Promise<SpotOrder> {
    return this.guard(spot.cancelOrder(this.http, clientOrderId));
  }
  getOpenOrders(q?: spot.OpenOrdersQuery): Promise<Paged<SpotOrder>> {
    return this.guard(spot.getOpenOrders(this.http, q));
  }
  getAccountTrades(q?: spot.AccountTradesQuery): Promise<Paged<AccountTrade>> {
    return this.guard(spot.getAccountTrades(this.http, q));
  }
  /** Every order of the account, open and finished, newest first (`GET /v1/account/orders`). */
  getOrderHistory(q?: orderHistory.OrderHistoryQuery): Promise<Paged<SpotOrder>> {
    return this.guard(orderHistory.getOrderHistory(this.http, q));
  }

  // ------------------------------------------------------------------ instant orders (4.4+)
  createInstantOrder(o: NewInstantOrder): Promise<InstantOrder> {
    return this.guard(instant.createInstantOrder(this.http, o));
  }
  /** The instant-order markets (public). */
  getOtcMarkets(): Promise<OtcMarket[]> {
    return this.guard(instant.getOtcMarkets(this.http));
  }
  getInstantQuote(symbol: string, side: Side): Promise<InstantQuote> {
    return this.guard(instant.getInstantQuote(this.http, this.clock, symbol, side));
  }

  // -------------------------------------------------------------------------- margin (4.5)
  marginDryRun(r: MarginRequest): Promise<MarginDryRun> {
    return this.guard(margin.marginDryRun(this.http, r));
  }
  marginLoan(q: margin.LoanQuery): Promise<LoanBounds> {
    return this.guard(margin.marginLoan(this.http, q));
  }
  getMarginPositions(f?: MarginPositionFilter): Promise<MarginPosition[]> {
    return this.guard(margin.getMarginPositions(this.http, f));
  }
  openMarginPosition(r: MarginRequest): Promise<MarginPosition> {
    return this.guard(margin.openMarginPosition(this.http, r));
  }
  addMarginCollateral(id: number, change: Decimal | string | number): Promise<MarginPosition> {
    return this.guard(margin.addMarginCollateral(this.http, id, change));
  }
  /** `price` is required, as the documentation marks it: the worst price to close at. */
  closeMarginPosition(id: number, price: Decimal | string | number): Promise<MarginPosition> {
    return this.guard(margin.closeMarginPosition(this.http, id, price));
  }
  getMarginMarkets(): Promise<MarginMarket[]> {
    return this.guard(marginExtra.getMarginMarkets(this.http));
  }
  getMarginRatio(market: string): Promise<MarginRatio> {
    return this.guard(marginExtra.getMarginRatio(this.http, market));
  }
  getMarginPosition(id: number): Promise<MarginPosition> {
    return this.guard(marginExtra.getMarginPosition(this.http, id));
  }
  /** Moves a position's stop loss and take profit (`sltp`); one left out is removed. */
  setMarginBrackets(id: number, b: marginExtra.MarginBrackets): Promise<MarginPosition> {
    return this.guard(marginExtra.setMarginBrackets(this.http, id, b));
  }
  getMarginProfit(id: number): Promise<MarginProfit> {
    return this.guard(marginExtra.getMarginProfit(this.http, id));
  }
  getMarginOrders(q?: marginExtra.MarginOrdersQuery): Promise<Paged<MarginOrder>> {
    return this.guard(marginExtra.getMarginOrders(this.http, q));
  }
  getMarginLevels(): Promise<MarginLevel[]> {
    return this.guard(marginExtra.getMarginLevels(this.http));
  }
  getMarginLevel(market: string): Promise<MarginLevel> {
    return this.guard(marginExtra.getMarginLevel(this.http, market));
  }
  getMarginPnl(): Promise<MarginPnl[]> {
    return this.guard(marginExtra.getMarginPnl(this.http));
  }

  // ------------------------------------------------------------------ trading credit (4.6)
  getPropHistory(): Promise<Paged<PropHistoryEntry>> {
    return this.guard(prop.getPropHistory(this.http));
  }
  getPropPackage(id: number): Promise<PropPackage> {
    return this.guard(prop.getPropPackage(this.http, id));
  }
  /** Closes the trading-credit account `subAccountId` (default: this client's sub-account). */
  closePropAccount(subAccountId?: string): Promise<ClosedPropAccount> {
    const id = subAccountId ?? this.subAccountId;
    if (id === undefined) {
      return Promise.reject(new ParameterError('subAccountId', undefined, 'the trading-credit account to close (or a client made with withSubAccount)'));
    }
    return this.guard(prop.closePropAccount(this.http, id));
  }

  // ----------------------------- trading-credit lifecycle and sub-accounts (mizan account ...)
  getPropPackages(): Promise<PropPackageDetail[]> {
    return this.guard(propLife.getPropPackages(this.http));
  }
  checkPropAvailability(packageId: number): Promise<PropAvailabilityCheck[]> {
    return this.guard(propLife.checkPropAvailability(this.http, packageId));
  }
  /** Buys a package: takes its assurance and opens a trading-credit account (its `clientId`). */
  buyPropPackage(packageId: number): Promise<SubAccount> {
    return this.guard(propLife.buyPropPackage(this.http, packageId));
  }
  connectPropWallet(subAccountId: string, r: propLife.WalletConnectionRequest): Promise<WalletConnection> {
    return this.guard(propLife.connectPropWallet(this.http, subAccountId, r));
  }
  disconnectPropWallet(subAccountId: string): Promise<void> {
    return this.guard(propLife.disconnectPropWallet(this.http, subAccountId));
  }
  enablePropRenew(subAccountId: string): Promise<void> {
    return this.guard(propLife.enablePropRenew(this.http, subAccountId));
  }
  getActivePropAccount(subAccountId: string): Promise<ActivePropAccount> {
    return this.guard(propLife.getActivePropAccount(this.http, subAccountId));
  }
  getPropAccountHistory(subAccountId: string): Promise<PropHistoryEntry> {
    return this.guard(propLife.getPropAccountHistory(this.http, subAccountId));
  }
  getSubAccounts(): Promise<SubAccount[]> {
    return this.guard(propLife.getSubAccounts(this.http));
  }
  getSubAccountTransfers(q?: { page?: number; perPage?: number }): Promise<Paged<SubAccountTransfer>> {
    return this.guard(propLife.getSubAccountTransfers(this.http, q));
  }
  /** Moves money from the main account to a trading-credit account (only its package's currency). */
  transferToSubAccount(r: propLife.SubAccountTransferRequest): Promise<SubAccount> {
    return this.guard(propLife.transferToSubAccount(this.http, r));
  }
}
