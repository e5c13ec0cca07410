/** StreamClient options: what a caller may set, the defaults, and validation. */
import { type Clock, SystemClock } from '../../core/clock.js';
import { ParameterError } from '../../core/errors.js';
import { type Logger, silentLogger } from '../../core/logger.js';
import type { BackoffOptions } from './backoff.js';
import type { ChannelKind } from './channels.js';
import { EXCHANGE_LIFETIME, type LifetimeRule, type Timers } from './connection.js';
import { parseTransportSetting, type StreamProtocol, type StreamTransportSetting } from './transport.js';

export interface StreamClientOptions {
  /** Base URL, e.g. `https://api.wallex.ir` or `http://127.0.0.1:8080`. */
  url: string;
  /**
   * `ws`: the plain WebSocket at `<url>/ws`; `socketio`: socket.io at `<url>/socket.io`; `auto`
   * (default): `ws`, and socket.io when the plain WebSocket cannot connect.
   */
  transport?: StreamTransportSetting;
  /** socket.io only. 4: socket.io-client 4.x (default); 3: socket.io-client 2.5.0 (Engine.IO 3). */
  protocol?: StreamProtocol;
  /** socket.io path. Default `/socket.io`. */
  path?: string;
  /** Plain WebSocket path. Default `/ws`. */
  wsPath?: string;
  /** Default `['websocket']`. */
  transports?: string[];
  /** Default 50 (the exchange's guidance). */
  maxChannelsPerConnection?: number;
  /** Backoff, plus `stableAfterMs` (default 5000): uptime after which the attempt count resets. */
  reconnect?: BackoffOptions & { stableAfterMs?: number };
  /** Handshake timeout, ms. Default 10 000. */
  connectTimeoutMs?: number;
  /** Silence, per kind, after which a channel is stale and resubscribed. */
  staleAfterMs?: Partial<Record<ChannelKind, number>>;
  /** How often the watchdog looks. Default: a quarter of the shortest limit, within 50..1000 ms. */
  watchdogIntervalMs?: number;
  /**
   * Replace each connection after this long, make-before-break (no gap, no duplicate), ahead of a
   * server that closes connections at a known age. Default: off.
   */
  rotateAfterMs?: number;
  /** Longest the overlap of a rotation may take once the replacement is up, ms (connecting is bounded by connectTimeoutMs). Default 5000. */
  handoverTimeoutMs?: number;
  /**
   * The server's connection lifetime rule (default: the exchange's, 30 min + 30 s per ping
   * answered, at most 100 answers); `false` turns tracking off. Each connection is replaced
   * make-before-break `lifetimeLeadMs` before its deadline.
   */
  lifetime?: Partial<LifetimeRule> | false;
  /** How long before the cut a connection is replaced, ms. Default min(60 000, cutAfterMs / 4). */
  lifetimeLeadMs?: number;
  /** Parse the `sum` of depth levels too (one more Decimal per level). Default false. */
  depthSums?: boolean;
  clock?: Clock;
  logger?: Logger;
  timers?: Timers;
  /** Random source of the jitter (tests). */
  random?: () => number;
}

export const DEFAULT_STALE_AFTER_MS: Readonly<Record<ChannelKind, number>> = {
  depth: 10_000,
  trade: 60_000,
  marketCap: 60_000,
  price: 30_000,
};

export const defaultTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout> | undefined),
};

export interface ResolvedStreamOptions {
  url: string;
  transport: StreamTransportSetting;
  protocol: StreamProtocol;
  path: string;
  wsPath: string;
  transports: string[];
  maxChannelsPerConnection: number;
  reconnect: BackoffOptions & { stableAfterMs?: number };
  connectTimeoutMs: number;
  staleAfterMs: Record<ChannelKind, number>;
  watchdogIntervalMs: number;
  rotateAfterMs: number | undefined;
  handoverTimeoutMs: number;
  lifetime: LifetimeRule | undefined;
  lifetimeLeadMs: number;
  depthSums: boolean;
  clock: Clock;
  logger: Logger;
  timers: Timers;
  random: (() => number) | undefined;
}

function positive(field: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !(v > 0) || !Number.isFinite(v)) throw new ParameterError(field, value, 'a number of ms > 0');
  return v;
}

/** Fill in defaults; throws ParameterError naming the field for a bad value. */
export function resolveOptions(options: StreamClientOptions): ResolvedStreamOptions {
  if (typeof options.url !== 'string' || !/^(https?|wss?):\/\//.test(options.url)) {
    throw new ParameterError('url', options.url, 'an http(s) or ws(s) URL');
  }
  const protocol = options.protocol ?? 4;
  if (protocol !== 3 && protocol !== 4) throw new ParameterError('protocol', protocol, '3 or 4');
  const max = options.maxChannelsPerConnection ?? 50;
  if (!Number.isInteger(max) || max < 1) throw new ParameterError('maxChannelsPerConnection', max, 'an integer >= 1');
  const staleAfterMs = { ...DEFAULT_STALE_AFTER_MS, ...options.staleAfterMs };
  for (const [kind, ms] of Object.entries(staleAfterMs)) positive(`staleAfterMs.${kind}`, ms, 1);
  const shortest = Math.min(...Object.values(staleAfterMs));
  const lifetime = resolveLifetime(options.lifetime);
  const wsPath = options.wsPath ?? '/ws';
  if (typeof wsPath !== 'string' || !wsPath.startsWith('/')) throw new ParameterError('wsPath', wsPath, 'a path starting with /');
  return {
    url: options.url,
    transport: parseTransportSetting(options.transport ?? 'auto'),
    protocol,
    path: options.path ?? '/socket.io',
    wsPath,
    transports: options.transports ?? ['websocket'],
    maxChannelsPerConnection: max,
    reconnect: options.reconnect ?? {},
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs, 10_000),
    staleAfterMs,
    watchdogIntervalMs: positive('watchdogIntervalMs', options.watchdogIntervalMs, Math.min(1000, Math.max(50, Math.floor(shortest / 4)))),
    rotateAfterMs: options.rotateAfterMs === undefined ? undefined : positive('rotateAfterMs', options.rotateAfterMs, 1),
    handoverTimeoutMs: positive('handoverTimeoutMs', options.handoverTimeoutMs, 5000),
    lifetime,
    lifetimeLeadMs: positive('lifetimeLeadMs', options.lifetimeLeadMs, Math.min(60_000, (lifetime?.cutAfterMs ?? 240_000) / 4)),
    depthSums: options.depthSums ?? false,
    clock: options.clock ?? new SystemClock(),
    logger: options.logger ?? silentLogger,
    timers: options.timers ?? defaultTimers,
    random: options.random,
  };
}

/** The lifetime rule with defaults filled in; undefined when tracking is off. */
export function resolveLifetime(value: Partial<LifetimeRule> | false | undefined): LifetimeRule | undefined {
  if (value === false) return undefined;
  const rule = { ...EXCHANGE_LIFETIME, ...value };
  positive('lifetime.cutAfterMs', rule.cutAfterMs, 1);
  if (!Number.isFinite(rule.extendMs) || rule.extendMs < 0) throw new ParameterError('lifetime.extendMs', rule.extendMs, 'a number of ms >= 0');
  if (!Number.isInteger(rule.maxExtensions) || rule.maxExtensions < 0)
    throw new ParameterError('lifetime.maxExtensions', rule.maxExtensions, 'an integer >= 0');
  return rule;
}
