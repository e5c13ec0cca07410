// One bot as the dashboard sees it: its HTTP API (a token in the Authorization header) and its
// WebSocket stream (the token as the subprotocol `bearer.<token>`: a browser cannot set headers on a
// WebSocket). On each (re)connection the state is read once over HTTP, then kept current from the
// stream's pushes alone (no polling). Every change is announced to the listeners with its topic.

import { EquitySeries } from './series.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const KEEP_FILLS = 300;
const KEEP_LOGS = 1000;
const KEEP_DENIALS = 300;

export class Bot {
  /** @param {{id: string, name: string, url: string, token: string, remember?: boolean}} entry */
  constructor(entry) {
    this.entry = entry;
    this.base = entry.url.replace(/\/+$/, '');
    this.state = 'idle'; // idle | connecting | live | error
    this.error = '';
    this.status = null;
    this.strategies = new Map();
    this.openOrders = new Map();
    this.fills = [];
    this.denials = [];
    this.logs = [];
    this.equity = new EquitySeries(); // one value per period (series.js), capped
    this.listeners = new Set();
    this.ws = null;
    this.retryMs = 1000;
    this.timer = null;
    this.stopped = true;
    this.refreshTimer = null;
  }

  get name() {
    return this.entry.name;
  }

  on(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  emit(topic, data) {
    for (const l of [...this.listeners]) {
      try {
        l(topic, data);
      } catch (err) {
        console.error('dashboard: a view failed on', topic, err);
      }
    }
  }

  async request(method, path, body) {
    const headers = { authorization: `Bearer ${this.entry.token}` };
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
    let json = {};
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new ApiError(r.status, `${this.base}${path}: not a JSON answer (HTTP ${r.status})`);
    }
    if (!r.ok) throw new ApiError(r.status, json.error?.message ?? `HTTP ${r.status}`);
    return json;
  }

  get(path) {
    return this.request('GET', path);
  }

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
      this.setState('error', `cannot open ${url}: ${err.message}`);
      return;
    }
    this.ws = ws;
    let opened = false;
    let loaded = false;
    const early = [];
    ws.onopen = () => {
      opened = true;
      this.retryMs = 1000;
    };
    ws.onmessage = (m) => {
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
          .catch((err) => this.setState('error', err.message));
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
          .catch((err) => {
            if (err.status === 401 || err.status === 403) this.setState('error', err.message);
            else this.retry(err.message);
          });
        return;
      }
      this.retry(`the stream closed (${e.code}${e.reason ? `: ${e.reason}` : ''})`);
    };
  }

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

  setStrategies(list) {
    this.strategies = new Map(list.map((s) => [s.name, s]));
  }

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
      this.refreshTimer = null;
      this.get('/api/v1/strategies')
        .then((r) => {
          this.setStrategies(r.strategies);
          this.emit('strategies', null);
        })
        .catch(() => undefined);
    }, 500);
  }
}
