/**
 * Fault injection for the wire server, switched on by config or by the admin route
 * `/__sim/faults`: drop every stream connection, stall a channel, answer the next N requests with
 * 429 / 500 / 503, add latency, send malformed stream messages, and execute an order but never
 * answer (the client times out although the order exists).
 */
import { EventEmitter } from 'eventemitter3';

export type FailStatus = 429 | 500 | 503;

export interface FaultConfig {
  /** Added before every REST answer, in milliseconds. */
  latencyMs?: number;
  /** Answer the next `count` REST requests with `status`. */
  failNext?: { status: FailStatus; count: number };
  /** Channels that receive nothing while stalled. */
  stalledChannels?: string[];
  /** Replace the next `count` stream messages (of `channel`, or of any channel) with malformed ones. */
  malformed?: { count: number; channel?: string };
  /** Execute the next `count` order calls but never send their response. */
  loseOrderResponses?: number;
}

export interface FaultState {
  latencyMs: number;
  failNext: { status: FailStatus; count: number } | null;
  stalledChannels: string[];
  malformed: { count: number; channel: string | null } | null;
  loseOrderResponses: number;
  droppedConnections: number;
}

/** What a malformed depth message carries: not an object of levels, and a price that is no number. */
export const MALFORMED_PAYLOAD = '{"0":{"price":"not-a-number","quantity":';

const FAIL_STATUSES = new Set([429, 500, 503]);

export class FaultInjector extends EventEmitter<{ drop: () => void }> {
  private latency = 0;
  private fail: { status: FailStatus; count: number } | null = null;
  private readonly stalled = new Set<string>();
  private malformed: { count: number; channel: string | null } | null = null;
  private lose = 0;
  private drops = 0;

  constructor(config: FaultConfig = {}) {
    super();
    this.configure(config);
  }

  /** Apply the given settings (others stay as they are). Throws RangeError naming a bad value. */
  configure(c: FaultConfig): void {
    if (c.latencyMs !== undefined) {
      if (!Number.isFinite(c.latencyMs) || c.latencyMs < 0) throw new RangeError(`latencyMs must be a non-negative number, got ${String(c.latencyMs)}`);
      this.latency = c.latencyMs;
    }
    if (c.failNext !== undefined) {
      if (!FAIL_STATUSES.has(c.failNext.status)) throw new RangeError(`failNext.status must be 429, 500 or 503, got ${String(c.failNext.status)}`);
      if (!Number.isInteger(c.failNext.count) || c.failNext.count < 0)
        throw new RangeError(`failNext.count must be a non-negative integer, got ${String(c.failNext.count)}`);
      this.fail = c.failNext.count > 0 ? { ...c.failNext } : null;
    }
    if (c.stalledChannels !== undefined) {
      this.stalled.clear();
      for (const ch of c.stalledChannels) this.stalled.add(ch);
    }
    if (c.malformed !== undefined) {
      if (!Number.isInteger(c.malformed.count) || c.malformed.count < 0)
        throw new RangeError(`malformed.count must be a non-negative integer, got ${String(c.malformed.count)}`);
      this.malformed = c.malformed.count > 0 ? { count: c.malformed.count, channel: c.malformed.channel ?? null } : null;
    }
    if (c.loseOrderResponses !== undefined) {
      if (!Number.isInteger(c.loseOrderResponses) || c.loseOrderResponses < 0) {
        throw new RangeError(`loseOrderResponses must be a non-negative integer, got ${String(c.loseOrderResponses)}`);
      }
      this.lose = c.loseOrderResponses;
    }
  }

  stall(channel: string, on = true): void {
    if (on) this.stalled.add(channel);
    else this.stalled.delete(channel);
  }

  /** Disconnect every stream client now. */
  dropConnections(): void {
    this.drops++;
    this.emit('drop');
  }

  reset(): void {
    this.latency = 0;
    this.fail = null;
    this.stalled.clear();
    this.malformed = null;
    this.lose = 0;
  }

  get latencyMs(): number {
    return this.latency;
  }

  /** The status to answer this request with, if a failure is pending (counts it). */
  takeFailure(): FailStatus | undefined {
    if (!this.fail) return undefined;
    const status = this.fail.status;
    if (--this.fail.count <= 0) this.fail = null;
    return status;
  }

  isStalled(channel: string): boolean {
    return this.stalled.has(channel);
  }

  /** True when this message of `channel` must be sent malformed (counts it). */
  takeMalformed(channel: string): boolean {
    if (!this.malformed || (this.malformed.channel !== null && this.malformed.channel !== channel)) return false;
    if (--this.malformed.count <= 0) this.malformed = null;
    return true;
  }

  /** True when this order call's response must be lost (counts it). */
  takeLostResponse(): boolean {
    if (this.lose <= 0) return false;
    this.lose--;
    return true;
  }

  state(): FaultState {
    return {
      latencyMs: this.latency,
      failNext: this.fail ? { ...this.fail } : null,
      stalledChannels: [...this.stalled],
      malformed: this.malformed ? { ...this.malformed } : null,
      loseOrderResponses: this.lose,
      droppedConnections: this.drops,
    };
  }
}
