/**
 * How long the simulator's stream keeps a connection: cut after `cutAfterMs` unless it answers pings,
 * each answer extending it by `extendMs`, up to `maxExtensions`. src/sim/wire/stream.ts gives each
 * connection one `Lifetime`.
 */

export interface StreamLifetime {
  /** Life of a connection that answers no ping, ms. Default 30 min. */
  cutAfterMs: number;
  /** Added per ping answered, ms. Default 30 s. */
  extendMs: number;
  /** Answers that count. Default 100. */
  maxExtensions: number;
}

export const DEFAULT_STREAM_LIFETIME: Readonly<StreamLifetime> = { cutAfterMs: 30 * 60_000, extendMs: 30_000, maxExtensions: 100 };

export function positiveMs(field: string, v: number): number {
  if (!Number.isFinite(v) || v <= 0) throw new RangeError(`${field} must be a number of ms > 0, got ${String(v)}`);
  return v;
}

/** Tracks one connection's deadline and cuts it when it passes. */
export class Lifetime {
  private answered = 0;
  private deadline: number;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly rule: StreamLifetime,
    private readonly cut: () => void,
  ) {
    this.deadline = Date.now() + rule.cutAfterMs;
    this.arm();
  }

  /** Extends the deadline for one heartbeat answer; false once the maximum of extensions is reached. */
  answer(): boolean {
    if (this.answered >= this.rule.maxExtensions) return false;
    this.answered++;
    this.deadline += this.rule.extendMs;
    this.arm();
    return true;
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.cut();
      },
      Math.max(0, this.deadline - Date.now()),
    );
  }
}
