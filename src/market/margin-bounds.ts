/**
 * The margin markets' risk-coefficient bounds (`/margin-trade/v1/public/markets`) merged into the
 * catalog's markets: the risk module denies a `riskCoef` out of them before the exchange refuses it.
 * A market the list does not name keeps no bounds (the exchange's own check is then the only one).
 */
import type { MarginMarket } from '../core/types/margin-extra.js';
import type { Market } from './market-catalog.js';

export function withMarginBounds(markets: Market[], margin: readonly MarginMarket[] | undefined): Market[] {
  if (!margin) return markets;
  const by = new Map(margin.map((m) => [m.symbol.toUpperCase(), m]));
  for (const m of markets) {
    const b = by.get(m.symbol);
    if (!b) continue;
    m.riskCoef = { min: b.minRiskCoef, max: b.maxRiskCoef, ...(b.riskCoefStep && b.riskCoefStep.gt(0) ? { step: b.riskCoefStep } : {}) };
    if (b.maxAgeSec !== undefined) m.marginMaxAgeSec = b.maxAgeSec;
  }
  return markets;
}
