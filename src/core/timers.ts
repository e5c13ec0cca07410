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
