/**
 * Queue-position models for a resting limit order in an order-book backtest (after hftbacktest's
 * `RiskAdverseQueueModel` and `ProbQueueModel`). The recorded book never holds our own order, so a
 * level's quantity is the quantity of the other orders at that price.
 *
 *  - Both models: a trade at the order's price (by a taker on the other side) shrinks the quantity
 *    ahead by the traded quantity; an increase of the level joins behind us and changes nothing.
 *  - `risk-averse`: a decrease of the level is a cancellation behind us; the quantity ahead only
 *    shrinks when the level becomes smaller than it (it cannot exceed what the level holds).
 *  - `prob`: a decrease of `chg` is split between the front and the back of the queue, less what
 *    traded at the price since the level last changed (those trades already shrank the queue ahead,
 *    and the level's decrease includes them: hftbacktest's `cum_trade_qty`). With `front` ahead and
 *    `back = level − front` behind, the share taken from behind is
 *    prob = back^n / (back^n + front^n) (n = `power`, 1: in proportion to the two parts), and the
 *    new front is front − (1 − prob) × chg + min(back − prob × chg, 0), clamped to [0, new level].
 *    A level that did not shrink by more than the trades keeps the front (at most the new level).
 *    The result is rounded up to the quantity step (a fraction of a step is no quantity an exchange
 *    fills), and never above the new level.
 */
import { Decimal, ZERO } from '../../core/decimal.js';
import { roundToStep } from '../../risk/grid.js';

export type QueueModelName = 'risk-averse' | 'prob';
const QUEUE_MODELS: readonly QueueModelName[] = ['risk-averse', 'prob'];

export interface QueueModel {
  readonly name: QueueModelName;
  /**
   * The quantity ahead after the level went from `before` to `after`; `traded`: what traded at the
   * price since the level last changed (already taken off `front`, and part of the decrease);
   * `step`: the market's quantity step.
   */
  onLevelChange(front: Decimal, before: Decimal, after: Decimal, traded: Decimal, step: Decimal): Decimal;
}

function clamp(front: Decimal, level: Decimal): Decimal {
  if (front.lt(0)) return ZERO;
  return front.gt(level) ? level : front;
}

const riskAverseQueue: QueueModel = {
  name: 'risk-averse',
  onLevelChange(front, _before, after) {
    return clamp(front, after);
  },
};

function probQueue(power = 1): QueueModel {
  if (!Number.isFinite(power) || power <= 0) throw new Error(`queue power must be a positive number, got ${String(power)}`);
  return {
    name: 'prob',
    onLevelChange(front, before, after, traded, step) {
      const chg = before.minus(after).minus(traded);
      if (!chg.gt(0)) return clamp(front, after);
      const back = Decimal.max(before.minus(front), ZERO);
      const fb = back.pow(power);
      const ff = front.pow(power);
      const denom = fb.plus(ff);
      const prob = denom.isZero() ? new Decimal(1) : fb.div(denom);
      const est = front.minus(new Decimal(1).minus(prob).mul(chg)).plus(Decimal.min(back.minus(prob.mul(chg)), ZERO));
      // The share is a fraction: rounded up to the step (never in the order's favour), at most the level.
      return clamp(roundToStep(clamp(est, after), step, true), after);
    },
  };
}

export function queueModel(name: QueueModelName, power?: number): QueueModel {
  if (name === 'risk-averse') return riskAverseQueue;
  if (name === 'prob') return probQueue(power);
  throw new Error(`queueModel must be one of ${QUEUE_MODELS.join(', ')}, got ${JSON.stringify(name)}`);
}
