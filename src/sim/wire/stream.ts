/**
 * The stream side of the wire server, on both of the exchange's routes:
 *
 * - socket.io 4 with `allowEIO3` at `/socket.io`, so both the v4 client and socket.io-client 2.5.0
 *   connect. Clients emit `subscribe` with `{channel}`; data goes out on `Broadcaster` as
 *   `(channel, data)`. Depth sides are objects keyed "0", "1", … with string prices.
 * - the plain WebSocket at `/ws` (unless `ws: false`): JSON array frames, `["subscribe",
 *   {"channel": …}]` (and `unsubscribe`) in, `[channel, data]` out. Depth sides are arrays of levels
 *   with numbers. The server pings every `pingIntervalMs` (ping frames).
 *
 * Channels: `<symbol>@buyDepth`, `@sellDepth` (full 50-level side snapshots), `@trade`, `@marketCap`,
 * `all@price`; a new depth or marketCap subscriber gets the current snapshot at once. The private
 * channels `<stream_key>` and `<stream_key>@tradeDetails` are served by private-stream.ts through the
 * same `publish`, so stream faults (stalled channels, malformed messages, dropped connections) apply
 * to every channel on both routes. A malformed message is the MALFORMED_PAYLOAD string on socket.io
 * and a frame cut off inside its payload (not JSON) on `/ws`.
 *
 * The exchange's limits, with durations configurable so tests run in seconds:
 * - a connection is cut `lifetime.cutAfterMs` after it opened (30 min), plus `extendMs` (30 s) per
 *   ping answered (a pong frame on /ws, an Engine.IO heartbeat on socket.io), counting at most
 *   `maxExtensions` (100) answers;
 * - at most `maxChannelsPerConnection` (50) channels per connection: a subscribe beyond it is not
 *   served (logged).
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { Server } from 'socket.io';
import { WebSocket, WebSocketServer } from 'ws';
import type { Logger } from '../../core/logger.js';
import type { SimulatedExchange } from '../exchange.js';
import { MALFORMED_PAYLOAD, type FaultInjector } from '../faults.js';
import { streamDepth, streamDepthArray, streamMarketCap, streamTrade } from './format.js';
import type { DepthEvent, MarketSnapshot, PriceEvent } from '../events.js';
import type { SimTrade } from '../order-types.js';
import { DEFAULT_STREAM_LIFETIME, Lifetime, positiveMs, type StreamLifetime } from './stream-lifetime.js';
import { followAccounts, type StreamKeys } from './private-stream.js';

/** Channel names copied from the Persian documentation can carry invisible marks: keep ASCII only. */
function cleanChannel(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const s = raw.replace(/[^\x21-\x7e]/g, '');
  return s.length > 0 && s.length <= 100 ? s : undefined;
}

/** The payload form of a route: socket.io's keyed objects with string prices, or /ws arrays with numbers. */
type WireForm = 'socketio' | 'ws';

export interface StreamServeOptions {
  /** Serve the plain WebSocket at `/ws` (default true). */
  ws?: boolean;
  /** Ping interval of both routes, ms. Default 20 000. */
  pingIntervalMs?: number;
  /** Connection lifetime rule; `false`: connections are never cut. Default: the exchange's. */
  lifetime?: Partial<StreamLifetime> | false;
  /**
   * Channels one connection may subscribe. Default 50. The documentation's limit reads "in each
   * channel at most fifty messages can be sent", which says nothing per connection; this 50 channels
   * per connection is the reading the exchange's guidance ("keep to about 50") supports.
   */
  maxChannelsPerConnection?: number;
  /**
   * `/ws` pings as application frames `{"ping": n}` (answered `{"pong": n}`, each answer extending
   * the connection's life) instead of protocol ping frames. Default false.
   */
  appPing?: boolean;
}

export interface StreamServerStats {
  /** Connections open now, per route. */
  socketio: number;
  ws: number;
  /** Connections cut because their lifetime ran out. */
  lifetimeCuts: number;
  /** Lifetime extensions granted, one per heartbeat answered (up to `maxExtensions` per connection). */
  lifetimeExtensions: number;
  /** Subscriptions refused because the connection had its maximum of channels. */
  refusedSubscriptions: number;
}

export interface AttachedStream {
  io: Server;
  /** The plain WebSocket server (undefined when not served). */
  wss: WebSocketServer | undefined;
  stats(): StreamServerStats;
  close(): void;
}

interface WsClient {
  socket: WebSocket;
  channels: Set<string>;
  lifetime: Lifetime | undefined;
}

export function attachStream(
  http: HttpServer,
  sim: SimulatedExchange,
  faults: FaultInjector,
  logger: Logger,
  keys: StreamKeys,
  options: StreamServeOptions = {},
): AttachedStream {
  const pingIntervalMs = positiveMs('stream.pingIntervalMs', options.pingIntervalMs ?? 20_000);
  const lifetime: StreamLifetime | undefined = options.lifetime === false ? undefined : { ...DEFAULT_STREAM_LIFETIME, ...options.lifetime };
  if (lifetime) {
    positiveMs('stream.lifetime.cutAfterMs', lifetime.cutAfterMs);
    if (!Number.isFinite(lifetime.extendMs) || lifetime.extendMs < 0)
      throw new RangeError(`stream.lifetime.extendMs must be >= 0, got ${String(lifetime.extendMs)}`);
    if (!Number.isInteger(lifetime.maxExtensions) || lifetime.maxExtensions < 0)
      throw new RangeError(`stream.lifetime.maxExtensions must be an integer >= 0, got ${String(lifetime.maxExtensions)}`);
  }
  const maxChannels = options.maxChannelsPerConnection ?? 50;
  if (!Number.isInteger(maxChannels) || maxChannels < 1)
    throw new RangeError(`stream.maxChannelsPerConnection must be an integer >= 1, got ${String(maxChannels)}`);
  const serveWs = options.ws ?? true;
  const counters = { lifetimeCuts: 0, lifetimeExtensions: 0, refusedSubscriptions: 0 };
  const extend = (life: Lifetime | undefined): void => {
    if (life?.answer()) counters.lifetimeExtensions++;
  };

  // Pings every 20 s by default, as the exchange does.
  const io = new Server(http, {
    path: '/socket.io',
    allowEIO3: true,
    serveClient: false,
    pingInterval: pingIntervalMs,
    pingTimeout: Math.max(pingIntervalMs, 5_000),
    cors: { origin: '*' },
  });
  const wsRooms = new Map<string, Set<WsClient>>();
  const wsClients = new Set<WsClient>();

  const ioListening = (channel: string) => (io.sockets.adapter.rooms.get(channel)?.size ?? 0) > 0;

  /** Send one message of `channel` to its subscribers on both routes. */
  function publish(channel: string, build: (form: WireForm) => unknown): void {
    const onIo = ioListening(channel);
    const wsRoom = wsRooms.get(channel);
    const onWs = wsRoom !== undefined && wsRoom.size > 0;
    if ((!onIo && !onWs) || faults.isStalled(channel)) return;
    const malformed = faults.takeMalformed(channel);
    if (onIo) io.to(channel).emit('Broadcaster', channel, malformed ? MALFORMED_PAYLOAD : build('socketio'));
    if (onWs) {
      const frame = malformed ? malformedFrame(channel) : JSON.stringify([channel, build('ws')]);
      for (const c of wsRoom) if (c.socket.readyState === WebSocket.OPEN) c.socket.send(frame);
    }
  }

  const depthChannel = (e: DepthEvent) => `${e.symbol}@${e.side === 'bid' ? 'buyDepth' : 'sellDepth'}`;
  const onDepth = (e: DepthEvent) => publish(depthChannel(e), (form) => (form === 'ws' ? streamDepthArray(e.levels) : streamDepth(e.levels)));
  const onTrade = (t: SimTrade) => publish(`${t.symbol}@trade`, () => streamTrade(t));
  const onStats = (s: MarketSnapshot) => {
    const m = sim.market(s.symbol);
    if (m) publish(`${s.symbol}@marketCap`, () => streamMarketCap(s, m));
  };
  const onPrice = (p: PriceEvent) => publish('all@price', () => ({ symbol: p.symbol, price: p.price.toFixed(), '24h_ch': p.change24h }));
  sim.on('depth', onDepth);
  sim.on('trade', onTrade);
  sim.on('stats', onStats);
  sim.on('price', onPrice);
  const stopPrivate = followAccounts(sim, keys, publish);

  /** What a new subscriber of a depth or statistics channel gets right away. */
  function initial(channel: string, form: WireForm): unknown {
    const [symbol, kind] = channel.split('@');
    const m = symbol ? sim.market(symbol) : undefined;
    if (!m) return undefined;
    const depth = form === 'ws' ? streamDepthArray : streamDepth;
    if (kind === 'buyDepth') return depth(sim.book(m.symbol).bids);
    if (kind === 'sellDepth') return depth(sim.book(m.symbol).asks);
    if (kind === 'marketCap') return streamMarketCap(sim.marketSnapshot(m.symbol), m);
    return undefined;
  }

  /** Whether a connection holding `channels` may add `channel` (logs a refusal). */
  function admit(channels: Set<string>, channel: string, route: WireForm): boolean {
    if (channels.has(channel) || channels.size < maxChannels) return true;
    counters.refusedSubscriptions++;
    logger.warn(
      { route, channel: channel.includes('@') ? channel : '<stream_key>', max: maxChannels },
      'simulator stream: subscription refused, the connection has its maximum of channels',
    );
    return false;
  }

  const cutLogged = (route: WireForm) => () => {
    counters.lifetimeCuts++;
    logger.info({ route }, 'simulator stream: connection lifetime over, cut');
  };

  // ------------------------------------------------------------------------------- socket.io
  io.on('connection', (socket) => {
    const channels = new Set<string>();
    const life = lifetime
      ? new Lifetime(lifetime, () => {
          cutLogged('socketio')();
          socket.disconnect(true);
        })
      : undefined;
    socket.conn.on('heartbeat', () => extend(life));
    socket.on('disconnect', () => life?.stop());
    socket.on('subscribe', (payload: unknown) => {
      const channel = cleanChannel((payload as { channel?: unknown } | null)?.channel);
      if (!channel || !admit(channels, channel, 'socketio')) return;
      channels.add(channel);
      void socket.join(channel);
      if (faults.isStalled(channel)) return;
      const data = initial(channel, 'socketio');
      if (data !== undefined) socket.emit('Broadcaster', channel, faults.takeMalformed(channel) ? MALFORMED_PAYLOAD : data);
    });
    socket.on('unsubscribe', (payload: unknown) => {
      const channel = cleanChannel((payload as { channel?: unknown } | null)?.channel);
      if (!channel) return;
      channels.delete(channel);
      void socket.leave(channel);
    });
  });

  // ------------------------------------------------------------------------------- /ws
  let wss: WebSocketServer | undefined;
  let pinger: ReturnType<typeof setInterval> | undefined;
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== '/ws') return; // socket.io's own upgrade handler takes /socket.io/
    if (wss === undefined) {
      // Not served: answer as a server without the route does.
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    const server = wss;
    server.handleUpgrade(req, socket, head, (ws) => server.emit('connection', ws, req));
  };
  http.on('upgrade', onUpgrade);

  function leaveAll(client: WsClient): void {
    for (const ch of client.channels) {
      const room = wsRooms.get(ch);
      room?.delete(client);
      if (room?.size === 0) wsRooms.delete(ch);
    }
    client.channels.clear();
  }

  function onFrame(client: WsClient, raw: string): void {
    let frame: unknown;
    try {
      frame = JSON.parse(raw);
    } catch {
      return; // the exchange documents no error frame: a bad frame is ignored
    }
    if (frame !== null && typeof frame === 'object' && !Array.isArray(frame) && 'pong' in frame) return void extend(client.lifetime);
    if (!Array.isArray(frame) || typeof frame[0] !== 'string') return;
    const channel = cleanChannel((frame[1] as { channel?: unknown } | null)?.channel);
    if (!channel) return;
    if (frame[0] === 'subscribe') {
      if (!admit(client.channels, channel, 'ws')) return;
      client.channels.add(channel);
      let room = wsRooms.get(channel);
      if (room === undefined) wsRooms.set(channel, (room = new Set()));
      room.add(client);
      if (faults.isStalled(channel)) return;
      const data = initial(channel, 'ws');
      if (data !== undefined) client.socket.send(faults.takeMalformed(channel) ? malformedFrame(channel) : JSON.stringify([channel, data]));
    } else if (frame[0] === 'unsubscribe') {
      client.channels.delete(channel);
      const room = wsRooms.get(channel);
      room?.delete(client);
      if (room?.size === 0) wsRooms.delete(channel);
    }
  }

  if (serveWs) {
    wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 64 * 1024 });
    wss.on('connection', (socket: WebSocket) => {
      const client: WsClient = { socket, channels: new Set(), lifetime: undefined };
      client.lifetime = lifetime
        ? new Lifetime(lifetime, () => {
            cutLogged('ws')();
            socket.close(1000, 'connection lifetime over');
            setTimeout(() => socket.terminate(), 1000).unref();
          })
        : undefined;
      wsClients.add(client);
      socket.on('pong', () => extend(client.lifetime));
      socket.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
        if (isBinary) return;
        onFrame(client, Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8'));
      });
      socket.on('close', () => {
        client.lifetime?.stop();
        leaveAll(client);
        wsClients.delete(client);
      });
      socket.on('error', (err) => logger.debug({ err: err.message }, 'simulator stream: /ws connection error'));
    });
    let pingSeq = 0;
    pinger = setInterval(() => {
      const frame = options.appPing ? JSON.stringify({ ping: ++pingSeq }) : undefined;
      for (const c of wsClients)
        if (c.socket.readyState !== WebSocket.OPEN) continue;
        else if (frame) c.socket.send(frame);
        else c.socket.ping();
    }, pingIntervalMs);
    pinger.unref();
  }

  const onDrop = () => {
    logger.info('simulator fault: dropping every stream connection');
    io.disconnectSockets(true);
    for (const c of [...wsClients]) {
      leaveAll(c);
      c.lifetime?.stop();
      c.socket.terminate();
    }
  };
  faults.on('drop', onDrop);

  return {
    io,
    wss,
    stats: () => ({ socketio: io.sockets.sockets.size, ws: wsClients.size, ...counters }),
    close() {
      faults.off('drop', onDrop);
      http.off('upgrade', onUpgrade);
      clearInterval(pinger);
      stopPrivate();
      sim.off('depth', onDepth);
      sim.off('trade', onTrade);
      sim.off('stats', onStats);
      sim.off('price', onPrice);
      io.disconnectSockets(true);
      void io.close();
      for (const c of [...wsClients]) {
        c.lifetime?.stop();
        c.socket.terminate();
      }
      wsClients.clear();
      wsRooms.clear();
      wss?.close();
    },
  };
}

/** A `[channel, payload]` frame cut off inside its payload: not JSON. */
function malformedFrame(channel: string): string {
  return `[${JSON.stringify(channel)},${MALFORMED_PAYLOAD}`;
}
