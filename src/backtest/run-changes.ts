/**
 * What changed in a backtest since the walk last looked, told by the harness's listeners (setup.ts)
 * and taken by the walk (walk.ts), the equity valuer and the end-of-run close: events queued for the
 * strategies (an order update, a fill, a handler's intents), balances moved (fills, instant orders,
 * margin activity), margin positions changed. Only methods: the walk asks and takes, it sets no
 * flag of the harness.
 */
export class RunChanges {
  private events = false;
  private balances = true;
  private margin = false;

  /** An order update, a fill or a handler queued events the strategies have not been given yet. */
  eventsQueued(): void {
    this.events = true;
  }

  /** Whether events are queued (still queued after the call). */
  eventsPending(): boolean {
    return this.events;
  }

  /** Whether events were queued; from now on none is. */
  takeEvents(): boolean {
    const e = this.events;
    this.events = false;
    return e;
  }

  /** Balances may have moved (the equity re-reads them). */
  balancesMoved(): void {
    this.balances = true;
  }

  /** Whether balances moved since the last take. */
  takeBalances(): boolean {
    const b = this.balances;
    this.balances = false;
    return b;
  }

  /** Margin positions may have changed (the walk re-reads which markets have one). */
  marginMoved(): void {
    this.margin = true;
  }

  /** Whether margin positions changed since the last take. */
  takeMargin(): boolean {
    const m = this.margin;
    this.margin = false;
    return m;
  }
}
