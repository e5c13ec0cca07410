// @ts-check
// One bot as the dashboard sees it: its HTTP API (a token in the Authorization header) and its
// WebSocket stream (the token as the subprotocol `bearer.<token>`: a browser cannot set headers on a
// WebSocket). On each (re)connection the state is read once over HTTP, then kept current from the
// stream's pushes alone (no polling). Every change is announced to the listeners with its topic.

import { EquitySeries } from './series.js';

// The wire shapes, from the server's own types (src/server/port.ts).
/** @typedef {import('../port.js').StatusDto} StatusDto */
/** @typedef {import('../port.js').TradingStateDto} TradingStateDto */
/** @typedef {import('../port.js').StrategyDto} StrategyDto */
/** @typedef {import('../port.js').OrderDto} OrderDto */
/** @typedef {import('../port.js').FillDto} FillDto */
/** @typedef {import('../port.js').DenialDto} DenialDto */
/** @typedef {import('../port.js').LogLineDto} LogLineDto */
/** @typedef {import('../port.js').BotEvent} BotEvent */
/** @typedef {Extract<BotEvent, { type: 'strategy' }>} StrategyEvent */
/** @typedef {Extract<BotEvent, { type: 'candle' }>} CandleEvent */
/**
 * What the stream sends: a hello first, the status every 2 s, and the bot's events.
 * @typedef {BotEvent | { type: 'status', status: StatusDto } | { type: 'hello', topics: string[], status: StatusDto }} StreamMessage
 */
/**
 * What a GET of `path` answers (src/server/server.ts; a query string does not change the shape).
 * @template {string} P
 * @typedef {P extends `/api/v1/status${Query}` ? StatusDto
 *   : P extends `/api/v1/strategies${Query}` ? { strategies: StrategyDto[] }
 *   : P extends `/api/v1/strategies/${string}/plots${Query}` ? { plots: import('../port.js').PlotDto[] }
 *   : P extends `/api/v1/orders${Query}` ? import('../port.js').Page<OrderDto>
 *   : P extends `/api/v1/fills${Query}` ? import('../port.js').Page<FillDto>
 *   : P extends `/api/v1/equity${Query}` ? { points: import('../port.js').EquityPointDto[] }
 *   : P extends `/api/v1/logs${Query}` ? { lines: LogLineDto[] }
 *   : P extends `/api/v1/candles${Query}` ? import('../port.js').CandlesDto
 *   : P extends `/api/v1/books${Query}` ? { books: import('../port.js').BookDto[] }
 *   : P extends `/api/v1/balances${Query}` ? { accounts: Record<string, import('../port.js').BalanceDto[]> }
 *   : P extends `/api/v1/margin/positions${Query}` ? { positions: import('../port.js').MarginPositionDto[] }
 *   : never} Answer
 */
/** @typedef {'' | `?${string}`} Query */

/** @typedef {'idle' | 'connecting' | 'live' | 'error'} ConnectionState */
/**
 * What the bot announces to its views: a topic and its data.
 * @typedef {['connection', { state: ConnectionState, error: string }]
 *   | ['load', null]
 *   | ['strategies', null]
 *   | ['status', StatusDto]
 *   | ['tradingState', TradingStateDto]
 *   | ['order', OrderDto]
 *   | ['fill', FillDto]
 *   | ['denial', DenialDto]
 *   | ['strategy', StrategyEvent]
 *   | ['log', LogLineDto]
 *   | ['candle', CandleEvent]} Announcement
 */
/** @typedef {Announcement[0]} Topic */
/** @typedef {(...a: Announcement) => void} Listener */
/** @typedef {{ id: string, name: string, url: string, token: string, remember?: boolean }} BotEntry a bot the dashboard shows, kept in the browser's storage */

export class ApiError extends Error {
  /**
   * @param {number} status the HTTP status (0: no answer)
   * @param {string} message
   */
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const KEEP_FILLS = 300;
const KEEP_LOGS = 1000;
const KEEP_DENIALS = 300;

export class Bot {
  /** @param {BotEntry} entry */
  constructor(entry) {
    this.entry = entry;
    this.base = entry.url.replace(/\/+$/, '');
    /** @type {ConnectionState} */
    this.state = 'idle';
    this.error = '';
    /** @type {StatusDto | null} */
    this.status = null;
    /** @type {Map<string, StrategyDto>} by name */
    this.strategies = new Map();
    /** @type {Map<string, OrderDto>} by client order id */
    this.openOrders = new Map();
    /** @type {FillDto[]} newest first */
    this.fills = [];
    /** @type {DenialDto[]} newest first */
    this.denials = [];
    /** @type {LogLineDto[]} oldest first */
    this.logs = [];
    this.equity = new EquitySeries(); // one value per period (series.js), capped
    /** @type {Set<Listener>} */
    this.listeners = new Set();
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retryMs = 1000;
    /** @type {number | undefined} */
    this.timer = undefined;
    this.stopped = true;
    /** @type {number | undefined} */
    this.refreshTimer = undefined;
  }

  get name() {
    return this.entry.name;
  }

  /**
   * @overload
   * @param {Listener} fn told each topic with its data
   * @returns {() => void} stops listening
   */
  /**
   * @overload
   * @param {(topic: Topic) => void} fn told each topic
   * @returns {() => void} stops listening
   */
  /** @param {Listener | ((topic: Topic) => void)} fn */
  on(fn) {
    const l = /** @type {Listener} */ (fn);
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** @param {Announcement} a */
  emit(...a) {
    const [topic] = a;
    for (const l of [...this.listeners]) {
      try {
        l(...a);
      } catch (err) {
        console.error('dashboard: a view failed on', topic, err);
      }
    }
  }

  /**
   * @param {'GET' | 'POST'} method
   * @param {string} path
   * @param {unknown} [body]
   * @returns {Promise<unknown>}
   */
  async request(method, path, body) {
    /** @type {Record<string, string>} */
    const headers = { authorization: `Bearer ${this.entry.token}` };
    /** @type {RequestInit} */
    const init = { method, headers, cache: 'no-store', credentials: 'omit' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let r;
    try {
      r = await fetch(`${this.base}${path}`, init);
    } catch {
      throw new ApiError(
        0,
        `cannot reach ${this.base} (not running, or it does not allow this page's origin ${location.origin}: add it to server.origins in that bot's config)`,
      );
    }
    const text = await r.text();
    /** @type {{ error?: { message?: string } }} */
    let json = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new ApiError(r.status, `${this.base}${path}: not a JSON answer (HTTP ${r.status})`);
    }
    if (!r.ok) throw new ApiError(r.status, json.error?.message ?? `HTTP ${r.status}`);
    return json;
  }

  /**
   * @template {string} P
   * @param {P} path
   * @returns {Promise<Answer<P>>}
   */
  get(path) {
    return /** @type {Promise<Answer<P>>} */ (this.request('GET', path));
  }

  /**
   * @param {string} path
   * @param {unknown} [body]
   */
  post(path, body = {}) {
    return this.request('POST', path, body);
  }

  connect() {
    this.stopped = false;
    this.open();
  }

  close() {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.refreshTimer);
    if (this.ws) this.ws.close(1000, 'dashboard closed');
    this.ws = null;
  }

  /**
   * @param {ConnectionState} state
   * @param {string} [error]
   */
  setState(state, error = '') {
    this.state = state;
    this.error = error;
    this.emit('connection', { state, error });
  }

  open() {
    if (this.stopped) return;
    this.setState('connecting');
    const url = `${this.base.replace(/^http/, 'ws')}/api/v1/stream`;
    let ws;
    try {
      ws = new WebSocket(url, ['mizan.v1', `bearer.${this.entry.token}`]);
    } catch (err) {
      this.setState('error', `cannot open ${url}: ${/** @type {Error} */ (err).message}`);
      return;
    }
    this.ws = ws;
    let opened = false;
    let loaded = false;
    /** @type {StreamMessage[]} */
    const early = [];
    ws.onopen = () => {
      opened = true;
      this.retryMs = 1000;
    };
    ws.onmessage = (m) => {
      /** @type {StreamMessage} */
      let msg;
      try {
        msg = JSON.parse(m.data);
      } catch {
        return;
      }
      if (msg.type === 'hello') {
        // The state as of now, then the pushes that came while it was read, in order.
        this.load()
          .then(() => {
            loaded = true;
            for (const e of early.splice(0)) this.apply(e);
            this.setState('live');
          })
          .catch((/** @type {Error} */ err) => this.setState('error', err.message));
        return;
      }
      if (loaded) this.apply(msg);
      else early.push(msg);
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (!opened) {
        // The handshake was refused: ask over HTTP why, and never retry a refused token (the bot
        // locks an address out after repeated failures).
        this.get('/api/v1/status')
          .then(() => this.retry('the stream closed'))
          .catch((/** @type {ApiError} */ err) => {
            if (err.status === 401 || err.status === 403) this.setState('error', err.message);
            else this.retry(err.message);
          });
        return;
      }
      this.retry(`the stream closed (${e.code}${e.reason ? `: ${e.reason}` : ''})`);
    };
  }

  /** @param {string} why */
  retry(why) {
    this.setState('error', `${why}; reconnecting in ${Math.round(this.retryMs / 1000)} s`);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.open(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 15_000);
  }

  async load() {
    const [status, strategies, fills, equity, logs] = await Promise.all([
      this.get('/api/v1/status'),
      this.get('/api/v1/strategies'),
      this.get('/api/v1/fills?limit=200'),
      this.get('/api/v1/equity?limit=5000'),
      this.get('/api/v1/logs?limit=300'),
    ]);
    this.status = status;
    this.setStrategies(strategies.strategies);
    this.openOrders = new Map();
    for (const s of strategies.strategies) for (const o of s.openOrders) this.openOrders.set(o.clientOrderId, o);
    this.denials = strategies.strategies.flatMap((s) => s.recentDenials).sort((a, b) => b.time - a.time);
    this.fills = fills.items;
    this.equity = new EquitySeries();
    for (const p of equity.points) this.equity.add(p.ts, Number(p.equity));
    this.equity.add(status.startedAt + status.uptimeMs, Number(status.equity));
    this.logs = logs.lines;
    this.emit('load', null);
  }

  /** @param {StrategyDto[]} list */
  setStrategies(list) {
    this.strategies = new Map(list.map((s) => [s.name, s]));
  }

  /** @param {StreamMessage} msg */
  apply(msg) {
    switch (msg.type) {
      case 'status':
        this.status = msg.status;
        this.equity.add(msg.status.startedAt + msg.status.uptimeMs, Number(msg.status.equity));
        this.emit('status', msg.status);
        break;
      case 'tradingState':
        if (this.status) this.status = { ...this.status, tradingState: msg.state };
        this.emit('tradingState', msg.state);
        break;
      case 'order':
        if (msg.order.final) this.openOrders.delete(msg.order.clientOrderId);
        else this.openOrders.set(msg.order.clientOrderId, msg.order);
        this.emit('order', msg.order);
        this.refreshStrategiesSoon();
        break;
      case 'fill':
        if (!this.fills.some((f) => f.id === msg.fill.id)) {
          this.fills.unshift(msg.fill);
          if (this.fills.length > KEEP_FILLS) this.fills.length = KEEP_FILLS;
        }
        this.emit('fill', msg.fill);
        this.refreshStrategiesSoon();
        break;
      case 'denial':
        this.denials.unshift(msg.denial);
        if (this.denials.length > KEEP_DENIALS) this.denials.length = KEEP_DENIALS;
        this.emit('denial', msg.denial);
        break;
      case 'strategy': {
        const s = this.strategies.get(msg.name);
        if (s) s.state = msg.state;
        this.emit('strategy', msg);
        this.refreshStrategiesSoon();
        break;
      }
      case 'log': {
        const last = this.logs[this.logs.length - 1];
        if (last && last.time === msg.log.time && last.msg === msg.log.msg) break;
        this.logs.push(msg.log);
        if (this.logs.length > KEEP_LOGS) this.logs.splice(0, this.logs.length - KEEP_LOGS);
        this.emit('log', msg.log);
        break;
      }
      case 'candle':
        this.emit('candle', msg);
        break;
      default:
        break;
    }
  }

  // Per-strategy pnl and positions change with fills and orders: read again once after a burst of
  // them (the stream says when; nothing is polled).
  refreshStrategiesSoon() {
    if (this.refreshTimer) return;
    this.refreshTimer = setTimeout(() => {
      this.refreshTimer = undefined;
      this.get('/api/v1/strategies')
        .then((r) => {
          this.setStrategies(r.strategies);
          this.emit('strategies', null);
        })
        .catch(() => undefined);
    }, 500);
  }
}
