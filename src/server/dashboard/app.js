// @ts-check
// mizan's dashboard: plain JavaScript served by the bot (no framework, no CDN). The bots it shows
// (this one and any others added on the Bots page) are kept with their tokens in the browser's
// storage: localStorage when "remember on this device" is ticked, else sessionStorage (forgotten
// when the tab closes). A token is only ever sent in a header or the WebSocket subprotocol, never in
// a URL.
import { ApiError, Bot } from './bot.js';
import { candleChart, equityCharts } from './charts.js';
import { badge, byId, clear, confirmAction, duration, h, live, signClass, stateBadge, table, time, toast } from './ui.js';
import { booksPage, fmt, positionsPage } from './market-pages.js';

/** @typedef {import('./bot.js').BotEntry} BotEntry */
/** @typedef {import('./bot.js').OrderDto} OrderDto */
/** @typedef {import('./bot.js').FillDto} FillDto */
/** @typedef {import('./bot.js').DenialDto} DenialDto */
/** @typedef {import('./bot.js').LogLineDto} LogLineDto */
/** @typedef {import('./ui.js').Child} Child */
/**
 * A page: drawn into `el` for `bot` (the route's further parts in `args`); returns what stops it.
 * @typedef {(el: HTMLElement, bot: Bot, args: string[]) => () => void} Page
 */

const KEY = 'mizan.dashboard.bots';
const SELECTED = 'mizan.dashboard.selected';
const HOME = 'this';

// ------------------------------------------------------------------------------------ the bots
/**
 * @param {Storage} storage
 * @returns {BotEntry[]}
 */
function readList(storage) {
  try {
    const v = JSON.parse(storage.getItem(KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((e) => e && typeof e.url === 'string' && typeof e.token === 'string' && typeof e.id === 'string') : [];
  } catch {
    return [];
  }
}

function loadEntries() {
  const seen = new Set();
  /** @type {BotEntry[]} */
  const out = [];
  for (const e of [...readList(localStorage).map((x) => ({ ...x, remember: true })), ...readList(sessionStorage).map((x) => ({ ...x, remember: false }))]) {
    if (seen.has(e.id)) continue;
    seen.add(e.id);
    out.push(e);
  }
  // This bot first.
  return out.sort((a, b) => (a.id === HOME ? -1 : b.id === HOME ? 1 : 0));
}

function saveEntries() {
  const entries = [...bots.values()].map((b) => b.entry);
  localStorage.setItem(KEY, JSON.stringify(entries.filter((e) => e.remember)));
  sessionStorage.setItem(KEY, JSON.stringify(entries.filter((e) => !e.remember)));
}

/** @type {Map<string, Bot>} */
const bots = new Map();

/** @param {BotEntry} entry */
function addBot(entry) {
  const bot = new Bot(entry);
  bots.set(entry.id, bot);
  bot.on((topic) => {
    if (topic === 'connection' || topic === 'load' || topic === 'strategies') renderChrome();
  });
  bot.connect();
  return bot;
}

/** @param {string} id */
function removeBot(id) {
  const b = bots.get(id);
  if (!b) return;
  b.close();
  bots.delete(id);
  saveEntries();
}

function selected() {
  const id = sessionStorage.getItem(SELECTED);
  return (id && bots.get(id)) || bots.get(HOME) || bots.values().next().value;
}

// ------------------------------------------------------------------------------------ chrome
const main = () => byId('main', HTMLElement);

function renderChrome() {
  const bot = selected();
  const sel = byId('bot-select', HTMLSelectElement);
  clear(sel);
  for (const b of bots.values()) sel.append(h('option', { value: b.entry.id, selected: b === bot }, b.name));
  const conn = byId('connection', HTMLSpanElement);
  clear(conn);
  if (bot) conn.append(connectionBadge(bot));
  const list = byId('strategy-links', HTMLSpanElement);
  clear(list);
  if (bot)
    for (const s of bot.strategies.values())
      list.append(h('a', { href: `#/strategy/${encodeURIComponent(s.name)}`, 'data-route': `strategy/${s.name}` }, s.name));
  const route = currentRoute();
  for (const a of document.querySelectorAll('nav a')) if (a instanceof HTMLElement) a.classList.toggle('current', a.dataset.route === route.join('/'));
}

/** @param {Bot} bot */
function connectionBadge(bot) {
  const el = badge(bot.state === 'live' ? 'live' : bot.state, bot.state === 'live' ? 'ok' : bot.state === 'error' ? 'bad' : 'warn');
  el.dataset.testid = 'connection';
  if (bot.error) el.title = bot.error;
  return el;
}

function currentRoute() {
  const parts = location.hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  return parts[0] ? parts : ['overview'];
}

// ------------------------------------------------------------------------------------ pages
/** @type {(() => void) | null} stops the page drawn */
let page = null;

function render() {
  page?.();
  page = null;
  const el = main();
  clear(el);
  renderChrome();
  const route = currentRoute();
  const bot = selected(); // undefined: no bot yet
  if (!bot || route[0] === 'connect') {
    page = connectPage(el);
    return;
  }
  if (route[0] === 'bots') {
    page = botsPage(el);
    return;
  }
  /** @type {Record<string, Page>} */
  const pages = {
    overview: overviewPage,
    positions: positionsPage,
    orders: ordersPage,
    fills: fillsPage,
    denials: denialsPage,
    books: booksPage,
    logs: logsPage,
    strategy: strategyPage,
  };
  // Own names only: a route such as #/constructor is not a page.
  const [name = 'overview', ...args] = route;
  const fn = (Object.hasOwn(pages, name) && pages[name]) || overviewPage;
  page = fn(el, bot, args);
}

/**
 * @param {Bot} bot
 * @param {string} what done (for the toast)
 * @param {() => Promise<unknown>} fn
 */
async function control(bot, what, fn) {
  try {
    const r = await fn();
    toast(`${bot.name}: ${what}`, 'info');
    return r;
  } catch (err) {
    const hint = err instanceof ApiError && err.status === 403 && /control token/.test(err.message) ? ' (connect with the control token to steer the bot)' : '';
    toast(`${bot.name}: ${what} failed: ${/** @type {Error} */ (err).message}${hint}`, 'error');
    return undefined;
  }
}

/** @param {Bot} bot */
function haltResume(bot) {
  const st = bot.status?.tradingState?.state;
  if (!st) return null;
  return st === 'active'
    ? h(
        'button',
        {
          type: 'button',
          class: 'danger',
          testid: 'halt',
          onclick: async () => {
            const ok = await confirmAction({
              title: `Halt ${bot.name}?`,
              message: 'Every open order is cancelled and no new order is placed until you resume. The halt survives restarts.',
              confirmLabel: 'Halt trading',
              reason: 'required',
            });
            if (ok) await control(bot, 'halted', () => bot.post('/api/v1/halt', { reason: ok.reason }));
          },
        },
        'Halt trading…',
      )
    : h(
        'button',
        {
          type: 'button',
          class: 'primary',
          testid: 'resume',
          onclick: async () => {
            const ok = await confirmAction({
              title: `Resume ${bot.name}?`,
              message: 'The strategies may place orders again at once.',
              confirmLabel: 'Resume trading',
              danger: false,
              reason: 'optional',
            });
            if (ok) await control(bot, 'resumed', () => bot.post('/api/v1/resume', ok.reason ? { reason: ok.reason } : {}));
          },
        },
        'Resume trading…',
      );
}

/**
 * @param {string} label
 * @param {Child} value
 * @param {{ class?: string, testid?: string, dataset?: Record<string, string>, title?: string }} [attrs]
 */
function stat(label, value, attrs = {}) {
  return h(
    'div',
    { class: 'stat' },
    h('div', { class: 'label' }, label),
    h('div', { class: `value ${attrs.class ?? ''}`, testid: attrs.testid, dataset: attrs.dataset, title: attrs.title }, value),
  );
}

/** @type {Page} */
function overviewPage(el, bot) {
  const state = h('section', { class: 'panel' });
  const stats = h('section', { class: 'stats' });
  const eqBox = h('div', { class: 'chart', testid: 'equity-chart' });
  const ddBox = h('div', { class: 'chart small', testid: 'drawdown-chart' });
  const pnl = h('section', {});
  const eqHead = h('h2', {}, 'Equity');
  el.append(
    h('h1', {}, `${bot.name}: overview`),
    state,
    stats,
    eqHead,
    eqBox,
    h('h2', {}, 'Drawdown from the peak (%)'),
    ddBox,
    h('h2', {}, 'PnL by strategy'),
    pnl,
  );
  const charts = equityCharts(eqBox, ddBox);
  const offs = [
    live(bot, state, ['status', 'tradingState'], (box) => {
      if (!bot.status) return; // drawn once loaded (live draws then)
      const t = bot.status.tradingState;
      put(
        box,
        h(
          'div',
          { class: 'trading' },
          h('span', { class: 'label' }, 'Trading'),
          h('span', { testid: 'trading-state', dataset: { state: t.state } }, stateBadge(t.state)),
          t.reason ? h('span', { class: 'reason', testid: 'trading-reason' }, t.reason) : null,
          h('span', { class: 'muted' }, `since ${time(t.since)}`),
        ),
        haltResume(bot),
      );
    }),
    live(bot, stats, ['status', 'tradingState'], (box) => {
      const s = bot.status;
      if (!s) return;
      const f = fmt(bot);
      charts.format((v) => f.ref(v));
      eqHead.textContent = `Equity (${s.reference})`;
      box.append(
        stat('Mode', s.mode, { testid: 'mode' }),
        stat('Up', duration(s.uptimeMs)),
        stat(`Equity (${s.reference})`, fmt(bot).ref(s.equity), { testid: 'equity', dataset: { value: s.equity }, title: s.equity }),
        stat('Start equity', fmt(bot).ref(s.startEquity), { testid: 'start-equity', dataset: { value: s.startEquity } }),
        stat('PnL', fmt(bot).ref(s.pnl), { class: signClass(s.pnl), testid: 'pnl' }),
        stat('Realised', fmt(bot).ref(s.realized), { class: signClass(s.realized) }),
        stat('Unrealised', fmt(bot).ref(s.unrealized), { class: signClass(s.unrealized) }),
        stat('Open orders', String(s.openOrders), { testid: 'open-orders-count' }),
        stat('Fills', String(s.fills)),
        stat('Denials', String(s.denials)),
        stat('Handler errors', String(s.errors), { class: s.errors ? 'neg' : '' }),
        stat('Books', `${s.books.filter((b) => b.healthy).length}/${s.books.length} healthy`, { class: s.books.every((b) => b.healthy) ? '' : 'neg' }),
      );
      charts.set(bot.equity);
    }),
    live(bot, pnl, ['strategies', 'strategy'], (box) => {
      const f = fmt(bot);
      const rows = [...bot.strategies.values()].flatMap(
        /** @returns {{ s: import('./bot.js').StrategyDto, p: import('../port.js').PnlDto | null }[]} */ (s) =>
          s.pnl.length ? s.pnl.map((p) => ({ s, p })) : [{ s, p: null }],
      );
      box.append(
        table(
          [
            ['strategy', (r) => h('a', { href: `#/strategy/${encodeURIComponent(r.s.name)}` }, r.s.name)],
            ['state', (r) => badge(r.s.state, r.s.state === 'running' ? 'ok' : 'warn')],
            ['market', (r) => r.p?.symbol ?? r.s.markets.join(', ')],
            ['position', (r) => (r.p ? f.base(r.p.symbol, r.p.position) : '—')],
            ['avg price', (r) => (r.p ? f.price(r.p.symbol, r.p.avgPrice) : '—')],
            ['realised', (r) => (r.p ? h('span', { class: signClass(r.p.realized) }, f.quote(r.p.symbol, r.p.realized)) : '—')],
            ['unrealised', (r) => (r.p ? h('span', { class: signClass(r.p.unrealized) }, f.quote(r.p.symbol, r.p.unrealized)) : '—')],
            ['fees', (r) => (r.p ? f.quote(r.p.symbol, r.p.fees) : '—')],
            ['trades', (r) => (r.p ? String(r.p.trades) : '0')],
          ],
          rows,
          { testid: 'pnl-table' },
        ),
        h('p', { class: 'muted' }, 'PnL of a market is in its quote asset (USDT for BTCUSDT, TMN for BTCTMN).'),
      );
    }),
  ];
  return () => {
    offs.forEach((f) => f());
    charts.remove();
  };
}

/**
 * @param {Bot} bot
 * @param {OrderDto[]} orders
 * @param {string} testid
 */
function ordersTable(bot, orders, testid) {
  return table(
    [
      ['time', (o) => time(o.createdAt)],
      ['strategy', (o) => o.strategy],
      ['market', (o) => o.symbol],
      ['side', (o) => h('span', { class: String(o.side).toLowerCase() === 'buy' ? 'pos' : 'neg' }, o.side)],
      ['type', (o) => o.type],
      ['price', (o) => o.price ?? 'market'],
      ['quantity', (o) => o.quantity],
      ['filled', (o) => o.filled],
      ['status', (o) => o.status],
      ['id', (o) => h('code', {}, o.clientOrderId)],
      [
        '',
        (o) =>
          h(
            'button',
            {
              type: 'button',
              class: 'small danger',
              testid: 'cancel-order',
              onclick: async () => {
                const ok = await confirmAction({
                  title: 'Cancel this order?',
                  message: `${o.strategy}: ${o.side} ${o.quantity} ${o.symbol} at ${o.price ?? 'market'} (${o.clientOrderId})`,
                  confirmLabel: 'Cancel the order',
                });
                if (ok)
                  await control(bot, `order ${o.clientOrderId} cancelled`, () => bot.post(`/api/v1/orders/${encodeURIComponent(o.clientOrderId)}/cancel`));
              },
            },
            'Cancel',
          ),
      ],
    ],
    orders,
    { testid, empty: 'no open order', rowAttrs: (o) => ({ dataset: { id: o.clientOrderId } }) },
  );
}

/** @type {(bot: Bot, strategy?: string) => OrderDto[]} */
const openOrdersOf = (bot, strategy) =>
  [...bot.openOrders.values()].filter((o) => !strategy || o.strategy === strategy).sort((a, b) => b.createdAt - a.createdAt);

/** @type {Page} */
function ordersPage(el, bot) {
  const open = h('section', {});
  const recent = h('section', {});
  el.append(h('h1', {}, `${bot.name}: open orders`), open, h('h2', {}, 'Recent orders'), recent);
  const loadRecent = () =>
    bot
      .get('/api/v1/orders?limit=100')
      .then((r) => {
        clear(recent);
        recent.append(
          table(
            [
              ['created', (o) => time(o.createdAt)],
              ['strategy', (o) => o.strategy],
              ['market', (o) => o.symbol],
              ['side', (o) => o.side],
              ['price', (o) => o.price ?? 'market'],
              ['quantity', (o) => o.quantity],
              ['filled', (o) => o.filled],
              ['status', (o) => o.status],
              ['reason', (o) => o.reason ?? ''],
            ],
            r.items,
            { testid: 'recent-orders' },
          ),
        );
      })
      .catch((err) => {
        clear(recent);
        recent.append(h('p', { class: 'error' }, err.message));
      });
  loadRecent();
  // The history is read again after each burst of order changes the stream announces.
  /** @type {number | undefined} */
  let pending;
  const offs = [
    live(bot, open, ['order'], (box) => box.append(ordersTable(bot, openOrdersOf(bot), 'open-orders'))),
    bot.on((topic) => {
      if (topic !== 'order' && topic !== 'load') return;
      clearTimeout(pending);
      pending = setTimeout(loadRecent, 1000);
    }),
  ];
  return () => {
    offs.forEach((f) => f());
    clearTimeout(pending);
  };
}

/**
 * @param {FillDto[]} fills
 * @param {string} testid
 */
function fillsTable(fills, testid) {
  return table(
    [
      ['time', (f) => time(f.ts)],
      ['strategy', (f) => f.strategy],
      ['market', (f) => f.symbol],
      ['side', (f) => h('span', { class: String(f.side).toLowerCase() === 'buy' ? 'pos' : 'neg' }, f.side)],
      ['price', (f) => f.price],
      ['quantity', (f) => f.quantity],
      ['fee', (f) => `${f.fee} ${f.feeAsset}`],
      ['order', (f) => h('code', {}, f.clientOrderId)],
    ],
    fills,
    { testid, empty: 'no fill yet', rowAttrs: (f) => ({ dataset: { id: String(f.id) } }) },
  );
}

/** @type {Page} */
function fillsPage(el, bot) {
  const box = h('section', {});
  el.append(h('h1', {}, `${bot.name}: fills`), box);
  return live(bot, box, ['fill'], (b) => b.append(fillsTable(bot.fills.slice(0, 200), 'fills')));
}

/**
 * @param {DenialDto[]} denials
 * @param {string} testid
 */
function denialsTable(denials, testid) {
  return table(
    [
      ['time', (d) => time(d.time)],
      ['strategy', (d) => d.strategy],
      ['rule', (d) => h('code', {}, d.rule)],
      ['reason', (d) => d.reason],
      ['intent', (d) => d.intent],
      ['market', (d) => d.symbol ?? ''],
    ],
    denials,
    { testid, empty: 'no denial' },
  );
}

/** @type {Page} */
function denialsPage(el, bot) {
  const box = h('section', {});
  el.append(
    h('h1', {}, `${bot.name}: denials`),
    h('p', { class: 'muted' }, 'Intents the risk rules refused and orders the exchange rejected, with the reason the strategy was given.'),
    box,
  );
  return live(bot, box, ['denial'], (b) => b.append(denialsTable(bot.denials, 'denials')));
}

/** @type {Record<number, string>} pino's level names */
const LEVEL = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** @type {Page} */
function logsPage(el, bot) {
  const level = h(
    'select',
    { testid: 'log-level' },
    ['trace', 'debug', 'info', 'warn', 'error'].map((l) => h('option', { value: l, selected: l === 'info' }, l)),
  );
  const box = h('pre', { class: 'logs', testid: 'logs' });
  const min = () => Number(Object.entries(LEVEL).find(([, n]) => n === level.value)?.[0] ?? 30);
  /** @param {LogLineDto} l */
  const line = (l) => {
    const extra = { ...l.line };
    for (const k of ['level', 'time', 'msg', 'pid', 'hostname']) delete extra[k];
    const rest = Object.keys(extra).length ? ` ${JSON.stringify(extra)}` : '';
    return h('div', { class: `log l${l.level}` }, `${time(l.time)} ${(LEVEL[l.level] ?? l.level).toString().padEnd(5)} ${l.msg}${rest}`);
  };
  const all = () => {
    clear(box);
    for (const l of bot.logs) if (l.level >= min()) box.append(line(l));
    box.scrollTop = box.scrollHeight;
  };
  level.addEventListener('change', all);
  el.append(h('h1', {}, `${bot.name}: live logs`), h('label', {}, 'Level ', level), box);
  all();
  return bot.on((topic, data) => {
    if (topic === 'load') all();
    if (topic !== 'log' || data.level < min()) return;
    const atEnd = box.scrollTop + box.clientHeight >= box.scrollHeight - 20;
    box.append(line(data));
    while (box.childElementCount > 1000) box.firstElementChild?.remove();
    if (atEnd) box.scrollTop = box.scrollHeight;
  });
}

/** @type {Page} */
function strategyPage(el, bot, [name = '']) {
  const head = h('section', { class: 'panel' });
  const charts = h('section', {});
  const orders = h('section', {});
  const fillsBox = h('section', {});
  const denials = h('section', {});
  el.append(
    h('h1', {}, `${bot.name}: ${name}`),
    head,
    charts,
    h('h2', {}, 'Open orders'),
    orders,
    h('h2', {}, 'Fills'),
    fillsBox,
    h('h2', {}, 'Recent denials'),
    denials,
  );
  const s0 = bot.strategies.get(name);
  if (!s0) {
    el.append(h('p', { class: 'error' }, bot.state === 'live' ? `${name} is not a strategy of ${bot.name}` : 'Connecting…'));
    if (bot.state === 'live') return () => undefined;
    // Not loaded yet: draw again once it is.
    const off = bot.on((t) => t === 'load' && render());
    return off;
  }
  /** @type {FillDto[]} */
  let fills = [];
  /** @type {Map<string, { chart: ReturnType<typeof candleChart>, box: HTMLElement }>} */
  const byMarket = new Map();
  for (const m of s0.markets) {
    const box = h('div', { class: 'chart', testid: `candles-${m}` });
    charts.append(h('h2', {}, `${m}, ${s0.resolution} s candles`), box);
    byMarket.set(m, { chart: candleChart(box, s0.resolution), box });
  }
  const mark = () => {
    for (const [m, { chart, box }] of byMarket) {
      const n = chart.marks(
        openOrdersOf(bot, name).filter((o) => o.symbol === m),
        fills.filter((f) => f.symbol === m),
      );
      box.dataset.markers = String(n);
    }
  };
  // The strategy's declared plots over its candles: read with the candles, then after each candle
  // of its markets closes (the strategy draws on it).
  /** @type {number | undefined} */
  let plotsPending;
  const loadPlots = () =>
    bot
      .get(`/api/v1/strategies/${encodeURIComponent(name)}/plots`)
      .then((r) => {
        for (const [m, { chart }] of byMarket) chart.plots(r.plots.filter((p) => p.symbol === m));
      })
      .catch((err) => toast(`${name} plots: ${err.message}`, 'error'));
  const load = () => {
    for (const [m, { chart, box }] of byMarket) {
      bot
        .get(`/api/v1/candles?symbol=${encodeURIComponent(m)}&resolution=${s0.resolution}&limit=500`)
        .then((r) => {
          chart.set(r.current ? [...r.candles, r.current] : r.candles);
          box.dataset.candles = String(r.candles.length + (r.current ? 1 : 0));
          mark();
          return loadPlots();
        })
        .catch((err) => toast(`${m} candles: ${err.message}`, 'error'));
    }
    bot
      .get(`/api/v1/fills?strategy=${encodeURIComponent(name)}&limit=500`)
      .then((r) => {
        fills = r.items;
        drawFills();
        mark();
      })
      .catch((err) => toast(err.message, 'error'));
  };
  const drawFills = () => {
    clear(fillsBox);
    fillsBox.append(fillsTable(fills.slice(0, 100), 'strategy-fills'));
  };
  load();
  const offs = [
    live(bot, head, ['strategies', 'strategy'], (box) => {
      const s = bot.strategies.get(name);
      if (!s) return;
      const stop = h(
        'button',
        {
          type: 'button',
          class: 'danger',
          testid: 'stop-strategy',
          onclick: async () => {
            const ok = await confirmAction({
              title: `Stop ${name}?`,
              message: 'Its onStop runs, it gets no more events and its open orders are cancelled. The other strategies go on.',
              confirmLabel: 'Stop the strategy',
            });
            if (ok) await control(bot, `${name} stopped`, () => bot.post(`/api/v1/strategies/${encodeURIComponent(name)}/stop`, {}));
          },
        },
        'Stop…',
      );
      const start = h(
        'button',
        {
          type: 'button',
          class: 'primary',
          testid: 'start-strategy',
          onclick: async () => {
            const ok = await confirmAction({
              title: `Start ${name}?`,
              message: 'A fresh instance starts, as after a restart of the bot.',
              confirmLabel: 'Start the strategy',
              danger: false,
            });
            if (ok) await control(bot, `${name} started`, () => bot.post(`/api/v1/strategies/${encodeURIComponent(name)}/start`, {}));
          },
        },
        'Start…',
      );
      const cancelAll = h(
        'button',
        {
          type: 'button',
          class: 'danger',
          testid: 'cancel-all',
          onclick: async () => {
            const ok = await confirmAction({
              title: `Cancel every order of ${name}?`,
              message: 'The strategy keeps running and may place new orders.',
              confirmLabel: 'Cancel its orders',
            });
            if (ok) await control(bot, `orders of ${name} cancelled`, () => bot.post(`/api/v1/strategies/${encodeURIComponent(name)}/cancel-orders`, {}));
          },
        },
        'Cancel all its orders…',
      );
      box.append(
        h(
          'div',
          { class: 'trading' },
          h('span', { testid: 'strategy-state' }, badge(s.state, s.state === 'running' ? 'ok' : 'warn')),
          h('span', {}, `${s.strategy} on ${s.markets.join(', ')}, account ${s.account}`),
          s.handlerErrors ? h('span', { class: 'neg' }, `${s.handlerErrors} handler errors`) : null,
        ),
        h('div', { class: 'actions' }, s.state === 'running' ? stop : start, cancelAll),
        h('details', {}, h('summary', {}, 'Parameters'), h('pre', {}, JSON.stringify(s.params, null, 2))),
        table(
          [
            ['market', (p) => p.symbol],
            ['position', (p) => p.position],
            ['avg price', (p) => fmt(bot).price(p.symbol, p.avgPrice)],
            ['price', (p) => (p.price === null ? '—' : fmt(bot).price(p.symbol, p.price))],
            ['realised', (p) => h('span', { class: signClass(p.realized) }, fmt(bot).quote(p.symbol, p.realized))],
            ['unrealised', (p) => h('span', { class: signClass(p.unrealized) }, fmt(bot).quote(p.symbol, p.unrealized))],
            ['fees', (p) => p.fees],
            ['trades', (p) => String(p.trades)],
          ],
          s.pnl,
          { empty: 'no trade yet' },
        ),
      );
    }),
    live(bot, orders, ['order'], (box) => box.append(ordersTable(bot, openOrdersOf(bot, name), 'strategy-orders'))),
    live(bot, denials, ['denial'], (box) =>
      box.append(
        denialsTable(
          bot.denials.filter((d) => d.strategy === name),
          'strategy-denials',
        ),
      ),
    ),
    bot.on((topic, data) => {
      if (topic === 'load') load();
      if (topic === 'order' && data.strategy === name) mark();
      if (topic === 'fill' && data.strategy === name && !fills.some((f) => f.id === data.id)) {
        fills.unshift(data);
        drawFills();
        mark();
      }
      const drawn = topic === 'candle' && data.resolution === s0.resolution ? byMarket.get(data.symbol) : undefined;
      if (topic === 'candle' && drawn) {
        const { chart, box } = drawn;
        chart.add(data.candle);
        box.dataset.candles = String(Number(box.dataset.candles ?? 0) + 1);
        clearTimeout(plotsPending);
        plotsPending = setTimeout(loadPlots, 300);
      }
    }),
  ];
  return () => {
    offs.forEach((f) => f());
    clearTimeout(plotsPending);
    for (const { chart } of byMarket.values()) chart.remove();
  };
}

// ------------------------------------------------------------------------------------ bots
/**
 * Append the children that are not null (DOM append would write "null").
 * @param {HTMLElement} el
 * @param {(Node | string | null | undefined | false)[]} children
 */
function put(el, ...children) {
  el.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
}

/** @param {Bot} bot */
function botCard(bot) {
  const card = h('article', { class: 'card', testid: 'bot-card', dataset: { url: bot.base } });
  const draw = () => {
    clear(card);
    const s = bot.status;
    put(
      card,
      h('header', {}, h('h2', {}, bot.name), connectionBadge(bot)),
      h('p', { class: 'muted' }, bot.base, bot.entry.id === HOME ? ' (this bot)' : ''),
      bot.error ? h('p', { class: 'error', testid: 'bot-error' }, bot.error) : null,
      s
        ? h(
            'div',
            { class: 'stats' },
            stat('Mode', s.mode, { testid: 'mode' }),
            stat('Trading', stateBadge(s.tradingState.state), { testid: 'trading-state', dataset: { state: s.tradingState.state } }),
            stat(`Equity (${s.reference})`, fmt(bot).ref(s.equity), { testid: 'equity', dataset: { value: s.equity } }),
            stat('Start equity', fmt(bot).ref(s.startEquity), { testid: 'start-equity', dataset: { value: s.startEquity } }),
            stat('PnL', fmt(bot).ref(s.pnl), { class: signClass(s.pnl) }),
            stat('Open orders', String(s.openOrders), { testid: 'open-orders-count' }),
            stat('Fills', String(s.fills)),
            stat('Books', `${s.books.filter((b) => b.healthy).length}/${s.books.length} healthy`),
            stat('Up', duration(s.uptimeMs)),
          )
        : null,
      h(
        'div',
        { class: 'actions' },
        h(
          'button',
          {
            type: 'button',
            class: 'primary',
            onclick: () => {
              sessionStorage.setItem(SELECTED, bot.entry.id);
              location.hash = '#/overview';
              render();
            },
          },
          'Open',
        ),
        s ? haltResume(bot) : null,
        bot.entry.id === HOME
          ? null
          : h(
              'button',
              {
                type: 'button',
                class: 'small',
                testid: 'remove-bot',
                onclick: () => {
                  removeBot(bot.entry.id);
                  render();
                },
              },
              'Remove',
            ),
      ),
    );
  };
  draw();
  const off = bot.on((topic) => {
    if (['status', 'tradingState', 'connection', 'load'].includes(topic)) draw();
  });
  return { card, off };
}

/** @param {HTMLElement} el */
function botsPage(el) {
  const grid = h('section', { class: 'cards', testid: 'bot-cards' });
  const name = h('input', { type: 'text', name: 'name', placeholder: 'name (e.g. server 2)', required: true, testid: 'add-name' });
  const url = h('input', { type: 'url', name: 'url', placeholder: 'http://127.0.0.1:8788', required: true, testid: 'add-url' });
  const token = h('input', { type: 'password', name: 'token', placeholder: 'token', required: true, autocomplete: 'off', testid: 'add-token' });
  const remember = h('input', { type: 'checkbox', name: 'remember', testid: 'add-remember' });
  const err = h('p', { class: 'error', testid: 'add-error' });
  const form = h(
    'form',
    {
      class: 'add',
      testid: 'add-bot',
      onsubmit: (e) => {
        e.preventDefault();
        let u;
        try {
          u = new URL(url.value.trim());
          if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
        } catch {
          err.textContent = `${url.value} is not an http(s) URL`;
          return;
        }
        const base = u.origin + u.pathname.replace(/\/+$/, '');
        if ([...bots.values()].some((b) => b.base === base)) {
          err.textContent = `${base} is already in the list`;
          return;
        }
        addBot({ id: `bot-${Date.now().toString(36)}`, name: name.value.trim() || u.host, url: base, token: token.value.trim(), remember: remember.checked });
        saveEntries();
        render();
      },
    },
    h('h2', {}, 'Add a bot'),
    h('p', { class: 'muted' }, `That bot must list this page's origin, ${location.origin}, in its config: server.origins: ["${location.origin}"].`),
    name,
    url,
    token,
    h('label', {}, remember, ' remember on this device'),
    h('button', { type: 'submit', class: 'primary', testid: 'add-submit' }, 'Add'),
    err,
  );
  const cards = [...bots.values()].map(botCard);
  for (const c of cards) grid.append(c.card);
  el.append(h('h1', {}, 'Bots'), grid, form);
  return () => cards.forEach((c) => c.off());
}

/** @param {HTMLElement} el */
function connectPage(el) {
  const home = bots.get(HOME);
  const token = h('input', { type: 'password', id: 'token', required: true, autocomplete: 'off', testid: 'token', minlength: 16 });
  const remember = h('input', { type: 'checkbox', id: 'remember', testid: 'remember', checked: home?.entry.remember ?? false });
  const err = h('p', { class: 'error', testid: 'connect-error' });
  const submit = h('button', { type: 'submit', class: 'primary', testid: 'connect' }, 'Connect');
  el.append(
    h(
      'form',
      {
        class: 'connect',
        testid: 'connect-form',
        onsubmit: async (e) => {
          e.preventDefault();
          submit.disabled = true;
          const entry = { id: HOME, name: location.host, url: location.origin, token: token.value.trim(), remember: remember.checked };
          try {
            await new Bot(entry).get('/api/v1/status');
          } catch (x) {
            err.textContent =
              x instanceof ApiError && x.status === 401
                ? 'This token is refused: give the read-only or the control token the bot printed at start (or set in MIZAN_SERVER_TOKEN / MIZAN_SERVER_CONTROL_TOKEN).'
                : /** @type {Error} */ (x).message;
            submit.disabled = false;
            return;
          }
          removeBot(HOME);
          const others = [...bots.values()];
          bots.clear();
          addBot(entry);
          for (const b of others) bots.set(b.entry.id, b);
          saveEntries();
          location.hash = '#/overview';
          render();
        },
      },
      h('h1', {}, `Connect to ${location.host}`),
      h(
        'p',
        {},
        "Give the bot's token: the read-only one to watch, the control one to halt, resume, stop strategies and cancel orders. It stays in this browser and is sent only to the bot, in a header.",
      ),
      h('label', { for: 'token' }, 'Token'),
      token,
      h('label', {}, remember, ' remember on this device (else forgotten when the tab closes)'),
      submit,
      err,
    ),
  );
  token.focus();
  return () => undefined;
}

// ------------------------------------------------------------------------------------ start
for (const e of loadEntries()) addBot(e);
const botSelect = byId('bot-select', HTMLSelectElement);
botSelect.addEventListener('change', () => {
  sessionStorage.setItem(SELECTED, botSelect.value);
  if (currentRoute()[0] === 'bots' || currentRoute()[0] === 'strategy') location.hash = '#/overview';
  render();
});
byId('forget', HTMLButtonElement).addEventListener('click', () => {
  for (const id of [...bots.keys()]) removeBot(id);
  localStorage.removeItem(KEY);
  sessionStorage.removeItem(KEY);
  location.hash = '#/connect';
  render();
});
window.addEventListener('hashchange', render);
render();
