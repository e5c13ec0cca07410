/**
 * The self-contained HTML report: lightweight-charts inlined (no network, works from file://), one
 * chart whose panes share one time axis: per market its candles with entry and exit markers and the
 * strategies' price plots, its volume, the strategies' other plot panes; then equity and drawdown.
 * Every series is put on one grid of bar times (the candles aggregated to at most `maxCandles`
 * bars for the page; an equity sample or plot point taken at a candle's close is drawn at that
 * candle), so the panes open and end at the same bar. Below: the breakdowns by strategy, market and
 * exit reason, the metrics with their definitions, and the trades table (sortable, filterable,
 * amounts at the market's precision, times in UTC, a click shows the trade on the chart).
 */
import { formatBookMetrics } from './book/book-stats.js';
import type { BookChartMarket } from './book/book-chart.js';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fixed, utcMinute } from './report-format.js';
import { METRIC_DEFINITIONS, formatDuration, formatMetricValue } from './metrics/index.js';
import type { Series } from './data.js';
import { resampleColumns } from './data.js';
import { formatAmount, pnlDigits, type BreakdownRow } from './breakdowns.js';
import type { BacktestResult } from './result.js';
import { REPORT_CSS, REPORT_SCRIPT } from './report-page.js';

/** Above this many trades per market the markers carry no text. */
const MAX_LABELLED_TRADES = 40;

/** The standalone build of lightweight-charts, found from its package.json (its exports map hides the file itself). */
function chartLibrary(): string {
  const root = join(dirname(createRequire(import.meta.url).resolve('lightweight-charts/package.json')), 'dist');
  return readFileSync(join(root, 'lightweight-charts.standalone.production.js'), 'utf8');
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
/** JSON inside a <script>: no `</script>` can end it early. */
const safeJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

/** A value JSON.stringify leaves out of an object (and writes as null in an array). */
const omitted = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';

const walked = (v: unknown): v is object => {
  if (typeof v !== 'object' || v === null) return false;
  if (Array.isArray(v)) return true;
  const proto = Object.getPrototypeOf(v) as unknown;
  return (proto === Object.prototype || proto === null) && typeof (v as { toJSON?: unknown }).toJSON !== 'function';
};

/**
 * safeJson's text in pieces (joined, exactly safeJson(v)): plain arrays and objects are walked
 * `maxDepth` levels down and every value below is given to safeJson, so the chart's data is never one
 * string: at a million candles its trade markers alone made it 5.7 MB, held several times over (the
 * text, its escaped copy, the page's last piece, its scrubbed copy, the write's join), ~25 MB at the
 * run's peak memory.
 */
function* safeJsonPieces(v: unknown, maxDepth: number, depth = 0): Generator<string> {
  if (depth >= maxDepth || !walked(v)) {
    yield omitted(v) ? 'null' : safeJson(v);
    return;
  }
  if (Array.isArray(v)) {
    yield '[';
    for (let i = 0; i < v.length; i++) {
      if (i > 0) yield ',';
      yield* safeJsonPieces(v[i], maxDepth, depth + 1);
    }
    yield ']';
    return;
  }
  const o = v as Record<string, unknown>;
  let first = true;
  for (const key of Object.keys(o)) {
    const x = o[key];
    if (omitted(x)) continue;
    yield `${first ? '{' : ','}${safeJson(key)}:`;
    first = false;
    yield* safeJsonPieces(x, maxDepth, depth + 1);
  }
  yield first ? '{}' : '}';
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * The page's bar length (seconds): a multiple of every market's candle length (so each market's
 * candles aggregate onto the same grid), large enough that no market shows more than `maxCandles`.
 */
export function chartStep(series: readonly Series[], maxCandles: number): number {
  const base = series.reduce((a, s) => (a * s.resSec) / gcd(a, s.resSec), 1);
  const bars = Math.max(0, ...series.map((s) => ((s.length - s.firstIndex) * s.resSec) / base));
  return base * Math.max(1, Math.ceil(bars / maxCandles));
}

type Point = { time: number; value?: number };

/** Points taken at a time `t` (ms, a candle's close) on the grid: the bar that closed then (the first bar at the latest), last value per bar. */
function onGrid(times: readonly number[], values: readonly (number | null)[], step: number, first: number): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < times.length; i++) {
    const bar = Math.max(first, Math.floor((times[i]! - 1) / 1000 / step) * step);
    const v = values[i];
    const p: Point = v === null || v === undefined ? { time: bar } : { time: bar, value: v };
    if (out.length > 0 && out[out.length - 1]!.time === bar) out[out.length - 1] = p;
    else out.push(p);
  }
  return out;
}

/** One market's candles, volume, trade markers and plot series on the page's grid. */
function marketChart(r: BacktestResult, s: Series, step: number) {
  const at = s.firstIndex;
  let c = {
    length: s.length - at,
    time: s.time.subarray(at),
    open: s.open.subarray(at),
    high: s.high.subarray(at),
    low: s.low.subarray(at),
    close: s.close.subarray(at),
    volume: s.volume.subarray(at),
  };
  if (step !== s.resSec) c = resampleColumns(c, step);
  const candles = [];
  const volume = [];
  for (let i = 0; i < c.length; i++) {
    candles.push({ time: c.time[i]!, open: c.open[i]!, high: c.high[i]!, low: c.low[i]!, close: c.close[i]! });
    volume.push({ time: c.time[i]!, value: c.volume[i]!, color: c.close[i]! >= c.open[i]! ? 'rgba(38,166,154,0.5)' : 'rgba(239,83,80,0.5)' });
  }
  const first = c.length > 0 ? c.time[0]! : 0;
  const snap = (ms: number) => Math.max(first, Math.floor(ms / 1000 / step) * step);
  const book = r.bookChart?.find((b) => b.symbol === s.symbol);
  const trades = r.trades.filter((t) => t.symbol === s.symbol);
  // Labels only while they stay readable; with many trades the arrows alone show the entries and
  // exits (prices are in the trades table).
  const labels = trades.length <= MAX_LABELLED_TRADES;
  const markers = book
    ? fillMarkers(book, snap)
    : trades
        .flatMap((t) => {
          // A buy is a green arrow up under the bar, a sell a red arrow down over it: a long enters with
          // a buy and exits with a sell, a short the other way round.
          const buy = { position: 'belowBar', color: '#2e7d32', shape: 'arrowUp' };
          const sell = { position: 'aboveBar', color: '#c62828', shape: 'arrowDown' };
          const long = t.side === 'long';
          return [
            { time: snap(t.entryTime), ...(long ? buy : sell), text: labels ? `${t.strategy} ${long ? 'in' : 'short'} ${t.entryPrice}` : '' },
            { time: snap(t.exitTime), ...(long ? sell : buy), text: labels ? `${t.strategy} out ${t.exitPrice}` : '' },
          ];
        })
        .sort((a, b) => a.time - b.time);
  const plots = r.plots.filter((p) => p.symbol === s.symbol);
  const several = new Set(plots.map((p) => p.strategy)).size > 1;
  const series = (p: (typeof plots)[number]) => ({
    label: several ? `${p.strategy}.${p.name}` : p.name,
    color: p.color,
    data: onGrid(p.times, p.values, step, first),
  });
  const overlays = plots.filter((p) => p.pane === 'price').map(series);
  const panes: { name: string; levels: number[]; series: ReturnType<typeof series>[] }[] = [];
  if (book) {
    const grid = (values: readonly (number | null)[]) => onGrid(book.times, values, step, first);
    overlays.unshift(
      { label: 'mid', color: '#546e7a', data: grid(book.mid) },
      { label: 'your bid', color: '#2e7d32', data: grid(book.bid) },
      { label: 'your ask', color: '#c62828', data: grid(book.ask) },
    );
    const spread = book.times.map((_, i) => {
      const [b, a, m] = [book.bid[i], book.ask[i], book.mid[i]];
      return b != null && a != null && m != null && m > 0 ? ((a - b) / m) * 10_000 : null;
    });
    panes.push({ name: 'quoted spread (bps)', levels: [], series: [{ label: 'your ask − your bid, bps of the mid', color: '#6d4c41', data: grid(spread) }] });
    panes.push({ name: `inventory (${book.base})`, levels: [0], series: [{ label: `${book.base} held`, color: '#3949ab', data: grid(book.inventory) }] });
  }
  for (const p of plots.filter((x) => x.pane !== 'price')) {
    const name = several ? `${p.strategy}.${p.pane}` : p.pane;
    let pane = panes.find((x) => x.name === name);
    if (!pane) panes.push((pane = { name, levels: [], series: [] }));
    for (const lv of p.levels) if (!pane.levels.includes(lv)) pane.levels.push(lv);
    pane.series.push(series(p));
  }
  return { symbol: s.symbol, candles, volume, markers, overlays, panes, first };
}

/** A book run's fills as chart markers: a buy under the bar, a sell over it; maker fills labelled M, taker T (while readable). */
function fillMarkers(book: BookChartMarket, snap: (ms: number) => number) {
  const labels = book.fills.length <= MAX_LABELLED_TRADES;
  return book.fills.map((f) => ({
    time: snap(f.t),
    ...(f.side === 'BUY' ? { position: 'belowBar', color: '#2e7d32', shape: 'arrowUp' } : { position: 'aboveBar', color: '#c62828', shape: 'arrowDown' }),
    text: labels ? `${f.liquidity === 'maker' ? 'M' : 'T'} ${f.quantity} @ ${f.price}` : '',
  }));
}

function breakdownTable(id: string, title: string, rows: readonly BreakdownRow[], reference: string): string {
  const digits = pnlDigits(rows);
  const body = rows
    .map((b) => {
      const pnl = Number(b.pnl);
      return `<tr><td>${esc(b.key)}</td><td class="num">${b.trades}</td><td class="num">${b.winRatePct.toFixed(1)}</td><td class="num ${pnl > 0 ? 'pos' : pnl < 0 ? 'neg' : ''}" data-v="${esc(b.pnl)}">${esc(formatAmount(pnl, digits))}${b.unvalued > 0 ? ` (+${b.unvalued} unvalued)` : ''}</td><td class="num" data-v="${b.avgDurationMs}">${esc(formatDuration(b.avgDurationMs))}</td></tr>`;
    })
    .join('\n');
  return `<div><h3>by ${esc(title)}</h3><table id="${id}"><thead><tr><th>${esc(title)}</th><th>trades</th><th>win %</th><th>pnl ${esc(reference)}</th><th>avg duration</th></tr></thead><tbody>
${body}
</tbody></table></div>`;
}

function* tradesTable(r: BacktestResult, step: number, firstBar: (symbol: string) => number): Generator<string> {
  const prec = (symbol: string) => r.run.markets[symbol] ?? { pricePrecision: 8, quantityPrecision: 8, quote: r.run.reference, base: '' };
  const bar = (symbol: string, ms: number) => Math.max(firstBar(symbol), Math.floor(ms / 1000 / step) * step);
  const row = (t: BacktestResult['trades'][number], i: number): string => {
    const m = prec(t.symbol);
    const pnl = Number(t.pnl);
    const cls = pnl > 0 ? 'pos' : pnl < 0 ? 'neg' : '';
    const quote = t.quote ?? m.quote;
    return `<tr data-i="${i}" data-side="${t.side}" data-strategy="${esc(t.strategy)}" data-entry="${bar(t.symbol, t.entryTime)}" data-exit="${bar(t.symbol, t.exitTime)}"><td>${esc(t.strategy)}</td><td>${esc(t.symbol)}</td><td>${t.side}</td><td data-v="${t.entryTime}">${utcMinute(t.entryTime)}</td><td data-v="${t.exitTime}">${utcMinute(t.exitTime)}</td><td class="num" data-v="${t.exitTime - t.entryTime}">${esc(formatDuration(t.exitTime - t.entryTime))}</td><td class="num" data-v="${esc(t.entryPrice)}">${fixed(t.entryPrice, m.pricePrecision)}</td><td class="num" data-v="${esc(t.exitPrice)}">${fixed(t.exitPrice, m.pricePrecision)}</td><td class="num" data-v="${esc(t.quantity)}">${fixed(t.quantity, m.quantityPrecision)}</td><td class="num ${cls}" data-v="${esc(t.pnl)}">${fixed(t.pnl, m.pricePrecision)} ${esc(quote)}</td><td class="num ${cls}" data-v="${t.pnlPct}">${t.pnlPct.toFixed(2)}</td><td class="num" data-v="${esc(t.fees)}">${fixed(t.fees, m.pricePrecision)}</td><td>${esc(t.exit)}</td></tr>`;
  };
  const strategies = [...new Set(r.trades.map((t) => t.strategy))].sort();
  const head = [
    ['strategy', 'text'],
    ['market', 'text'],
    ['side', 'text'],
    ['entry (UTC)', 'num'],
    ['exit (UTC)', 'num'],
    ['duration', 'num'],
    ['entry price', 'num'],
    ['exit price', 'num'],
    ['quantity', 'num'],
    ['pnl', 'num'],
    ['pnl %', 'num'],
    ['fees', 'num'],
    ['exit reason', 'text'],
  ]
    .map(([h, type]) => `<th data-type="${type}">${esc(h!)}</th>`)
    .join('');
  yield `<div class="filters"><input id="filter-text" type="search" placeholder="filter: any text"> <select id="filter-side"><option value="">both sides</option><option value="long">long</option><option value="short">short</option></select> <select id="filter-strategy"><option value="">every strategy</option>${strategies.map((s) => `<option value="${esc(s)}">${esc(s)}</option>`).join('')}</select> <span id="trades-shown"></span> <i>click a header to sort, a row to see the trade on the chart</i></div>
<table id="trades"><thead><tr>${head}</tr></thead><tbody>
`;
  // One row a piece: a run's trades can be tens of thousands of rows.
  for (let i = 0; i < r.trades.length; i++) yield (i > 0 ? '\n' : '') + row(r.trades[i]!, i);
  yield '\n</tbody></table>';
}

/**
 * Buy and hold, as backtesting.py draws it: the starting equity split equally over the run's markets
 * quoted in the reference asset, bought at the first candle's open and held (no fees), valued at each
 * equity sample's last close. Undefined when no market is quoted in the reference asset.
 */
function buyAndHold(r: BacktestResult, series: readonly Series[]): { values: number[]; symbols: string[] } | undefined {
  const held = series.filter((s) => r.run.markets[s.symbol]?.quote === r.run.reference && s.length > s.firstIndex);
  if (held.length === 0 || r.equity.times.length === 0) return undefined;
  const start = r.equity.values[0]! / held.length;
  const ptr = held.map((s) => s.firstIndex);
  const last = held.map((s) => s.open[s.firstIndex]!);
  const base = [...last];
  const values = r.equity.times.map((t) => {
    let v = 0;
    held.forEach((s, j) => {
      let i = ptr[j]!;
      for (; i < s.length && (s.time[i]! + s.resSec) * 1000 <= t; i++) last[j] = s.close[i]!;
      ptr[j] = i;
      v += (start * last[j]!) / base[j]!;
    });
    return v;
  });
  return { values, symbols: held.map((s) => s.symbol) };
}

/** Each closed trade's pnl in the reference asset, summed per chart bar at its exit (green a gain, red a loss). */
function tradePnlBars(r: BacktestResult, step: number, first: number): { time: number; value: number; color: string }[] {
  const byBar = new Map<number, number>();
  for (const t of r.trades) {
    if (t.exit === 'open at end') continue;
    const pnl = Number(t.quote === undefined ? t.pnl : t.pnlReference);
    if (!Number.isFinite(pnl)) continue;
    const bar = Math.max(first, Math.floor((t.exitTime - 1) / 1000 / step) * step);
    byBar.set(bar, (byBar.get(bar) ?? 0) + pnl);
  }
  return [...byBar].sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ time, value, color: value >= 0 ? 'rgba(38,166,154,0.8)' : 'rgba(239,83,80,0.8)' }));
}

export function renderHtmlReport(r: BacktestResult, series: readonly Series[], maxCandles = 5000): string {
  return [...htmlReportPieces(r, series, maxCandles)].join('');
}

/** The report's text in pieces (joined: `renderHtmlReport`), to write a large one without holding it whole. */
export function* htmlReportPieces(r: BacktestResult, series: readonly Series[], maxCandles = 5000): Generator<string> {
  // The page's candle budget is shared between the markets; every pane is on one grid of `step`.
  const step = chartStep(series, Math.max(500, Math.floor(maxCandles / Math.max(1, series.length))));
  const markets = series.map((s) => marketChart(r, s, step));
  const first = Math.min(...markets.map((m) => (m.candles.length > 0 ? m.first : Infinity)));
  const firstBar = (symbol: string) => markets.find((m) => m.symbol === symbol)?.first ?? first;
  const equity: Point[] = onGrid(r.equity.times, r.equity.values, step, Number.isFinite(first) ? first : 0);
  const ddValues: number[] = [];
  let peak = -Infinity;
  for (const v of r.equity.values) {
    peak = Math.max(peak, v);
    ddValues.push(peak > 0 ? -(1 - v / peak) * 100 : 0);
  }
  const drawdown = onGrid(r.equity.times, ddValues, step, Number.isFinite(first) ? first : 0);
  const metricRows = METRIC_DEFINITIONS.map(
    (d) =>
      `<tr><td>${esc(d.name)}</td><td class="num">${esc(formatMetricValue(r.metrics[d.key], d.unit))}</td><td class="def">${esc(d.formula)}<br><i>n/a when: ${esc(d.na)}</i></td></tr>`,
  ).join('\n');
  const b = r.breakdowns;
  const title = `mizan backtest: ${r.run.strategies.map((x) => x.name).join(', ')} ${r.run.from.slice(0, 10)} .. ${r.run.to.slice(0, 10)}`;
  const grid0 = Number.isFinite(first) ? first : 0;
  const bh = buyAndHold(r, series);
  const hold = bh ? { label: `buy and hold ${bh.symbols.join(', ')}`, data: onGrid(r.equity.times, bh.values, step, grid0) } : undefined;
  // Empty bars at the run's first and last bar: the pane spans the run as every other does.
  const tradePnl = tradePnlBars(r, step, grid0);
  const ends = equity.length > 0 ? [equity[0]!.time, equity[equity.length - 1]!.time] : [];
  const empty = (time: number) => ({ time, value: 0, color: 'rgba(0,0,0,0)' });
  if (ends.length && (tradePnl.length === 0 || tradePnl[0]!.time > ends[0]!)) tradePnl.unshift(empty(ends[0]!));
  if (ends.length && tradePnl[tradePnl.length - 1]!.time < ends[1]!) tradePnl.push(empty(ends[1]!));
  const chartData = { step, reference: r.run.reference, markets: markets.map(({ first: _f, ...m }) => m), equity, hold, tradePnl, drawdown };
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>${REPORT_CSS}</style></head><body>
<h1>${esc(title)}</h1>
<p>Equity ${r.summary.startEquity.toFixed(2)} → ${r.summary.endEquity.toFixed(2)} ${esc(r.run.reference)}; ${r.summary.trades} trades, ${r.summary.orders} orders. Fill model: ${fillModelText(r.run.fillModel)}. Times in UTC; one chart bar = ${esc(formatDuration(step * 1000))}.</p>
${r.book ? `<p class="book-metrics"><b>Order book:</b> ${formatBookMetrics(r.book).map(esc).join('<br>')}</p>` : ''}
${r.data.problems.length ? `<p><b>Data:</b> ${r.data.problems.map(esc).join('<br>')}</p>` : ''}
${r.data.notes.length ? `<p><b>Data notes:</b> ${r.data.notes.map(esc).join('<br>')}</p>` : ''}
${r.errors.total > 0 ? `<p><b>Strategy handler errors: ${r.errors.total}</b><br>${r.errors.kinds.map((k) => esc(`${k.count} × ${k.strategy}.${k.handler}: ${k.error} (first at ${k.firstAt})`)).join('<br>')}</p>` : ''}
${r.denied.total > 0 ? `<p><b>Denied intents: ${r.denied.total}</b><br>${r.denied.byRule.map((x) => esc(`${x.rule}: ${x.count}`) + x.reasons.map((y) => `<br>&nbsp;&nbsp;${esc(`${y.count} × ${y.reason}`)}`).join('') + (x.otherReasons > 0 ? `<br>&nbsp;&nbsp;${x.otherReasons} × (other reasons)` : '')).join('<br>')}</p>` : ''}
<h2>${esc(markets.map((m) => m.symbol).join(', '))}: candles, volume, plots, equity (with buy and hold), trade P/L and drawdown</h2>
<div id="chart-wrap"><div id="chart"></div></div>
<h2>Breakdowns</h2>
<div class="breakdowns">
${breakdownTable('breakdown-strategy', 'strategy', b.byStrategy, b.reference)}
${breakdownTable('breakdown-market', 'market', b.byMarket, b.reference)}
${breakdownTable('breakdown-exit', 'exit reason', b.byExit, b.reference)}
</div>
<h2>Metrics</h2><table id="metrics"><tr><th>metric</th><th>value</th><th>definition</th></tr>
${metricRows}
</table>
<h2>Trades</h2>
`;
  yield* tradesTable(r, step, firstBar);
  yield `
<script>${chartLibrary()}</script>
<script>
const DATA = `;
  // Down to each candle, marker and point (chartData.markets[i].markers[j]).
  yield* safeJsonPieces(chartData, 4);
  yield `;
${REPORT_SCRIPT}
</script>
</body></html>
`;
}

/** The fill model in words: a candle run's slippage and limit rule, or a book run's queue model and latencies. */
function fillModelText(f: BacktestResult['run']['fillModel']): string {
  if (f.book) return `order book, ${f.book.queueModel} queue model, order entry ${f.book.entryLatencyMs} ms and cancel ${f.book.cancelLatencyMs} ms latency`;
  return `slippage ${f.slippagePct} %, ${f.fillOnTouch ? 'limits fill on touch' : 'limits fill when traded through'}${f.volumeCapPct !== null ? `, volume cap ${f.volumeCapPct} %` : ''}`;
}
