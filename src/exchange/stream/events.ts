/** The StreamClient's events and statistics. */
import type { BookLevel, MarketStats, PriceTick, PublicTrade } from '../../core/types/market.js';
import type { DepthSide } from './channels.js';
import type { MalformedKind } from './malformed.js';
import type { RawDepthLevel } from './parse.js';

type StaleReason = 'silent' | 'disconnected';

export interface StreamClientEvents {
  /** Every payload of a subscribed channel, raw, before parsing. */
  message: (channel: string, data: unknown) => void;
  /** A full snapshot of one side: bids high to low, asks low to high. */
  depth: (symbol: string, side: DepthSide, levels: BookLevel[]) => void;
  /**
   * The same snapshot with its levels unparsed (shape-checked only); emitted only while someone
   * listens. The market-data engine listens to this one: its book parses the numbers itself.
   */
  depthRaw: (symbol: string, side: DepthSide, levels: RawDepthLevel[]) => void;
  trade: (trade: PublicTrade) => void;
  marketCap: (symbol: string, stats: MarketStats) => void;
  price: (tick: PriceTick) => void;
  /** The channel's data can no longer be trusted to be current. */
  channelStale: (channel: string, reason: StaleReason) => void;
  /** First valid message after subscribe or after stale (emitted after the typed event). */
  channelFresh: (channel: string) => void;
  connectionDown: (connIndex: number, reason: string) => void;
  connectionUp: (connIndex: number) => void;
  /** `subscribe` sent again: all channels of a reconnected connection, or silent channels. */
  resubscribed: (channels: string[]) => void;
  malformed: (kind: MalformedKind, detail: string) => void;
  reconnectScheduled: (connIndex: number, attempt: number, delayMs: number) => void;
  /** A make-before-break rotation ended; `replaced` false when the old connection stayed. */
  rotated: (connIndex: number, replaced: boolean) => void;
}

export interface StreamStats {
  /** `Broadcaster` events received. */
  messages: number;
  /** Messages for channels not subscribed (any more) on that connection. */
  ignored: number;
  malformed: Partial<Record<MalformedKind, number>>;
  malformedTotal: number;
  /** Reconnect attempts scheduled. */
  reconnects: number;
  /** Channel subscriptions sent again (after a reconnect, or by the watchdog). */
  resubscribes: number;
  /** Exceptions thrown by listeners (logged, never thrown into the socket). */
  listenerErrors: number;
  channels: number;
  staleChannels: number;
  /** Connections open or reconnecting. */
  connections: number;
  connectionsUp: number;
}
