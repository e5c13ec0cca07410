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
