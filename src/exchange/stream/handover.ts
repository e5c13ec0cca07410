/**
 * Make-before-break, per channel. While a connection is replaced, the channel is subscribed on
 * both: the old connection stays authoritative until the new one's stream is placed in it, then the
 * new one takes over, so the strategy sees no gap and no message twice.
 *
 * Both sockets sit in the same room of the same server, so they receive the same messages in the
 * same order: the new one's stream is the server's from some place on, and the old one's runs up to
 * where it is read. A message is identified by its content (JSON text: only during a handover, never
 * on the normal message path). The places new's stream may start at are the messages old delivered
 * that agree with everything new has sent so far (each message of new where old has one to compare).
 * - One place left, confirmed (the streams agree there on a second payload, and old delivered
 *   something after new's first message came: until then new may as well be ahead of everything
 *   old delivered, its first message a repeat of a payload old has yet to read): switch. What new
 *   sent beyond what old delivered is emitted (new is ahead); what old delivered beyond what new
 *   sent is skipped when new sends it (old is ahead).
 * - Several (a trade printed twice in one second, an unchanged depth snapshot): old stays the source
 *   and new's messages are held until the streams tell the places apart, from either side.
 * - None: new is ahead of everything old delivered; old's next messages place it.
 * `finish()` (the rotation's timeout, or old dropped) takes the place where both streams end
 * closest together.
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
  /** Keys old delivered during the handover, in order. */
  private delivered: string[] = [];
  private held: Array<{ key: string; data: unknown }> = [];
  /** Indexes into `delivered` where new's stream may start (agreeing with every held message). */
  private places: number[] = [];
  /** The places a message compared beyond the first matched (a place the streams agree on more than one payload). */
  private confirmed = new Set<number>();
  /** How many messages old had delivered when new's first one came. */
  private firstAt = 0;
  /** After the switch: what old delivered that new has yet to send (repeats to skip). */
  private skips: string[] = [];
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
    return this.switchedOver && this.skips.length === 0;
  }

  /**
   * A message from the old connection. `deliver`: emit it; `then`: messages of the new connection
   * to emit right after it (the switch happened).
   */
  fromOld(data: unknown): { deliver: boolean; then?: unknown[] } {
    if (this.switchedOver) return { deliver: false };
    const key = keyOf(data);
    const d = this.delivered.length;
    this.delivered.push(key);
    if (this.held.length === 0) {
      // New has sent nothing: no place to keep, only a bounded history to place it in later.
      if (this.delivered.length > MAX_HELD) this.delivered.shift();
      return { deliver: true };
    }
    // Each place compares this message with the held one at the same position of the stream.
    this.places = this.places.filter((p) => this.agrees(p, d - p));
    if (this.held[0]!.key === key) this.places.push(d);
    if (this.placed()) return { deliver: true, then: this.switchAt(this.places[0]!) };
    if (this.delivered.length > MAX_HELD) return { deliver: true, then: this.finish() };
    return { deliver: true };
  }

  /** A message from the new connection: the payloads to emit now (usually none or this one). */
  fromNew(data: unknown): unknown[] {
    if (this.switchedOver) {
      if (this.skips.length === 0) return [data];
      if (this.skips[0] === keyOf(data)) {
        this.skips.shift();
        return [];
      }
      // Not the repeat expected: the streams were misplaced; nothing more is taken for a repeat.
      this.skips = [];
      return [data];
    }
    const key = keyOf(data);
    const h = this.held.length;
    this.held.push({ key, data });
    if (h === 0) {
      this.firstAt = this.delivered.length;
      for (let i = 0; i < this.delivered.length; i++) if (this.delivered[i] === key) this.places.push(i);
    } else {
      this.places = this.places.filter((p) => this.agrees(p, h));
    }
    if (this.placed()) return this.switchAt(this.places[0]!);
    if (this.held.length > MAX_HELD) return this.finish();
    return [];
  }

  /** End the handover now (timeout, or the old connection dropped): the held messages to emit. */
  finish(): unknown[] {
    if (this.switchedOver) return [];
    if (this.places.length === 0) {
      // New is ahead of everything old delivered (or sent nothing): all of it is new.
      const out = this.held.map((h) => h.data);
      this.switchTo([]);
      return out;
    }
    // Still ambiguous: the place where both streams end closest together (the later one on a tie).
    const gap = (p: number) => Math.abs(p + this.held.length - this.delivered.length);
    let best = this.places[0]!;
    for (const p of this.places) if (gap(p) <= gap(best)) best = p;
    return this.switchAt(best);
  }

  /**
   * New's place is known: one place left, and old has delivered something since new's first message
   * came. Until then new may also be ahead of everything old delivered (its first message a repeat of
   * a payload old is still to deliver: two identical prints, old having read only the first).
   */
  private placed(): boolean {
    return this.places.length === 1 && this.confirmed.has(this.places[0]!) && this.delivered.length > this.firstAt;
  }

  /** Whether place `p` agrees at position `i` of new's stream: the two connections' messages there are the same (one missing yet: it does). */
  private agrees(p: number, i: number): boolean {
    if (i >= this.held.length || p + i >= this.delivered.length) return true;
    if (this.held[i]!.key !== this.delivered[p + i]) return false;
    if (i > 0) this.confirmed.add(p);
    return true;
  }

  /** Switch with new's stream starting at `delivered[p]`: new's messages past old's, to emit now. */
  private switchAt(p: number): unknown[] {
    const seen = this.delivered.length - p; // messages of new's stream old delivered
    const out = this.held.slice(seen).map((h) => h.data);
    this.switchTo(this.delivered.slice(p + this.held.length));
    return out;
  }

  private switchTo(skips: string[]): void {
    this.switchedOver = true;
    this.skips = skips;
    this.delivered = [];
    this.held = [];
    this.places = [];
    this.confirmed.clear();
  }
}
