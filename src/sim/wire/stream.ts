/**
 * The socket.io side of the wire server: a socket.io 4 server with `allowEIO3` at `/socket.io`, so
 * both the v4 client and socket.io-client 2.5.0 connect. Clients emit `subscribe` with `{channel}`;
 * data goes out on `Broadcaster` as `(channel, data)` for `<symbol>@buyDepth`, `@sellDepth` (full
 * 50-level side snapshots, keyed-object form), `@trade`, `@marketCap`, and `all@price`. A new
 * depth or marketCap subscriber gets the current snapshot at once. Stream faults apply here.
 * The private channels `<stream_key>` and `<stream_key>@tradeDetails` are served by
 * private-stream.ts through the same `publish` (so stalls, malformed payloads and drops apply too).
 */
import type { Server as HttpServer } from 'node:http';
import { Server } from 'socket.io';
import type { Logger } from '../../core/logger.js';
import type { SimulatedExchange } from '../exchange.js';
import { MALFORMED_PAYLOAD, type FaultInjector } from '../faults.js';
import { streamDepth, streamMarketCap, streamTrade } from './format.js';
import type { DepthEvent, MarketSnapshot, PriceEvent } from '../events.js';
import type { SimTrade } from '../order-types.js';
import { followAccounts, type StreamKeys } from './private-stream.js';

/** Channel names copied from the Persian documentation can carry invisible marks: keep ASCII only. */
export function cleanChannel(raw: unknown): string | undefined {
  if (typeof raw !== 'string') return undefined;
  const s = raw.replace(/[^\x21-\x7e]/g, '');
  return s.length > 0 && s.length <= 100 ? s : undefined;
}

export function attachStream(http: HttpServer, sim: SimulatedExchange, faults: FaultInjector, logger: Logger, keys: StreamKeys): { io: Server; close(): void } {
  // Pings every 20 s, as the exchange does.
  const io = new Server(http, { path: '/socket.io', allowEIO3: true, serveClient: false, pingInterval: 20_000, pingTimeout: 20_000, cors: { origin: '*' } });

  const listening = (channel: string) => (io.sockets.adapter.rooms.get(channel)?.size ?? 0) > 0;

  function publish(channel: string, build: () => unknown): void {
    if (!listening(channel) || faults.isStalled(channel)) return;
    const data = faults.takeMalformed(channel) ? MALFORMED_PAYLOAD : build();
    io.to(channel).emit('Broadcaster', channel, data);
  }

  const onDepth = (e: DepthEvent) => publish(`${e.symbol}@${e.side === 'bid' ? 'buyDepth' : 'sellDepth'}`, () => streamDepth(e.levels));
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
  function initial(channel: string): unknown {
    const [symbol, kind] = channel.split('@');
    const m = symbol ? sim.market(symbol) : undefined;
    if (!m) return undefined;
    if (kind === 'buyDepth') return streamDepth(sim.book(m.symbol).bids);
    if (kind === 'sellDepth') return streamDepth(sim.book(m.symbol).asks);
    if (kind === 'marketCap') return streamMarketCap(sim.marketSnapshot(m.symbol), m);
    return undefined;
  }

  io.on('connection', (socket) => {
    socket.on('subscribe', (payload: unknown) => {
      const channel = cleanChannel((payload as { channel?: unknown } | null)?.channel);
      if (!channel) return;
      void socket.join(channel);
      if (faults.isStalled(channel)) return;
      const data = initial(channel);
      if (data !== undefined) socket.emit('Broadcaster', channel, faults.takeMalformed(channel) ? MALFORMED_PAYLOAD : data);
    });
    socket.on('unsubscribe', (payload: unknown) => {
      const channel = cleanChannel((payload as { channel?: unknown } | null)?.channel);
      if (channel) void socket.leave(channel);
    });
  });

  const onDrop = () => {
    logger.info('simulator fault: dropping every stream connection');
    io.disconnectSockets(true);
  };
  faults.on('drop', onDrop);

  return {
    io,
    close() {
      faults.off('drop', onDrop);
      stopPrivate();
      sim.off('depth', onDepth);
      sim.off('trade', onTrade);
      sim.off('stats', onStats);
      sim.off('price', onPrice);
      io.disconnectSockets(true);
      void io.close();
    },
  };
}
