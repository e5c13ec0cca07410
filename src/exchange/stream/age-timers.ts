/**
 * When each of the StreamClient's connections is due for replacement: one timer per connection,
 * `lifetimeLeadMs` before the server's cut (the connection's `deadline`) or `rotateAfterMs` after it
 * came up, whichever is first. Only the "when": how a connection is replaced is rotation.ts, which
 * connection carries which channel is the client's. Not on the message path (armed on up, on a
 * deadline move and after a rotation).
 */
import type { Clock } from '../../core/clock.js';
import type { StreamConnection, Timers } from './connection.js';
import type { ResolvedStreamOptions } from './options.js';

export class AgeTimers {
  private readonly ageTimers = new Map<StreamConnection, unknown>();

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
    private readonly options: Pick<ResolvedStreamOptions, 'rotateAfterMs' | 'lifetimeLeadMs'>,
    /** A connection's timer fired (the client rotates it if it is still current). */
    private readonly onDue: (conn: StreamConnection) => void,
  ) {}

  /**
   * (Re)arm the timer that replaces `conn`: `lifetimeLeadMs` before the server's cut, or
   * `rotateAfterMs` after it came up, whichever is first. `retry`: a rotation just failed, wait a
   * little before the next one even when the due time has passed.
   */
  schedule(conn: StreamConnection, retry = false): void {
    this.clear(conn);
    if (!conn.isUp) return;
    let due: number | undefined;
    if (this.options.rotateAfterMs !== undefined) due = conn.upAt + this.options.rotateAfterMs;
    const deadline = conn.deadline;
    if (deadline !== undefined) {
      const beforeCut = deadline - this.options.lifetimeLeadMs;
      due = due === undefined ? beforeCut : Math.min(due, beforeCut);
    }
    if (due === undefined) return;
    let delay = due - this.clock.now();
    if (retry) delay = Math.max(delay, Math.min(1000, this.options.lifetimeLeadMs / 4));
    this.ageTimers.set(
      conn,
      this.timers.setTimeout(
        () => {
          this.ageTimers.delete(conn);
          this.onDue(conn);
        },
        Math.max(0, delay),
      ),
    );
  }

  clear(conn: StreamConnection): void {
    const timer = this.ageTimers.get(conn);
    if (timer === undefined) return;
    this.timers.clearTimeout(timer);
    this.ageTimers.delete(conn);
  }
}
