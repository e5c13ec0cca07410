/** Timer ports (tests hold or fire them by hand): one definition for every module that sets timers. */

/** One-shot timers. */
export interface Timeouts {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** One-shot and repeating timers. */
export interface Timers extends Timeouts {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

type Unrefable = { unref?: () => void };

/** Node's timers; handles are unref'd so market-data housekeeping (or a bot's heartbeat) never keeps a process alive. */
export const realTimers: Timers = {
  setTimeout(fn, ms) {
    const h = setTimeout(fn, ms) as unknown as Unrefable;
    h.unref?.();
    return h;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
  setInterval(fn, ms) {
    const h = setInterval(fn, ms) as unknown as Unrefable;
    h.unref?.();
    return h;
  },
  clearInterval(handle) {
    clearInterval(handle as ReturnType<typeof setInterval>);
  },
};

/**
 * A one-shot timeout that counts only time this process ran. Timers and socket input wait on the
 * same event loop, and after a stall (a blocked loop, a loaded machine) the loop runs due timers
 * before it reads the input that arrived meanwhile: a decision such as "nothing came for `ms`" taken
 * then is wrong. Fired more than `toleranceMs` late, the timeout waits its time again (the input is
 * read first), at most `retries` times.
 */
export class PatientTimeout {
  private handle: unknown;

  constructor(
    private readonly timers: Timeouts,
    private readonly now: () => number,
    private readonly toleranceMs = 250,
    private readonly retries = 3,
  ) {}

  start(fn: () => void, ms: number): void {
    this.arm(fn, ms, this.retries);
  }

  clear(): void {
    if (this.handle === undefined) return;
    this.timers.clearTimeout(this.handle);
    this.handle = undefined;
  }

  private arm(fn: () => void, ms: number, retriesLeft: number): void {
    this.clear();
    const armedAt = this.now();
    this.handle = this.timers.setTimeout(() => {
      this.handle = undefined;
      if (retriesLeft > 0 && this.now() - armedAt - ms > this.toleranceMs) return this.arm(fn, ms, retriesLeft - 1);
      fn();
    }, ms);
  }
}
