/**
 * Rule 6, balance (and reservation). What the intent spends, fees included, must fit in the free
 * balance of the strategy's account: free = value − locked − reserved by intents in flight. The check
 * and the reservation are one synchronous step (Reservations.tryReserve), shared by every strategy of
 * the bot, so two strategies can never spend the same Toman. A later rule's denial releases it.
 * - buy: quantity × price × (1 + takerFee) of the quote asset (a market buy at the slippage bound);
 * - sell: the quantity of the base asset;
 * - margin open: collateral + collateral × riskCoef × takerFee of the quote asset;
 * - collateral top-up: the amount, in the position's collateral currency.
 */
import type { MarginAddCollateralIntent } from '../../core/intents.js';
import type { RiskPorts } from '../ports.js';
import type { ReservationKind, Reservations, ReserveRequest } from '../reservations.js';
import type { CheckState, RiskRule } from '../rule.js';

const NAME = 'balance';

export class BalanceRule implements RiskRule {
  readonly name = NAME;

  constructor(
    private readonly ports: RiskPorts,
    private readonly reservations: Reservations,
  ) {}

  check(s: CheckState): string | undefined {
    const it = s.intent;
    if (it.kind === 'marginAddCollateral') {
      const r = this.topUpSpend(s, it);
      if (r) return r;
    }
    const spend = s.spend;
    if (!spend) return undefined;
    const req: ReserveRequest = { kind: it.kind as ReservationKind, strategy: s.strategy, account: s.account, asset: spend.asset, amount: spend.amount };
    if (it.kind === 'order' || it.kind === 'instant') {
      req.symbol = it.symbol;
      req.side = it.side;
      if (s.quantity) req.quantity = s.quantity;
    } else if (it.kind === 'marginOpen') {
      req.symbol = it.market;
    }
    const bal = this.ports.balance(s.account, spend.asset);
    const res = this.reservations.tryReserve(req, bal);
    if (!res.ok) {
      const held = bal
        ? `value ${bal.value.toFixed()} − locked ${bal.locked.toFixed()} − reserved ${this.reservations.reserved(s.account, spend.asset).toFixed()}`
        : 'no balance';
      return `needs ${spend.amount.toFixed()} ${spend.asset} (fees included) but only ${res.free.toFixed()} is free on ${s.account} (${held})`;
    }
    s.reservationId = res.id;
    s.onDeny.push(() => this.reservations.release(res.id));
    return undefined;
  }

  private topUpSpend(s: CheckState, it: MarginAddCollateralIntent): string | undefined {
    if (!it.amount.gt(0)) return `amount must be positive, got ${it.amount.toFixed()}`;
    const p = this.ports.marginPositions?.().find((x) => x.id === it.positionId);
    if (!p) return `margin position ${it.positionId} is not open (unknown to the portfolio)`;
    const asset = p.collateral.currency ?? this.ports.market(p.market)?.quote;
    if (!asset) return `cannot tell the collateral currency of margin position ${it.positionId} on ${p.market}`;
    s.spend = { asset, amount: it.amount };
    return undefined;
  }
}
