/**
 * Replacing a connection without a gap ("make before break"): open the replacement, subscribe the
 * same channels on it, hand each channel over once the two streams overlap (ChannelHandover), then
 * close the old connection. Used before a disconnect the client knows is coming (the connection's
 * age limit, `rotateAfterMs`), or on demand (`StreamClient.rotate`). If the old connection drops
 * during the handover, the replacement (already subscribed) takes over at once; if the replacement
 * fails, the old connection simply stays.
 */
import type { ChannelInfo } from './channels.js';
import { PatientTimeout } from '../../core/timers.js';
import type { StreamConnection, Timers } from './connection.js';
import { ChannelHandover } from './handover.js';

/** What a rotation needs of a channel. */
export interface RotatingChannel {
  info: { readonly channel: string };
  conn: StreamConnection;
  /** Set while the channel moves to `next` (a rotation of its connection). */
  handover?: ChannelHandover;
  next?: StreamConnection;
}

export interface ChannelState extends RotatingChannel {
  info: ChannelInfo;
  /** Last valid message or (re)subscribe, ms: the watchdog measures silence from here. */
  since: number;
  stale: boolean;
}

export interface RotationDeps<S extends RotatingChannel = ChannelState> {
  timers: Timers;
  /** Milliseconds now: the rotation's waits count only time this process ran (PatientTimeout). */
  now(): number;
  /** Longest wait for the replacement to connect, ms (then the rotation gives up). */
  connectTimeoutMs: number;
  /** Longest wait, once the replacement is up, for every channel to overlap, ms (then it takes over anyway). */
  timeoutMs: number;
  /**
   * After the replacement is up, a channel that stayed silent on both connections this long is
   * handed over as is (a message sent before the new subscription has reached the old socket by then).
   */
  quietMs: number;
  /** Emit a payload of a channel (the normal delivery path). */
  deliver(state: S, channel: string, data: unknown): void;
  /** The rotation ended: `replaced` tells whether `next` took over. */
  done(rotation: Rotation<S>, replaced: boolean): void;
}

export class Rotation<S extends RotatingChannel = ChannelState> {
  private readonly states = new Map<string, S>();
  private readonly timer: PatientTimeout;
  private readonly quietTimer: PatientTimeout;
  private finished = false;

  constructor(
    readonly old: StreamConnection,
    readonly next: StreamConnection,
    private readonly deps: RotationDeps<S>,
  ) {
    this.timer = new PatientTimeout(deps.timers, deps.now);
    this.quietTimer = new PatientTimeout(deps.timers, deps.now);
  }

  begin(states: Iterable<S>): void {
    for (const state of states) this.add(state);
    this.timer.start(() => this.complete(), this.deps.connectTimeoutMs);
    this.next.start();
  }

  /** A channel subscribed on the old connection during the rotation. */
  add(state: S): void {
    state.handover = new ChannelHandover();
    state.next = this.next;
    this.states.set(state.info.channel, state);
    this.next.add(state.info.channel);
  }

  remove(channel: string): void {
    const state = this.states.get(channel);
    if (state === undefined) return;
    this.states.delete(channel);
    state.handover = undefined;
    state.next = undefined;
    this.next.remove(channel);
  }

  /** The replacement is up and has sent its subscriptions. */
  nextUp(): void {
    if (this.finished) return;
    this.timer.start(() => this.complete(), this.deps.timeoutMs);
    // A message the server sent on the old connection before the new subscription reached it is
    // read by then; a stall of this process does not count (the quiet is measured while it ran).
    this.quietTimer.start(() => {
      for (const state of this.states.values()) {
        if (state.handover?.idle === true) state.handover.finish();
      }
      this.check();
    }, this.deps.quietMs);
  }

  /** After a handover message: finish once every channel has switched and its repeats passed. */
  check(): void {
    if (!this.next.isUp) return;
    for (const state of this.states.values()) if (state.handover !== undefined && !state.handover.settled) return;
    this.complete();
  }

  /** Hand every channel to the replacement now (remaining held messages are delivered). */
  complete(): void {
    if (this.finished) return;
    if (!this.next.isUp) return this.abort();
    this.finished = true;
    this.timer.clear();
    this.quietTimer.clear();
    for (const [channel, state] of this.states) {
      const held = state.handover?.finish() ?? [];
      state.conn = this.next;
      state.handover = undefined;
      state.next = undefined;
      for (const data of held) this.deps.deliver(state, channel, data);
    }
    this.old.stop();
    this.deps.done(this, true);
  }

  /** Give up: the old connection keeps its channels. */
  abort(): void {
    if (this.finished) return;
    this.finished = true;
    this.timer.clear();
    this.quietTimer.clear();
    for (const state of this.states.values()) {
      state.handover = undefined;
      state.next = undefined;
    }
    this.next.stop();
    this.deps.done(this, false);
  }
}
