/**
 * The one way a test waits: poll a condition until it holds, or fail after a timeout with a message
 * that names what was awaited (and, when given, what was seen). Never a fixed sleep as
 * synchronisation; a negative check ("nothing happens") waits on a later positive event instead.
 */
export interface WaitOptions {
  /** What is awaited, for the failure message ("the bot to start"). */
  what: string;
  /** Give up after this many milliseconds. */
  timeout: number;
  /** Poll every this many milliseconds (default 50). */
  interval?: number;
  /** Extra context for the failure message (a child's output, the messages seen so far). */
  detail?: () => string;
}

/** Resolves once `cond` returns (or resolves to) true; rejects after `timeout` naming `what`. */
export async function waitFor(cond: () => boolean | Promise<boolean>, options: WaitOptions): Promise<void> {
  const { what, timeout, interval = 50, detail } = options;
  const start = Date.now();
  for (;;) {
    if (await cond()) return;
    const waited = Date.now() - start;
    if (waited >= timeout) {
      const extra = detail ? `\n${detail()}` : '';
      throw new Error(`timed out after ${waited} ms waiting for ${what}${extra}`);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, timeout - waited)));
  }
}

/** Like waitFor, but resolves with the first defined value `probe` returns. */
export async function waitForValue<T>(probe: () => T | undefined | Promise<T | undefined>, options: WaitOptions): Promise<T> {
  let value: T | undefined;
  await waitFor(async () => (value = await probe()) !== undefined, options);
  return value as T;
}

/** A `mizan run` status line's head, e.g. `[paper 0m05s]` (printed every 5 s by the bot's loop). */
const STATUS_LINE = /\[(?:paper|live) (?:\d+h\d\dm|\d+m\d\ds)\] equity/g;

/** How many status lines a `mizan run` child's output holds. */
function statusLineCount(output: string): number {
  return output.match(STATUS_LINE)?.length ?? 0;
}

/**
 * Resolves once a `mizan run` child has printed `n` more status lines than it had when called: proof
 * that its loop ran on for that long (n × 5 s), the positive event a "nothing happens" check waits on.
 */
export async function moreStatusLines(output: () => string, n: number, timeout: number): Promise<void> {
  const target = statusLineCount(output()) + n;
  await waitFor(() => statusLineCount(output()) >= target, {
    what: `${n} more status line(s)`,
    timeout,
    interval: 100,
    detail: () => `--- output ---\n${output().slice(-3000)}`,
  });
}
