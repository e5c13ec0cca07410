/**
 * A bracket's record as an entry order starts it, and the order of each of its children (the
 * resting stop, the take profit, the market exit): pure functions of the record and its market
 * (src/execution/brackets.ts places what they return).
 */
import { Decimal } from '../core/decimal.js';
import type { Brackets, SpotOrderIntent } from '../core/intents.js';
import type { OrderType } from '../core/types/order.js';
import { STRATEGY_EXIT, type BracketRecord } from './bracket-state.js';
import { placeable, remainingOf, roundTo, type BracketMarket } from './bracket-sizing.js';
import { isFinal, type TrackedOrder } from './tracked-order.js';

/** A bracket's children: its resting stop, its take profit, its market exit. */
export type Leg = 'stop' | 'target' | 'exit';

/** The record of an entry order's bracket; undefined when it asks neither price. */
export function newBracket(o: TrackedOrder, b: Brackets): BracketRecord | undefined {
  if (!b.stopLoss && !b.takeProfit) return undefined;
  return {
    entry: o.clientOrderId,
    strategy: o.strategy,
    account: o.account,
    symbol: o.symbol,
    exitSide: o.side === 'BUY' ? 'SELL' : 'BUY',
    held: '0',
    exited: '0',
    phase: 'open',
    ...(b.stopLoss ? { stopLoss: b.stopLoss.toFixed() } : {}),
    ...(b.takeProfit ? { takeProfit: b.takeProfit.toFixed() } : {}),
  };
}

/** The order of one child for `quantity`, its prices on the market's tick (`tick`). */
export function childIntent(r: BracketRecord, leg: Leg, quantity: Decimal, tick: Decimal | undefined): SpotOrderIntent {
  const type: OrderType = leg === 'stop' ? 'STOP_MARKET' : leg === 'target' ? 'LIMIT' : 'MARKET';
  return {
    kind: 'order' as const,
    strategy: r.strategy,
    symbol: r.symbol,
    side: r.exitSide,
    type,
    size: { kind: 'base' as const, quantity },
    // A market exit is tagged by what started it: a stop loss already crossed exits as the stop, an
    // exit the strategy asked for (exit()) as `x`.
    tag: `bracket-${leg === 'stop' || (leg === 'exit' && r.why?.startsWith('stop')) ? 'sl' : leg === 'exit' && r.why?.startsWith(STRATEGY_EXIT) ? 'x' : 'tp'}:${r.entry}`,
    // A sell's stop rounds up and its target up (never sell under the price asked); a buy's down.
    ...(leg === 'stop' ? { stopPrice: roundTo(new Decimal(r.stopLoss!), tick, r.exitSide === 'SELL' ? 'up' : 'down') } : {}),
    ...(leg === 'target' ? { price: roundTo(new Decimal(r.takeProfit!), tick, r.exitSide === 'SELL' ? 'up' : 'down') } : {}),
  };
}

/** Which child of the bracket an order id is. */
export function legOf(r: BracketRecord, id: string): Leg | undefined {
  return r.stop === id ? 'stop' : r.target === id ? 'target' : r.exit === id ? 'exit' : undefined;
}

/**
 * Whether a bracket is done: its entry final, no child resting, and nothing left it could place
 * (`dust`: something is left, under the market's minimum, and nothing was ever exited).
 */
export function bracketDone(r: BracketRecord, orders: ReadonlyMap<string, TrackedOrder>, m: BracketMarket | undefined): 'done' | 'dust' | undefined {
  const entry = orders.get(r.entry);
  if (entry && !isFinal(entry.state)) return undefined;
  const anyLive = (['stop', 'target', 'exit'] as const).some((l) => {
    const o = r[l] ? orders.get(r[l]) : undefined;
    return o !== undefined && !isFinal(o.state);
  });
  if (anyLive) return undefined;
  const rem = remainingOf(r, m);
  if (placeable(r, rem, m)) return undefined;
  return rem.gt(0) && new Decimal(r.exited).isZero() && new Decimal(r.held).gt(0) ? 'dust' : 'done';
}
