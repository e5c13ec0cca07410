/**
 * MarginDesk: the simulated exchange's margin positions (spec 2.14, 4.5). Formulas: math.ts and
 * README.md next to this file; states: position.ts; life cycle: lifecycle.ts.
 *
 * The simulator calls `onPrice(symbol, price, timeMs)` for every replayed price (it charges interest
 * due by `timeMs`, then fills pending openings and fires liquidation, stop loss, take profit, requested
 * closes and the call flag); a backtest clock can also call `accrue(nowMs)` on its own.
 * Methods return the exchange's wire shapes so in-process venues parse what the REST client parses.
 */
import { Decimal } from '../../core/decimal.js';
import type { Clock } from '../../core/clock.js';
import { silentLogger, type Logger } from '../../core/logger.js';
import type { Ledger } from '../ledger.js';
import { simErrors } from '../errors.js';
import { defaultMarginMarket, EXTEND_TIME_MS, MAX_AGE_MS, type MarginMarketConfig, type MarginMarkets } from './config.js';
import { applyPrice, cancelPending, chargeInterest, fillOpen, refreshLevels, settle } from './lifecycle.js';
import { equity, loanFor, openAmounts, triggerPrice } from './math.js';
import { buyPrice, money, referencePrice, sellPrice, type MarketSpec, type MarketSpecs, type PriceView } from './ports.js';
import { isActive, toWire, type SimPosition, type WirePosition } from './position.js';
import { checkBrackets, checkPrice, checkRiskCoef, checkSide, collateralBounds, marketContext, validateInput, type MarginInput } from './validate.js';
import type { LoanBoundsInput, PositionFilter, WireDryRun, WireLoanBounds } from './wire.js';

export type { MarginInput } from './validate.js';

export interface MarginDeskDeps {
  ledger: Ledger;
  prices: PriceView;
  specs: MarketSpecs;
  clock: Clock;
  /** The account's own taker rate on a market (e.g. the simulator's per-account fees); default: the market's. */
  accountTakerFee?: (account: string, market: string) => Decimal | undefined;
  /** Markets open to margin trading; default: every market of `specs`, with defaultMarginMarket(). */
  markets?: MarginMarkets;
  /** Every market symbol, for the public market list; default none listed. */
  symbols?: () => string[];
  logger?: Logger;
  /** The first position id (default 1; paper starts past the ids its journal holds, so no two runs share one). */
  firstId?: number;
}

const ZERO = new Decimal(0);

export class MarginDesk {
  private readonly positions = new Map<number, SimPosition>();
  private readonly replayed = new Map<string, Decimal>();
  private readonly markets: MarginMarkets;
  private readonly log: Logger;
  private nextId: number;

  constructor(private readonly deps: MarginDeskDeps) {
    this.nextId = deps.firstId ?? 1;
    const defaults = new Map<string, MarginMarketConfig>();
    this.markets =
      deps.markets ??
      ((s) => {
        let cfg = defaults.get(s);
        if (!cfg) {
          const spec = deps.specs(s);
          if (!spec) return undefined;
          cfg = defaultMarginMarket(spec.quote);
          defaults.set(s, cfg);
        }
        return cfg;
      });
    this.log = deps.logger ?? silentLogger;
  }

  /** Preview of a position: what `open` would lock, charge and set, without doing it. */
  dryRun(input: MarginInput): WireDryRun {
    const ctx = validateInput(input, this.deps.specs, this.markets, this.deps.prices);
    const { spec, cfg } = ctx;
    const a = openAmounts(input.side, input.collateral, input.riskCoef, input.openPrice, spec.quantityPrecision, cfg.interestRate);
    const n = input.collateral.mul(input.riskCoef);
    const tradeFee = n.mul(spec.takerFee);
    return {
      market: input.market,
      side: input.side,
      open_price: input.openPrice.toFixed(),
      risk_coef: input.riskCoef.toFixed(),
      call_price: triggerPrice(a.baseQty, a.quoteNet, ZERO, cfg.callMargin, spec.pricePrecision).toFixed(),
      liquidity_price: triggerPrice(a.baseQty, a.quoteNet, ZERO, cfg.liquidityMargin, spec.pricePrecision).toFixed(),
      stop_loss: input.stopLoss?.toFixed() ?? null,
      take_profit: input.takeProfit?.toFixed() ?? null,
      extend_time: EXTEND_TIME_MS / 1000,
      max_age: MAX_AGE_MS / 1000,
      collateral: money(spec.quote, input.collateral),
      loan: money(input.side === 'long' ? spec.quote : spec.base, a.loan),
      extend_fee: money(spec.quote, a.interestPerPeriod),
      open_fee: money(spec.quote, tradeFee.plus(n.mul(cfg.openFeeRate))),
      trade_fee: money(spec.quote, tradeFee),
    };
  }

  /** Collateral bounds for a risk coefficient, and the loan for `collateral` (the minimum when left out). */
  loanBounds(input: LoanBoundsInput): WireLoanBounds {
    checkSide(input.side);
    const ctx = marketContext(input.market, this.deps.specs, this.markets, this.deps.prices);
    checkRiskCoef(input.riskCoef, ctx.cfg);
    if (input.openPrice) checkPrice('open_price', input.openPrice, ctx);
    const b = collateralBounds(input.riskCoef, ctx);
    const c = input.collateral ?? b.min;
    const price = input.openPrice ?? ctx.reference;
    const loan = loanFor(input.side, c, input.riskCoef, price, ctx.spec.quantityPrecision);
    return {
      collateral: { min: b.min.toFixed(), max: b.max.toFixed() },
      loan: money(input.side === 'long' ? ctx.spec.quote : ctx.spec.base, loan),
    };
  }

  /**
   * Opens a position: locks the collateral and charges the opening fee (N·(takerFee + openFeeRate))
   * from the account's free quote balance (402 when short). Fills at once at the best ask (long) or
   * best bid (short) when the open price reaches it, otherwise waits as `pending`.
   */
  open(account: string, input: MarginInput): WirePosition {
    const ctx = validateInput(input, this.deps.specs, this.markets, this.deps.prices);
    const { cfg } = ctx;
    const spec = this.withAccountFee(account, input.market, ctx.spec);
    const now = this.deps.clock.now();
    const openFee = input.collateral.mul(input.riskCoef).mul(spec.takerFee.plus(cfg.openFeeRate));
    const need = input.collateral.plus(openFee);
    const free = this.deps.ledger.free(account, spec.quote);
    if (free.lt(need)) {
      throw simErrors.insufficientBalance(`Insufficient ${spec.quote} balance: ${free.toFixed()} free, ${need.toFixed()} needed (collateral and opening fee)`);
    }
    this.deps.ledger.lock(account, spec.quote, input.collateral);
    this.deps.ledger.debitFree(account, spec.quote, openFee);
    const p: SimPosition = {
      id: this.nextId++,
      account,
      market: input.market,
      base: spec.base,
      quote: spec.quote,
      side: input.side,
      state: 'pending',
      riskCoef: input.riskCoef,
      collateral: input.collateral,
      openPrice: input.openPrice,
      stopLoss: input.stopLoss,
      takeProfit: input.takeProfit,
      loan: loanFor(input.side, input.collateral, input.riskCoef, input.openPrice, spec.quantityPrecision),
      baseQty: ZERO,
      quoteNet: ZERO,
      interest: ZERO,
      interestPerPeriod: ZERO,
      periodsCharged: 0,
      openFee,
      callPrice: ZERO,
      liquidityPrice: ZERO,
      isCalled: false,
      createdAtMs: now,
      updatedAtMs: now,
    };
    this.positions.set(p.id, p);
    const market = input.side === 'long' ? buyPrice(this.deps.prices, input.market) : sellPrice(this.deps.prices, input.market);
    const marketable = market !== undefined && (input.side === 'long' ? market.lte(input.openPrice) : market.gte(input.openPrice));
    if (marketable) fillOpen(p, market, now, cfg, spec);
    this.log.info({ id: p.id, account, market: p.market, side: p.side, state: p.state }, 'margin position opened');
    return this.view(p);
  }

  list(account: string, filter: PositionFilter = {}): WirePosition[] {
    const out: WirePosition[] = [];
    for (const p of this.positions.values()) {
      if (p.account !== account) continue;
      if (filter.active !== undefined && isActive(p) !== filter.active) continue;
      if (filter.positionSide && p.side !== filter.positionSide) continue;
      if (filter.market && p.market !== filter.market) continue;
      out.push(this.view(p));
    }
    return out;
  }

  get(account: string, id: number): WirePosition {
    return this.view(this.owned(account, id));
  }

  /**
   * What a position cost and holds, which its wire form does not show (for backtest reports): the
   * opening fee (paid at opening, refunded when a pending position is canceled), the closing fee
   * (once closed), the interest charged so far, and the base quantity held (+long, −short).
   */
  costs(account: string, id: number): { openFee: Decimal; closeFee: Decimal; interest: Decimal; closeCostsPaid: Decimal; baseQty: Decimal } {
    const p = this.owned(account, id);
    const closeFee = p.closeFee ?? ZERO;
    // The closing fee and the interest come out of the position's equity at the close; when the
    // payout was clamped at 0 (a liquidation past the collateral) the account paid only what was left.
    let closeCostsPaid = closeFee.plus(p.interest);
    if (p.payout !== undefined && p.payout.isZero() && p.closeFilledPrice) {
      closeCostsPaid = Decimal.min(closeCostsPaid, Decimal.max(ZERO, equity(p.baseQty, p.quoteNet, ZERO, p.closeFilledPrice)));
    }
    return { openFee: p.state === 'canceled' ? ZERO : p.openFee, closeFee, interest: p.interest, closeCostsPaid, baseQty: p.baseQty };
  }

  /** Adds `change` to the collateral (locked from the free quote balance); call and liquidation prices move away. */
  addCollateral(account: string, id: number, change: Decimal): WirePosition {
    const p = this.activeOwned(account, id);
    if (change.lte(0)) throw simErrors.invalid({ change: [`change must be positive, got ${change.toFixed()}`] });
    const { spec, cfg } = this.ctx(p);
    this.deps.ledger.lock(account, p.quote, change);
    p.collateral = p.collateral.plus(change);
    p.quoteNet = p.quoteNet.plus(change);
    p.updatedAtMs = this.deps.clock.now();
    if (p.state === 'open') {
      refreshLevels(p, cfg, spec);
      const mark = this.mark(p.market);
      if (mark) applyPrice(p, mark, p.updatedAtMs, this.deps.ledger, cfg, spec);
    }
    return this.view(p);
  }

  /**
   * Closes a position. Without a price: at once at the best bid (long) or best ask (short). With a
   * price: at once at the market when the market is as good, otherwise (the price within the
   * allowed distance of the market) the price is kept as `close_price` and the position closes when
   * a replayed price reaches it. A pending position is canceled and refunded.
   */
  close(account: string, id: number, price?: Decimal): WirePosition {
    const p = this.activeOwned(account, id);
    const now = this.deps.clock.now();
    if (p.state === 'pending') {
      cancelPending(p, this.deps.ledger, now);
      return this.view(p);
    }
    const ctx = this.ctx(p);
    const reference = referencePrice(this.deps.prices, p.market) ?? this.replayed.get(p.market);
    const market = p.side === 'long' ? sellPrice(this.deps.prices, p.market) : buyPrice(this.deps.prices, p.market);
    if (price === undefined) {
      const at = market ?? this.replayed.get(p.market);
      if (!at) throw simErrors.invalid({ market: [`market ${p.market} has no price to close at`] });
      settle(p, this.deps.ledger, at, 'user', now, ctx.spec);
      return this.view(p);
    }
    if (!reference) throw simErrors.invalid({ market: [`market ${p.market} has no price now`] });
    // A price at least as good as the market closes at once, at the market's price: only its form is
    // checked (a close sent at a bound below the market, whatever the market did since, is not "too
    // far"). A close that would wait must be near the market, as an open price must.
    const asGood = market !== undefined && (p.side === 'long' ? market.gte(price) : market.lte(price));
    checkPrice('price', price, { ...ctx, reference }, !asGood);
    if (asGood) {
      settle(p, this.deps.ledger, market, 'user', now, ctx.spec);
    } else {
      p.closePrice = price;
      p.updatedAtMs = now;
    }
    return this.view(p);
  }

  /**
   * Replaces the stop loss and take profit (spec's `sltp` call); a missing one is removed. An open
   * position's brackets are checked against the market price (a trailing stop moves a long's stop
   * above its open price once the market is there); a pending one's against its open price.
   */
  setBrackets(account: string, id: number, stopLoss?: Decimal, takeProfit?: Decimal): WirePosition {
    const p = this.activeOwned(account, id);
    const mark = p.state === 'open' ? this.mark(p.market) : undefined;
    checkBrackets({ side: p.side, openPrice: mark ?? p.openFilledPrice ?? p.openPrice, stopLoss, takeProfit }, mark ? 'market price' : 'open price');
    p.stopLoss = stopLoss;
    p.takeProfit = takeProfit;
    p.updatedAtMs = this.deps.clock.now();
    return this.view(p);
  }

  /** `GET /margin-trade/v1/public/markets`: the settings of every marginable market. */
  publicMarkets(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const symbol of this.deps.symbols?.() ?? []) {
      const spec = this.deps.specs(symbol);
      const cfg = spec ? this.markets(symbol) : undefined;
      if (!spec || !cfg) continue;
      out.push({
        symbol,
        base: spec.base,
        quote: spec.quote,
        min_risk_coef: cfg.minRiskCoef.toFixed(),
        max_risk_coef: cfg.maxRiskCoef.toFixed(),
        risk_coef_step: cfg.riskCoefStep.toFixed(),
        liquidity_margin: cfg.liquidityMargin.toFixed(),
        max_age: MAX_AGE_MS / 1000,
      });
    }
    return out;
  }

  /** `GET /margin-trade/v1/public/ratio/{market}`: share of open exposure (quote at opening) long and short, percent. */
  ratio(market: string): { market: string; long: string; short: string } {
    if (!this.deps.specs(market) || !this.markets(market)) throw simErrors.notFound(`margin market ${JSON.stringify(market)} not found`);
    let long = ZERO;
    let short = ZERO;
    for (const p of this.positions.values()) {
      if (p.market !== market || p.state !== 'open' || !p.openFilledPrice) continue;
      const n = p.baseQty.abs().mul(p.openFilledPrice);
      if (p.side === 'long') long = long.plus(n);
      else short = short.plus(n);
    }
    const total = long.plus(short);
    if (total.isZero()) return { market, long: '50', short: '50' };
    const l = long.div(total).mul(100).toDecimalPlaces(2);
    return { market, long: l.toFixed(), short: new Decimal(100).minus(l).toFixed() };
  }

  /** A replayed price of `symbol` at `timeMs`: interest due first, then every trigger of that market. */
  onPrice(symbol: string, price: Decimal, timeMs: number): void {
    this.replayed.set(symbol, price);
    this.charge(timeMs, false);
    for (const p of this.positions.values()) {
      if (p.market !== symbol || !isActive(p)) continue;
      const { spec, cfg } = this.ctx(p);
      const outcome = applyPrice(p, price, timeMs, this.deps.ledger, cfg, spec);
      if (outcome !== 'none') this.log.info({ id: p.id, market: symbol, price: price.toFixed(), outcome }, 'margin position event');
    }
  }

  /** Charges interest due by `nowMs`, closes expired positions at the market, and re-checks triggers at the mark. */
  accrue(nowMs: number): void {
    this.charge(nowMs, true);
  }

  private charge(nowMs: number, recheck: boolean): void {
    for (const p of this.positions.values()) {
      if (p.state !== 'open') continue;
      const charged = chargeInterest(p, nowMs);
      const expired = p.expiresAtMs !== undefined && nowMs >= p.expiresAtMs;
      if (!charged && !expired && !recheck) continue;
      const { spec, cfg } = this.ctx(p);
      if (charged) {
        p.updatedAtMs = nowMs;
        refreshLevels(p, cfg, spec);
      }
      const mark = this.mark(p.market);
      if (!mark) continue;
      if (expired) {
        const at = (p.side === 'long' ? sellPrice(this.deps.prices, p.market) : buyPrice(this.deps.prices, p.market)) ?? mark;
        settle(p, this.deps.ledger, at, 'expired', nowMs, spec);
        continue;
      }
      applyPrice(p, mark, nowMs, this.deps.ledger, cfg, spec);
    }
  }

  private mark(symbol: string): Decimal | undefined {
    return this.replayed.get(symbol) ?? referencePrice(this.deps.prices, symbol);
  }

  private view(p: SimPosition): WirePosition {
    const mark = p.state === 'open' ? this.mark(p.market) : undefined;
    return toWire(p, mark ? equity(p.baseQty, p.quoteNet, p.interest, mark) : undefined);
  }

  private ctx(p: SimPosition): { spec: MarketSpec; cfg: MarginMarketConfig } {
    const spec = this.deps.specs(p.market);
    const cfg = this.markets(p.market);
    if (!spec || !cfg) throw simErrors.invalid({ market: [`market ${p.market} is no longer open to margin trading`] });
    return { spec: this.withAccountFee(p.account, p.market, spec), cfg };
  }

  /** The market's spec with the account's own taker rate, when it has one (opening and closing fees). */
  private withAccountFee(account: string, market: string, spec: MarketSpec): MarketSpec {
    const f = this.deps.accountTakerFee?.(account, market);
    return f && !f.eq(spec.takerFee) ? { ...spec, takerFee: f } : spec;
  }

  private owned(account: string, id: number): SimPosition {
    const p = this.positions.get(id);
    if (!p || p.account !== account) throw simErrors.notFound(`margin position ${id} not found`);
    return p;
  }

  private activeOwned(account: string, id: number): SimPosition {
    const p = this.owned(account, id);
    if (!isActive(p)) throw simErrors.invalid({ id: [`margin position ${id} is ${p.state}`] });
    return p;
  }
}
