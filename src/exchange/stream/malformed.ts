/**
 * Counting of malformed stream messages: every one is counted per kind, only the first of each
 * kind is logged (a broken feed would otherwise flood the log at thousands of lines a second).
 */
import type { Logger } from '../../core/logger.js';
import type { ChannelKind } from './channels.js';
import type { PrivateEventKind } from './private-parse.js';

/**
 * A channel kind, `envelope` for a `Broadcaster` event whose channel is not a string, or a private
 * stream event kind (`privateEnvelope` when the message's kind could not be told).
 */
export type MalformedKind = ChannelKind | 'envelope' | PrivateEventKind | 'privateEnvelope';

export class MalformedCounter {
  private readonly counts = new Map<MalformedKind, number>();

  constructor(private readonly logger: Logger) {}

  /** Count one; returns the detail message. Logs only when it is the first of its kind. */
  record(kind: MalformedKind, channel: unknown, err: unknown): string {
    const detail = err instanceof Error ? err.message : String(err);
    const n = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, n);
    if (n === 1) {
      this.logger.warn(
        { kind, channel: typeof channel === 'string' ? channel : String(channel), detail },
        'malformed stream message skipped (logged once per kind; later ones are only counted)',
      );
    }
    return detail;
  }

  snapshot(): Partial<Record<MalformedKind, number>> {
    return Object.fromEntries(this.counts) as Partial<Record<MalformedKind, number>>;
  }

  get total(): number {
    let sum = 0;
    for (const n of this.counts.values()) sum += n;
    return sum;
  }
}
