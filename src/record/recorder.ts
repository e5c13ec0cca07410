/**
 * The recorder behind `mizan record`: subscribes each market's depth sides, trades and stats on the
 * project's StreamClient (its rotation before the exchange's 30-minute cut included), writes every
 * payload as received with its receive time, a REST depth snapshot (the body as received) at start
 * and after each reconnect, and a gap for each connection drop (from the drop until every connection
 * is back).
 */
import type { Logger } from '../core/logger.js';
import { StreamClient } from '../exchange/stream/client.js';
import type { StreamProtocol, StreamTransportSetting } from '../exchange/stream/transport.js';
import type { RecordSource } from './format.js';
import { RecordingWriter } from './writer.js';

export interface RecorderOptions {
  url: string;
  streamUrl?: string;
  transport: StreamTransportSetting;
  protocol: StreamProtocol;
  markets: readonly string[];
  out: string;
  logger: Logger;
  /** How often buffered lines are appended (ms). Default 1000. */
  flushMs?: number;
  /** Replace each stream connection make-before-break after this long (ms), besides before the exchange's cut. */
  rotateAfterMs?: number;
  /** Channels on one stream connection (`exchange.stream.maxChannelsPerConnection`). Default 50. */
  maxChannelsPerConnection?: number;
}

export class Recorder {
  private writer?: RecordingWriter;
  private stream?: StreamClient;
  private flushTimer?: ReturnType<typeof setInterval>;
  private downSince?: number;
  /** Stream connections down now (their index). */
  private readonly down = new Set<number>();

  constructor(private readonly o: RecorderOptions) {}

  get stats(): { events: number; bytes: number } {
    return this.writer?.stats ?? { events: 0, bytes: 0 };
  }

  async start(): Promise<void> {
    const o = this.o;
    const w = (this.writer = await RecordingWriter.open(o.out, o.markets));
    const stream = (this.stream = new StreamClient({
      url: o.streamUrl ?? o.url,
      transport: o.transport,
      protocol: o.protocol,
      ...(o.rotateAfterMs !== undefined ? { rotateAfterMs: o.rotateAfterMs } : {}),
      ...(o.maxChannelsPerConnection !== undefined ? { maxChannelsPerConnection: o.maxChannelsPerConnection } : {}),
      logger: o.logger.child({ component: 'stream' }),
    }));
    const src = (): RecordSource => (stream.transport === 'socketio' ? 'socketio' : 'ws');
    stream.on('message', (channel, data) => {
      const at = channel.lastIndexOf('@');
      const market = channel.slice(0, at);
      const kind = channel.slice(at + 1);
      const t = Date.now();
      if (kind === 'buyDepth' || kind === 'sellDepth') w.write(market, { t, k: 'depth', src: src(), side: kind === 'buyDepth' ? 'buy' : 'sell', d: data });
      else if (kind === 'trade') w.write(market, { t, k: 'trade', src: src(), d: data });
      else if (kind === 'marketCap') w.write(market, { t, k: 'stats', src: src(), d: data });
    });
    // A gap lasts from the first connection down until every connection is back (each market's
    // connection is not known here: every market gets the gap).
    stream.on('connectionDown', (i, reason) => {
      this.down.add(i);
      this.downSince ??= Date.now();
      o.logger.warn({ reason }, 'record: stream connection down');
    });
    stream.on('connectionUp', (i) => {
      this.down.delete(i);
      if (this.downSince === undefined || this.down.size > 0) return;
      const start = this.downSince;
      this.downSince = undefined;
      const end = Date.now();
      for (const m of o.markets) w.gap(m, start, end, 'reconnect');
      void this.snapshots();
    });
    for (const m of o.markets) {
      stream.subscribe(`${m}@buyDepth`);
      stream.subscribe(`${m}@sellDepth`);
      stream.subscribe(`${m}@trade`);
      stream.subscribe(`${m}@marketCap`);
    }
    await this.snapshots();
    await stream.connect();
    this.flushTimer = setInterval(() => w.flush(), o.flushMs ?? 1000);
  }

  /** One REST depth snapshot per market, the body as received. */
  private async snapshots(): Promise<void> {
    await Promise.all(
      this.o.markets.map(async (m) => {
        try {
          const res = await fetch(`${this.o.url.replace(/\/$/, '')}/v1/depth?symbol=${encodeURIComponent(m)}`);
          const d: unknown = await res.json();
          if (!res.ok) throw new Error(`HTTP ${res.status}`);
          this.writer?.write(m, { t: Date.now(), k: 'snapshot', src: 'rest', d });
        } catch (err) {
          this.o.logger.warn({ market: m, err: (err as Error).message }, 'record: REST depth snapshot failed');
        }
      }),
    );
  }

  stop(): void {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.stream?.close();
    this.writer?.close();
  }
}
