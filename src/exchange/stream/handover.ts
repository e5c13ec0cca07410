/**
 * Make-before-break, per channel. While a connection is replaced, the channel is subscribed on
 * both: the old connection stays authoritative until the two streams are seen to overlap, then the
 * new one takes over, so the strategy sees no gap and no message twice.
 *
 * Both sockets sit in the same room of the same server, so they receive the same messages in the
 * same order; the new one's stream is a suffix of the old one's. A message is identified by its
 * content (JSON text: only during a handover, never on the normal message path).
 * - New delivers X that old already delivered (old is ahead): switch; skip the new stream's next
 *   messages while they repeat what old delivered after X.
 * - Old delivers K that new delivered earlier and we held back (new is ahead): deliver K from old,
 *   switch, then deliver what new had after K.
 * A payload old delivered more than once (two identical trades in one second, an unchanged depth
 * snapshot) gives several places new may have started: each is followed until new's messages tell
 * them apart (a message none of them expects is new and ends the skipping). Only a new message
 * identical to the repeat one alignment still expects cannot be told apart.
 */

const MAX_HELD = 2000;

function keyOf(data: unknown): string {
  try {
    return JSON.stringify(data) ?? String(data);
  } catch {
    return String(data);
  }
}

export class ChannelHandover {
  private delivered: string[] = [];
  private held: Array<{ key: string; data: unknown }> = [];
  /** After the switch: per place new's stream may have started, what old delivered after it (repeats to skip). */
  private skips: string[][] = [];
  private switchedOver = false;

  get switched(): boolean {
    return this.switchedOver;
  }

  /** Nothing seen from either connection yet. */
  get idle(): boolean {
    return !this.switchedOver && this.delivered.length === 0 && this.held.length === 0;
  }

  /** Switched, and no message of the new stream is still expected to be a repeat. */
  get settled(): boolean {
    return this.switchedOver && this.skips.every((k) => k.length === 0);
  }

  /**
   * A message from the old connection. `deliver`: emit it; `then`: messages of the new connection
   * to emit right after it (the switch happened).
   */
  fromOld(data: unknown): { deliver: boolean; then?: unknown[] } {
    if (this.switchedOver) return { deliver: false };
    const key = keyOf(data);
    const at = this.held.findIndex((h) => h.key === key);
    if (at >= 0) {
      const then = this.held.slice(at + 1).map((h) => h.data);
      this.switchTo([]);
      return { deliver: true, then };
    }
    this.delivered.push(key);
    if (this.delivered.length > MAX_HELD) this.delivered.shift();
    return { deliver: true };
  }

  /** A message from the new connection: the payloads to emit now (usually none or this one). */
  fromNew(data: unknown): unknown[] {
    if (this.switchedOver) {
      if (this.skips.length === 0) return [data];
      const key = keyOf(data);
      const repeats = this.skips.filter((k) => k.length > 0 && k[0] === key);
      if (repeats.length > 0) {
        for (const k of repeats) k.shift();
        this.skips = repeats;
        return [];
      }
      this.skips = [];
      return [data];
    }
    const key = keyOf(data);
    const starts: string[][] = [];
    for (let i = 0; i < this.delivered.length; i++) if (this.delivered[i] === key) starts.push(this.delivered.slice(i + 1));
    if (starts.length > 0) {
      this.switchTo(starts);
      return [];
    }
    this.held.push({ key, data });
    if (this.held.length > MAX_HELD) return this.finish();
    return [];
  }

  /** End the handover now (timeout, or the old connection dropped): the held messages to emit. */
  finish(): unknown[] {
    if (this.switchedOver) return [];
    const out = this.held.map((h) => h.data);
    this.switchTo([]);
    return out;
  }

  private switchTo(skips: string[][]): void {
    this.switchedOver = true;
    this.skips = skips;
    this.delivered = [];
    this.held = [];
  }
}
