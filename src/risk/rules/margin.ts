/**
 * Rule 8, margin (margin opens only).
 * - risk coefficient above `maxRiskCoef`: denied;
 * - total loan per asset above `maxTotalLoan`: the open positions' loans plus this one's (a long
 *   borrows collateral × (riskCoef − 1) of the quote asset, a short collateral × riskCoef / price of
 *   the base asset);
 * - call price closer to the current price (mid, else the open price) than `minCallDistancePct`:
 *   denied. The call price comes from the exchange's dry-run preview the kernel takes before the
 *   check (RiskEngine.marginPreviewRequest), else from the injected formula (RiskPorts.marginCallPrice);
 *   a preview that failed denies with its reason; with neither, a configured distance limit denies.
 */
import { Decimal } from '../../core/decimal.js';
import { HUNDRED } from '../pct.js';
import type { RiskPorts } from '../ports.js';
import type { CheckState, RiskRule } from '../rule.js';

const ZERO = new Decimal(0);
const ONE = new Decimal(1);
const NAME = 'margin';

export class MarginRule implements RiskRule {
  readonly name = NAME;

  constructor(private readonly ports: RiskPorts) {}

  check(s: CheckState): string | undefined {
    const it = s.intent;
    const m = s.market;
    if (it.kind !== 'marginOpen' || !m) return undefined;
    const lim = s.limits;
    if (lim.maxRiskCoef && it.riskCoef.gt(lim.maxRiskCoef)) {
      return `risk coefficient ${it.riskCoef.toFixed()} is above the limit ${lim.maxRiskCoef.toFixed()}`;
    }
    const open = it.openPrice ?? (s.price as Decimal);
    const long = it.side === 'long';
    if (lim.maxTotalLoan) {
      const asset = long ? m.quote : m.base;
      const cap = lim.maxTotalLoan[asset];
      if (cap) {
        const loan = long ? it.collateral.mul(it.riskCoef.minus(ONE)) : it.collateral.mul(it.riskCoef).div(open);
        let existing = ZERO;
        for (const p of this.ports.marginPositions?.() ?? []) {
          if (p.state !== 'open') continue;
          const pm = p.market === m.symbol ? m : this.ports.market(p.market);
          const cur = p.loan.currency ?? (pm ? (p.side === 'long' ? pm.quote : pm.base) : undefined);
          if (cur === asset) existing = existing.plus(p.loan.value);
        }
        const after = existing.plus(loan);
        if (after.gt(cap))
          return `total ${asset} loan would be ${after.toFixed()} (${existing.toFixed()} open + ${loan.toFixed()} for this position), above the limit ${cap.toFixed()}`;
      }
    }
    const minDist = lim.minCallDistancePct;
    if (minDist !== undefined) {
      if (s.options.marginPreviewError !== undefined) return `could not preview the position: ${s.options.marginPreviewError}`;
      const preview = s.options.marginPreview;
      if (preview?.openPrice && !preview.openPrice.eq(open)) {
        return `the dry-run preview was taken at the open price ${preview.openPrice.toFixed()}, not ${open.toFixed()}: its call price does not apply`;
      }
      const call = preview?.callPrice ?? this.ports.marginCallPrice?.(it, open, m);
      if (!call)
        return `no call price for the new ${it.side} on ${it.market}: neither a dry-run preview nor a formula was given, and a minimum call distance of ${minDist}% is set`;
      const current = s.book?.mid() ?? open;
      const dist = (long ? current.minus(call) : call.minus(current)).div(current).mul(HUNDRED);
      if (dist.lt(minDist)) {
        return `the call price ${call.toFixed()} is ${dist.toDecimalPlaces(4).toFixed()}% from the current price ${current.toFixed()} of ${it.market}, closer than the ${minDist}% allowed`;
      }
    }
    return undefined;
  }
}
