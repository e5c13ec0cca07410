/**
 * The `exit` intent (core/intents.ts): close a strategy's spot position in a market. A plain sell
 * of a position a bracket protects is denied by the balance rule (the bracket's resting stop locks
 * the coins); an exit asks the brackets to cancel their legs and exit at market (the bracket manager,
 * execution/brackets.ts), and sells the rest of the position (bought without a bracket) as a market
 * order that the risk rules check like any other. A halt lets nothing but cancels pass: an exit is
 * denied then, as a sell would be.
 */
import type { Decimal } from '../core/decimal.js';
import { roundToIncrement } from '../core/decimal.js';
import type { ExitIntent, SpotOrderIntent, Verdict } from '../core/intents.js';

export interface ExitDeps {
  /** Start the exit of the strategy's brackets in the market; what they will sell. */
  exitBrackets(strategy: string, symbol: string): Decimal;
  /** The strategy's spot position in the market (base), 0 when none. */
  position(strategy: string, symbol: string): Decimal;
  market(symbol: string): { qtyStep: Decimal; minQty: Decimal } | undefined;
  /** The trading state's reason when halted (nothing but cancels passes), else undefined. */
  halted(): string | undefined;
  /** The strategy's markets. */
  marketsOf(strategy: string): readonly string[] | undefined;
}

/** What an exit does: a denial, or the order to check and execute for the rest (none: the brackets do it all). */
export type ExitPlan = { denied: string } | { order?: SpotOrderIntent };

export function planExit(intent: ExitIntent, d: ExitDeps): ExitPlan {
  const markets = d.marketsOf(intent.strategy) ?? [];
  if (typeof intent.symbol !== 'string' || !markets.includes(intent.symbol)) {
    return { denied: `exit: symbol must be one of the strategy's markets (${markets.join(', ')}), got ${JSON.stringify(intent.symbol)}` };
  }
  const halt = d.halted();
  if (halt !== undefined) return { denied: `trading is halted (${halt}): nothing but cancels passes` };
  const held = d.position(intent.strategy, intent.symbol);
  const byBrackets = d.exitBrackets(intent.strategy, intent.symbol);
  const m = d.market(intent.symbol);
  const left = held.minus(byBrackets);
  const rest = left.gt(0) ? (m ? roundToIncrement(left, m.qtyStep, 'down') : left) : left;
  if (rest.gt(0) && (!m || rest.gte(m.minQty))) {
    return {
      order: {
        kind: 'order',
        strategy: intent.strategy,
        symbol: intent.symbol,
        side: 'SELL',
        type: 'MARKET',
        size: { kind: 'base', quantity: rest },
        tag: intent.tag ?? 'exit',
      },
    };
  }
  if (byBrackets.gt(0)) return {};
  return {
    denied: `${intent.strategy} holds ${held.toFixed()} in ${intent.symbol}${held.gt(0) && m ? `, under the market's minimum order ${m.minQty.toFixed()}` : ''}: nothing to exit`,
  };
}

/**
 * A sell the balance rule refused while a bracket of the strategy rests in that market: the reason
 * says that the bracket's leg locks the coins, how many, and that exit() is the way out.
 */
export function explainLocked(
  v: Verdict,
  brackets: { resting(strategy: string, symbol: string): { quantity: Decimal; legs: string[] } },
  market: (symbol: string) => { base: string } | undefined,
): Verdict {
  if (v.ok || v.rule !== 'balance') return v;
  const it = v.intent;
  if ((it.kind !== 'order' && it.kind !== 'instant') || it.side !== 'SELL') return v;
  const held = brackets.resting(it.strategy, it.symbol);
  if (held.quantity.lte(0)) return v;
  const base = market(it.symbol)?.base ?? '';
  return {
    ...v,
    reason: `${v.reason}; ${held.quantity.toFixed()} ${base} of it is locked by the resting ${held.legs.join(' and ')} of ${it.strategy}'s bracket on ${it.symbol}: exit('${it.symbol}') cancels the bracket's legs, then sells`,
  };
}
