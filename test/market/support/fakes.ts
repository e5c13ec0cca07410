/** Test doubles for the market-data ports: manual timers on a ManualClock, fake depth source, fake stream. */
import { EventEmitter } from 'eventemitter3';
import { ManualClock } from '../../../src/core/clock.js';
import type { BookSide, DepthSource, RawDepth, RawLevel, StreamEvents, StreamPort, Timers } from '../../../src/market/ports.js';

interface Timer {
  id: number;
  at: number;
  fn: () => void;
  every?: number;
}

/** Timers that fire only when `advance` moves the clock past them (in time order). */
export class ManualTimers implements Timers {
  private timers: Timer[] = [];
  private next = 1;
  constructor(readonly clock: ManualClock) {}

  setTimeout(fn: () => void, ms: number): unknown {
    const t = { id: this.next++, at: this.clock.now() + Math.max(0, ms), fn };
    this.timers.push(t);
    return t.id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }
  setInterval(fn: () => void, ms: number): unknown {
    const t = { id: this.next++, at: this.clock.now() + ms, fn, every: ms };
    this.timers.push(t);
    return t.id;
  }
  clearInterval(handle: unknown): void {
    this.clearTimeout(handle);
  }
  get count(): number {
    return this.timers.length;
  }

  /** Move the clock by `ms`, firing due timers in order and letting promises settle between them. */
  async advance(ms: number): Promise<void> {
    const end = this.clock.now() + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      if (due.at > this.clock.now()) this.clock.set(due.at);
      if (due.every) due.at += due.every;
      else this.timers = this.timers.filter((t) => t !== due);
      due.fn();
    }
    this.clock.set(end);
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

export function side(side: BookSide, best: number, n = 5, step = 1, qty = 1): RawLevel[] {
  return Array.from({ length: n }, (_, i) => ({
    price: String(side === 'bid' ? best - i * step : best + i * step),
    quantity: qty + i,
  }));
}

export function depth(bid: number, ask: number, n = 5): RawDepth {
  return { bids: side('bid', bid, n), asks: side('ask', ask, n) };
}

/** A DepthSource serving a settable book per symbol; can be made to fail; counts calls. */
export class FakeDepthSource implements DepthSource {
  books = new Map<string, RawDepth>();
  calls: string[] = [];
  allCalls = 0;
  failing = false;
  /** When set, requests wait for `release()`. */
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;

  getAllDepths?: () => Promise<Record<string, RawDepth>>;

  constructor(withAll = false) {
    if (withAll) this.getAllDepths = () => this.all();
  }

  hold(): void {
    this.gate = new Promise((r) => (this.open = r));
  }
  release(): void {
    this.open?.();
    this.gate = undefined;
  }

  async getDepth(symbol: string): Promise<RawDepth> {
    this.calls.push(symbol);
    if (this.gate) await this.gate;
    if (this.failing) throw new Error('exchange unavailable (test)');
    const b = this.books.get(symbol);
    if (!b) throw new Error(`no book for ${symbol}`);
    return b;
  }

  private async all(): Promise<Record<string, RawDepth>> {
    this.allCalls++;
    if (this.gate) await this.gate;
    if (this.failing) throw new Error('exchange unavailable (test)');
    return Object.fromEntries(this.books);
  }
}

/** A StreamPort double: tests call `emit` as the stream client would. */

export class FakeStream extends EventEmitter<StreamEvents> implements StreamPort {
  subscribed: string[] = [];
  unsubscribed: string[] = [];
  subscribe(channel: string): void {
    this.subscribed.push(channel);
  }
  unsubscribe(channel: string): void {
    this.unsubscribed.push(channel);
  }
}
