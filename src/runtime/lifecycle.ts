/**
 * The shutdown order of a running bot, declared once: each part is added after the parts it needs,
 * and `stop()` ends them in the reverse order (the schedules before the strategies they call, the
 * strategies before the market data and balances they trade on, the market data before the stream,
 * the kernel before the journal it writes, the journal before the embedded exchange). A start that
 * fails half way stops what it had declared the same way, so every part's stop is safe before its
 * start. One verb: every part is ended by its `stop()`; a part whose own verb differs (a journal
 * closes its database) is added with a `stop` that calls it. A part that fails to stop is logged and
 * the rest still stop.
 */
import type { Logger } from '../core/logger.js';

/** Anything the bot starts and must end. */
export interface Stoppable {
  stop(): void | Promise<void>;
}

export class Lifecycle {
  private readonly parts: { name: string; part: Stoppable }[] = [];
  private stopping: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  /** A part, stopped after every part added later. Returns the part. */
  add<T extends Stoppable>(name: string, part: T): T {
    this.parts.push({ name, part });
    return part;
  }

  /** The names in declared order (what `stop()` ends, last first). */
  names(): string[] {
    return this.parts.map((p) => p.name);
  }

  /** End every part, last started first; once (a second call waits for the first). */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      for (const { name, part } of this.parts.splice(0).reverse()) {
        try {
          await part.stop();
        } catch (err) {
          this.logger.warn({ part: name, err: err instanceof Error ? err.message : String(err) }, 'a part failed to stop; stopping the rest');
        }
      }
    })();
    return this.stopping;
  }
}
