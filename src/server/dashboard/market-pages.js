// @ts-check
// The Books and Positions pages, and amounts shown at each market's precision (the bot's status
// lists every market's decimals: prices and quantities as the exchange writes them, money in an
// asset at that asset's decimals, the reference asset's for equity).
import { ago, badge, clear, h, live, money, signClass, table, time, toast } from './ui.js';

/** @typedef {import('./bot.js').Bot} Bot */
/** @typedef {string | number | null | undefined} Amount a decimal string (or a number) */

/**
 * Formatters of the bot's markets and assets (a value with its full digits stays in the title).
 * @param {Bot} bot
 */
export function fmt(bot) {
  const markets = new Map((bot.status?.markets ?? []).map((m) => [m.symbol, m]));
  /** @type {Map<string, number>} decimals by asset */
  const assets = new Map();
  for (const m of markets.values()) {
    assets.set(m.base, m.basePrecision);
    assets.set(m.quote, m.quotePrecision);
  }
  const refDp = bot.status?.referencePrecision ?? 2;
  return {
    /** @type {(symbol: string, v: Amount) => string} */
    price: (symbol, v) => money(v, markets.get(symbol)?.pricePrecision ?? 8),
    /** @type {(symbol: string, v: Amount) => string} */
    qty: (symbol, v) => money(v, markets.get(symbol)?.quantityPrecision ?? 8),
    /** @type {(symbol: string, v: Amount) => string} */
    base: (symbol, v) => money(v, markets.get(symbol)?.basePrecision ?? 8),
    /** @type {(symbol: string, v: Amount) => string} */
    quote: (symbol, v) => money(v, markets.get(symbol)?.quotePrecision ?? 8),
    /** @type {(asset: string, v: Amount) => string} */
    asset: (asset, v) => money(v, assets.get(asset) ?? 8),
    /** @type {(v: Amount) => string} */
    ref: (v) => money(v, refDp),
    /** @type {(symbol: string) => string} */
    quoteOf: (symbol) => markets.get(symbol)?.quote ?? '',
  };
}

/**
 * @param {HTMLElement} el
 * @param {Bot} bot
 */
export function booksPage(el, bot) {
  const box = h('section', {});
  el.append(
    h('h1', {}, `${bot.name}: books`),
    h('p', { class: 'muted' }, 'Best bid and ask, the spread, and the quantity resting within 1 % of the mid on each side.'),
    box,
  );
  /** @type {import('../port.js').BookDto[] | null} */
  let books = null;
  let error = '';
  /** @param {HTMLElement} b */
  const draw = (b) => {
    if (error) b.append(h('p', { class: 'error' }, error));
    if (!books) return;
    const f = fmt(bot);
    /** @type {(x: import('../port.js').BookDto, l: import('../port.js').LevelDto | null) => string} */
    const lvl = (x, l) => (l ? `${f.price(x.symbol, l.price)} × ${f.qty(x.symbol, l.quantity)}` : '—');
    b.append(
      table(
        [
          ['market', (x) => x.symbol],
          ['health', (x) => badge(x.healthy ? 'healthy' : 'unhealthy', x.healthy ? 'ok' : 'bad')],
          ['best bid', (x) => h('span', { class: 'pos', testid: 'best-bid' }, lvl(x, x.bestBid))],
          ['best ask', (x) => h('span', { class: 'neg', testid: 'best-ask' }, lvl(x, x.bestAsk))],
          ['spread', (x) => h('span', { testid: 'spread' }, x.spread === null ? '—' : `${f.price(x.symbol, x.spread)} (${x.spreadBps} bps)`)],
          [
            'bid depth ±1 %',
            (x) =>
              h(
                'span',
                { testid: 'bid-depth' },
                x.depth
                  ? `${f.qty(x.symbol, x.depth.bid.quantity)} (${f.quote(x.symbol, x.depth.bid.notional)} ${f.quoteOf(x.symbol)}, ${x.depth.bid.levels} levels)`
                  : '—',
              ),
          ],
          [
            'ask depth ±1 %',
            (x) =>
              h(
                'span',
                { testid: 'ask-depth' },
                x.depth
                  ? `${f.qty(x.symbol, x.depth.ask.quantity)} (${f.quote(x.symbol, x.depth.ask.notional)} ${f.quoteOf(x.symbol)}, ${x.depth.ask.levels} levels)`
                  : '—',
              ),
          ],
          ['last update', (x) => (x.lastUpdateAt ? `${ago(x.lastUpdateAt)} (${time(x.lastUpdateAt)})` : 'never')],
        ],
        books,
        { testid: 'books', rowAttrs: (x) => ({ dataset: { symbol: x.symbol } }) },
      ),
    );
  };
  const redraw = () => {
    clear(box);
    draw(box);
  };
  // Read again with each status the stream pushes (every 2 s): the books move all the time.
  const read = () =>
    bot
      .get('/api/v1/books')
      .then((r) => {
        books = r.books;
        error = '';
        redraw();
      })
      .catch((err) => {
        error = err.message;
        redraw();
      });
  read();
  const off = live(bot, box, ['status'], (b) => {
    draw(b);
    read();
  });
  return off;
}

/**
 * @param {HTMLElement} el
 * @param {Bot} bot
 */
export function positionsPage(el, bot) {
  const spot = h('section', {});
  const bal = h('section', {});
  const margin = h('section', {});
  el.append(
    h('h1', {}, `${bot.name}: positions`),
    h('h2', {}, 'Positions by strategy'),
    spot,
    h('h2', {}, 'Balances'),
    bal,
    h('h2', {}, 'Margin positions'),
    margin,
  );
  const off = live(bot, spot, ['strategies'], (box) => {
    const f = fmt(bot);
    const rows = [...bot.strategies.values()].flatMap((s) => s.pnl.filter((p) => Number(p.position) !== 0).map((p) => ({ s: s.name, ...p })));
    box.append(
      table(
        [
          ['strategy', (r) => r.s],
          ['market', (r) => r.symbol],
          ['position', (r) => f.base(r.symbol, r.position)],
          ['avg price', (r) => f.price(r.symbol, r.avgPrice)],
          ['price', (r) => h('span', { testid: 'position-price', dataset: { value: r.price ?? '' } }, r.price === null ? '—' : f.price(r.symbol, r.price))],
          [
            'value',
            (r) =>
              h(
                'span',
                { testid: 'position-value', dataset: { value: r.value ?? '' } },
                r.value === null ? '—' : `${f.quote(r.symbol, r.value)} ${f.quoteOf(r.symbol)}`,
              ),
          ],
          ['unrealised', (r) => h('span', { class: signClass(r.unrealized) }, f.quote(r.symbol, r.unrealized))],
          ['realised', (r) => h('span', { class: signClass(r.realized) }, f.quote(r.symbol, r.realized))],
        ],
        rows,
        { testid: 'positions', empty: 'no open position', rowAttrs: (r) => ({ dataset: { strategy: r.s, symbol: r.symbol } }) },
      ),
    );
  });
  // Balances and margin positions change with fills: read again after each burst of them. The
  // positions' price and value move with the market: their strategies are read with each status.
  /** @type {number | undefined} */
  let pending;
  const read = () => {
    Promise.all([bot.get('/api/v1/balances'), bot.get('/api/v1/margin/positions')])
      .then(([b, m]) => {
        const f = fmt(bot);
        clear(bal);
        for (const [account, list] of Object.entries(b.accounts)) {
          bal.append(
            h('h3', {}, `account ${account}`),
            table(
              [
                ['asset', (x) => x.asset],
                ['value', (x) => f.asset(x.asset, x.value)],
                ['locked', (x) => f.asset(x.asset, x.locked)],
              ],
              list,
              { testid: `balances-${account}` },
            ),
          );
        }
        clear(margin);
        margin.append(
          table(
            [
              ['id', (p) => p.id],
              ['market', (p) => p.market],
              ['side', (p) => p.side],
              ['state', (p) => p.state],
              ['strategy', (p) => p.strategy ?? ''],
            ],
            m.positions,
            { testid: 'margin', empty: 'no margin position' },
          ),
        );
      })
      .catch((err) => toast(err.message, 'error'));
  };
  read();
  const off2 = bot.on((topic) => {
    if (topic === 'status') bot.refreshStrategiesSoon();
    if (topic !== 'fill' && topic !== 'load') return;
    clearTimeout(pending);
    pending = setTimeout(read, 500);
  });
  return () => {
    off();
    off2();
    clearTimeout(pending);
  };
}
