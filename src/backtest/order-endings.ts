/**
 * How a backtest's orders ended: the count per final state (`open` for those live at the end), and
 * the orders the exchange (not their strategy) ended with a reason, grouped by the reason's wording
 * with the first one's words (the volume cap cancelling market orders, an order the exchange refused,
 * …). A strategy's own cancels carry no reason and are only counted. It is in result.json
 * (`orderEndings`) and the terminal summary, with or without the order list.
 */
import type { OrderRecord } from './order-record.js';

export interface OrderEndings {
  /** Orders per final state, `open` for those live at the end. */
  states: Record<string, number>;
  /** Orders ended with the exchange's reason, per state and wording, most first. */
  reasons: { state: string; count: number; reason: string; firstOrder: string }[];
}

/** An ended order as the tally reads it (a tracked order or a record). */
interface Ended {
  clientOrderId: string;
  state: string;
  reason?: string | null | undefined;
}

export class OrderEndingTally {
  private readonly states = new Map<string, number>();
  private readonly groups: Groups = new Map();
  /** Orders whose reason came with them (a venue's later reason is not counted twice). */
  private readonly reasoned = new Set<string>();
  private ended_ = 0;

  /** An order reached its final state. */
  ended(o: Ended): void {
    this.ended_++;
    this.states.set(o.state, (this.states.get(o.state) ?? 0) + 1);
    if (o.reason) {
      this.reasoned.add(o.clientOrderId);
      this.group(o.state, o.reason, o.clientOrderId);
    }
  }

  /** Orders ended so far. */
  get count(): number {
    return this.ended_;
  }

  /**
   * The endings: `open` orders still live at the end; `venueReasons` the reasons the exchange gave
   * for orders it cancelled at placement (learnt after they ended), by client id.
   */
  summary(open: number, venueReasons: ReadonlyMap<string, string> = new Map()): OrderEndings {
    const groups = new Map([...this.groups].map(([k, g]) => [k, { ...g }]));
    for (const [id, reason] of venueReasons) if (!this.reasoned.has(id)) group(groups, 'cancelled', reason, id);
    const states: Record<string, number> = {};
    const counted = [...this.states].concat(open > 0 ? [['open', open]] : []);
    for (const [s, n] of counted.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) states[s] = n;
    return { states, reasons: [...groups.values()].sort((a, b) => b.count - a.count) };
  }

  private group(state: string, reason: string, id: string): void {
    group(this.groups, state, reason, id);
  }
}

type Groups = Map<string, { state: string; count: number; reason: string; firstOrder: string }>;

function group(groups: Groups, state: string, reason: string, id: string): void {
  if (state === 'filled') return;
  // Reasons differ in their numbers only (a quantity, a price, the cap): one group per wording.
  const key = `${state}\u0000${reason.replace(/\d+(\.\d+)?/g, '#')}`;
  const g = groups.get(key);
  if (g) g.count++;
  else groups.set(key, { state, count: 1, reason, firstOrder: id });
}

/** The endings of orders known by their records (`open` ones counted as open). */
export function orderEndingsOf(records: Iterable<OrderRecord>, tally = new OrderEndingTally()): OrderEndings {
  let open = 0;
  for (const r of records) {
    if (r.state === 'open') open++;
    else tally.ended(r);
  }
  return tally.summary(open);
}

/**
 * A candle run's endings: its spot orders as the engine ended them (`submitted` of them in all, the
 * rest live at the end), with the exchange's reasons for market orders cancelled at placement, then
 * its instant and margin orders' records.
 */
export function runEndings(spot: OrderEndingTally, submitted: number, venueReasons: ReadonlyMap<string, string>, others: readonly OrderRecord[]): OrderEndings {
  return mergeEndings(spot.summary(submitted - spot.count, venueReasons), orderEndingsOf(others));
}

/** Two sets of endings as one (states added, reason groups side by side, most first). */
function mergeEndings(a: OrderEndings, b: OrderEndings): OrderEndings {
  const n = new Map(Object.entries(a.states));
  for (const [s, k] of Object.entries(b.states)) n.set(s, (n.get(s) ?? 0) + k);
  const states: Record<string, number> = {};
  for (const [s, k] of [...n].sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0]))) states[s] = k;
  return { states, reasons: [...a.reasons, ...b.reasons].sort((x, y) => y.count - x.count) };
}

/** `115 filled, 195 cancelled`: the orders per final state, most first. */
export function orderStateText(e: OrderEndings): string {
  return Object.entries(e.states)
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
}

/** Lines naming how many orders ended for each kind of reason the exchange gave, with the first one's words. */
export function formatOrderReasons(e: OrderEndings): string[] {
  return e.reasons.map(
    (g) =>
      `  ${String(g.count).padStart(6)} × ${g.state}: ${g.reason}${g.count > 1 ? ` (the first: ${g.firstOrder}; each order's reason is in result.json's orders, --out)` : ` (${g.firstOrder})`}`,
  );
}
