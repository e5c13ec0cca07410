/**
 * The margin markets' risk-coefficient bounds (`/margin-trade/v1/public/markets`) merged into the
 * catalog's markets: the risk module denies a `riskCoef` out of them before the exchange refuses it.
 * A market the list does not name keeps no bounds (the exchange's own check is then the only one).
 */
import type { MarginMarket } from '../core/types/margin-extra.js';
import type { RiskCoefBounds } from '../core/views.js';

/** What this needs of a catalog market (market-catalog.ts's Market). */
export interface MarginBoundsTarget {
  symbol: string;
  riskCoef?: RiskCoefBounds;
  marginMaxAgeSec?: number;
}

export function withMarginBounds<T extends MarginBoundsTarget>(markets: T[], margin: readonly MarginMarket[] | undefined): T[] {
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
