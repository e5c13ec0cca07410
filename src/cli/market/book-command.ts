/**
 * `mizan book <symbol>`: one market's local order book through the same path strategies use
 * (REST snapshot + stream over `--transport` ws, socketio or auto -> MarketDataEngine). On a terminal the top of the book is
 * redrawn in place (at most every `redrawMs`); otherwise one line is printed per update that
 * changes the top of the book or its health.
 * `--once` waits for a healthy book (up to `--timeout` seconds), prints one table and exits.
 */
import { ParameterError, NetworkError } from '../../core/errors.js';
import { WallexRestClient } from '../../exchange/rest/client.js';
import { StreamClient } from '../../exchange/stream/client.js';
import type { StreamTransportSetting } from '../../exchange/stream/transport.js';
import { MarketDataEngine } from '../../market/engine.js';
import { normalizeSymbol } from '../../market/market-catalog.js';
import { ansiFrame, renderBookLine, renderBookTable, type BookRenderInput } from './book-render.js';
import type { ResolvedDeps } from './deps.js';
import { untilInterrupted } from './options.js';

export interface BookCommandOptions {
  symbol: string;
  url: string;
  depth: number;
  /** Stream route (default auto: /ws, socket.io when it cannot connect). */
  transport?: StreamTransportSetting;
  protocol: 3 | 4;
  once: boolean;
  /** Seconds `--once` waits for a healthy book. */
  timeoutSec: number;
  /** Least time between two redraws on a terminal (ms). */
  redrawMs?: number;
}

/** Fail early, naming the symbol, when the exchange does not list it. */
async function checkSymbol(rest: WallexRestClient, symbol: string, url: string): Promise<void> {
  const markets = await rest.getMarkets();
  const symbols = markets.map((m) => normalizeSymbol(m.symbol));
  if (!symbols.includes(symbol)) {
    throw new ParameterError('<symbol>', symbol, `a market of ${url}, e.g. ${symbols.slice(0, 5).join(', ')}`);
  }
}

export async function runBook(o: BookCommandOptions, d: ResolvedDeps): Promise<void> {
  const { symbol } = o;
  const log = d.logger;
  const rest = new WallexRestClient({ baseUrl: o.url, logger: log.child({ component: 'rest' }) });
  await checkSymbol(rest, symbol, o.url);
  const stream = new StreamClient({
    url: o.url,
    transport: o.transport ?? 'auto',
    protocol: o.protocol,
    clock: d.clock,
    logger: log.child({ component: 'stream' }),
  });
  const engine = new MarketDataEngine({
    stream,
    depth: { getDepth: (s) => rest.getDepth(s) },
    clock: d.clock,
    logger: log,
    options: { subscribeStats: false },
  });
  const view = (): BookRenderInput => ({ symbol, book: engine.book(symbol), health: engine.health(symbol), depth: o.depth, now: d.clock.now() });
  const tty = d.stdout.isTTY === true;
  try {
    const started = await engine.start([symbol]);
    if (started.failed.length) log.warn({ symbol }, 'REST depth failed; waiting for the stream');
    const connected = stream.connect();
    connected.catch(() => undefined);
    if (o.once) {
      const deadline = Date.now() + o.timeoutSec * 1000;
      await waitHealthy(engine, symbol, o.timeoutSec * 1000, d.signal);
      // A REST snapshot can make the book healthy first: say which stream route carries it.
      await Promise.race([connected.catch(() => undefined), new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref())]);
      const v = view();
      if (v.book.bestBid() === undefined && v.book.bestAsk() === undefined) {
        throw new NetworkError(`no order book for ${symbol} from ${o.url} within ${o.timeoutSec} s (${v.health.reasons.join(', ')})`);
      }
      const route = stream.transport;
      const via = route === 'ws' ? 'ws (plain WebSocket /ws)' : route === 'socketio' ? `socketio (protocol ${o.protocol})` : 'none (REST snapshot only)';
      d.stdout.write(renderBookTable(v).join('\n') + `\nstream  ${via}\n`);
      return;
    }
    if (tty) d.stdout.write('\x1b[2J\x1b[?25l');
    let timer: ReturnType<typeof setTimeout> | undefined;
    let last = 0;
    let lastLine = '';
    // Plain output: one line per update of the top of the book (time aside, a repeat is skipped).
    const printLine = () => {
      const line = renderBookLine(view());
      const body = line.slice(line.indexOf(' '));
      if (body === lastLine) return;
      lastLine = body;
      d.stdout.write(line + '\n');
    };
    const draw = () => {
      timer = undefined;
      last = Date.now();
      d.stdout.write(ansiFrame(renderBookTable(view())));
    };
    const onUpdate = (s: string) => {
      if (s !== symbol) return;
      if (!tty) return printLine();
      if (timer !== undefined) return;
      const wait = Math.max(0, (o.redrawMs ?? 100) - (Date.now() - last));
      timer = setTimeout(draw, wait);
    };
    engine.on('book', onUpdate);
    engine.on('health', onUpdate);
    // Redraw ages and health once a second even when the book is quiet.
    const ages = tty ? setInterval(() => onUpdate(symbol), 1000) : undefined;
    if (tty) draw();
    else printLine();
    await untilInterrupted(d.signal);
    if (timer !== undefined) clearTimeout(timer);
    if (ages !== undefined) clearInterval(ages);
    if (tty) d.stdout.write('\x1b[?25h\n');
  } finally {
    engine.stop();
    stream.close();
  }
}

function waitHealthy(engine: MarketDataEngine, symbol: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  if (engine.health(symbol).healthy) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      engine.off('health', onHealth);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const onHealth = (s: string) => {
      if (s === symbol && engine.health(symbol).healthy) done();
    };
    const timer = setTimeout(done, timeoutMs);
    engine.on('health', onHealth);
    signal?.addEventListener('abort', done);
  });
}
