/**
 * The browser side of the HTML report (report-html.ts puts the data in): its CSS, and the script
 * that draws one lightweight-charts chart whose panes share one time axis (per market: candles with
 * the price plots and the trade markers, volume, the strategy's other plot panes; then equity and
 * drawdown), labels the panes, and makes the trades table sort (click a header), filter (text, side,
 * strategy) and jump to a trade on the chart (click a row). `window.__report` exposes the chart,
 * the pane list and the state for the browser tests.
 */

export const REPORT_CSS = `
body{font-family:system-ui,sans-serif;margin:16px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:24px}
#chart-wrap{position:relative;width:100%;border:1px solid #ddd}#chart{width:100%}
.pane-label{position:absolute;left:6px;font-size:11px;color:#555;background:rgba(255,255,255,.8);padding:0 3px;pointer-events:none;z-index:3}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top}
.num{text-align:right;font-variant-numeric:tabular-nums}.def{color:#555;max-width:600px}
.pos{color:#2e7d32}.neg{color:#c62828}
.breakdowns{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}.breakdowns h3{font-size:13px;margin:4px 0}
#trades th{cursor:pointer;user-select:none;background:#f5f5f5}#trades th[aria-sort=ascending]::after{content:" ▲"}#trades th[aria-sort=descending]::after{content:" ▼"}
#trades tbody tr{cursor:pointer}#trades tbody tr:hover{background:#f0f6ff}#trades tbody tr.selected{background:#ffe9b3}
.filters{margin:8px 0;display:flex;gap:8px;align-items:center;font-size:13px}
`;

/** The script (plain JS, runs after lightweight-charts and `const DATA = …`). */
export const REPORT_SCRIPT = String.raw`
const LC = LightweightCharts;
const PALETTE = ['#1e88e5', '#fb8c00', '#8e24aa', '#00897b', '#6d4c41', '#d81b60', '#3949ab', '#7cb342'];
const HEIGHT = { price: 340, volume: 80, indicator: 130, equity: 160, tradePnl: 110, drawdown: 110 };
const wrap = document.getElementById('chart-wrap');
const el = document.getElementById('chart');
const pad2 = (n) => String(n).padStart(2, '0');
const utc = (sec) => { const d = new Date(sec * 1000); return d.getUTCFullYear() + '-' + pad2(d.getUTCMonth() + 1) + '-' + pad2(d.getUTCDate()) + ' ' + pad2(d.getUTCHours()) + ':' + pad2(d.getUTCMinutes()); };
const panes = [];
const total = () => panes.reduce((a, p) => a + p.height, 0);
const chart = LC.createChart(el, {
  width: el.clientWidth,
  height: 400,
  timeScale: { timeVisible: true, secondsVisible: false, minBarSpacing: 0.01 },
  rightPriceScale: { minimumWidth: 90 },
  localization: { timeFormatter: (t) => utc(t) + ' UTC' },
  crosshair: { mode: LC.CrosshairMode.Normal },
});
let colour = 0;
const nextColour = () => PALETTE[colour++ % PALETTE.length];
function line(pane, p, width) {
  const s = chart.addSeries(LC.LineSeries, { color: p.color || nextColour(), lineWidth: width || 1, title: p.label, priceLineVisible: false, lastValueVisible: true, crosshairMarkerVisible: false }, pane);
  s.setData(p.data);
  return s;
}
DATA.markets.forEach((m) => {
  const price = panes.length;
  const candles = chart.addSeries(LC.CandlestickSeries, { title: m.symbol }, price);
  candles.setData(m.candles);
  LC.createSeriesMarkers(candles, m.markers);
  m.overlays.forEach((p) => line(price, p));
  panes.push({ kind: 'price', symbol: m.symbol, label: m.symbol + ' candles' + (m.overlays.length ? ' with ' + m.overlays.map((p) => p.label).join(', ') : ''), height: HEIGHT.price });
  const vol = panes.length;
  chart.addSeries(LC.HistogramSeries, { priceFormat: { type: 'volume' }, title: 'volume', priceLineVisible: false }, vol).setData(m.volume);
  panes.push({ kind: 'volume', symbol: m.symbol, label: m.symbol + ' volume', height: HEIGHT.volume });
  m.panes.forEach((ip) => {
    const at = panes.length;
    const series = ip.series.map((p) => line(at, p));
    // Levels: dashed horizontal lines on the pane's first series (they scale with it).
    ip.levels.forEach((lv) => series[0] && series[0].createPriceLine({ price: lv, color: '#9e9e9e', lineWidth: 1, lineStyle: LC.LineStyle.Dashed, axisLabelVisible: true, title: '' }));
    panes.push({ kind: 'indicator', symbol: m.symbol, name: ip.name, label: m.symbol + ' ' + ip.name + ': ' + ip.series.map((p) => p.label).join(', '), height: HEIGHT.indicator });
  });
});
const eq = panes.length;
line(eq, { label: 'equity ' + DATA.reference, color: '#1565c0', data: DATA.equity }, 2);
if (DATA.hold) line(eq, { label: DATA.hold.label, color: '#9e9e9e', data: DATA.hold.data }, 1);
panes.push({ kind: 'equity', label: 'equity (' + DATA.reference + ')' + (DATA.hold ? ' and ' + DATA.hold.label : ''), height: HEIGHT.equity });
const tp = panes.length;
chart.addSeries(LC.HistogramSeries, { title: 'trade P/L', priceLineVisible: false, lastValueVisible: false }, tp).setData(DATA.tradePnl);
panes.push({ kind: 'tradePnl', label: 'trade P/L (' + DATA.reference + ', per bar at exit)', height: HEIGHT.tradePnl });
const dd = panes.length;
chart.addSeries(LC.AreaSeries, { lineColor: '#c62828', topColor: 'rgba(198,40,40,0.1)', bottomColor: 'rgba(198,40,40,0.4)', title: 'drawdown %', priceLineVisible: false }, dd).setData(DATA.drawdown);
panes.push({ kind: 'drawdown', label: 'drawdown (%)', height: HEIGHT.drawdown });
chart.resize(el.clientWidth, total() + 30);
chart.timeScale().fitContent();
function placeLabels() {
  wrap.querySelectorAll('.pane-label').forEach((n) => n.remove());
  let top = 0;
  chart.panes().forEach((p, i) => {
    const div = document.createElement('div');
    div.className = 'pane-label';
    div.style.top = (top + 2) + 'px';
    div.textContent = panes[i].label;
    wrap.appendChild(div);
    top += p.getHeight() + 1;
  });
}
// Pane heights as stretch factors (shares of the chart's height), then the labels once laid out.
chart.panes().forEach((p, i) => p.setStretchFactor(panes[i].height));
requestAnimationFrame(() => {
  placeLabels();
  window.__charts = 1;
});
window.addEventListener('resize', () => { chart.resize(el.clientWidth, total() + 30); placeLabels(); });

// The trades table: sort, filter, jump to a trade.
const table = document.getElementById('trades');
const body = table.tBodies[0];
const rows = Array.from(body.rows);
const shown = document.getElementById('trades-shown');
const filters = { text: document.getElementById('filter-text'), side: document.getElementById('filter-side'), strategy: document.getElementById('filter-strategy') };
function applyFilters() {
  const q = filters.text.value.trim().toLowerCase();
  let n = 0;
  rows.forEach((r) => {
    const ok = (!q || r.textContent.toLowerCase().includes(q)) && (!filters.side.value || r.dataset.side === filters.side.value) && (!filters.strategy.value || r.dataset.strategy === filters.strategy.value);
    r.hidden = !ok;
    if (ok) n++;
  });
  shown.textContent = n + ' of ' + rows.length + ' trades';
}
Object.values(filters).forEach((f) => f.addEventListener('input', applyFilters));
Array.from(table.tHead.rows[0].cells).forEach((th, col) => {
  th.addEventListener('click', () => {
    const dir = th.getAttribute('aria-sort') === 'ascending' ? 'descending' : 'ascending';
    Array.from(table.tHead.rows[0].cells).forEach((h) => h.removeAttribute('aria-sort'));
    th.setAttribute('aria-sort', dir);
    const num = th.dataset.type === 'num';
    const key = (r) => { const v = r.cells[col].dataset.v ?? r.cells[col].textContent; return num ? Number(v) : v; };
    const sorted = rows.slice().sort((a, b) => { const x = key(a), y = key(b); const c = num ? x - y : String(x).localeCompare(String(y)); return (dir === 'ascending' ? c : -c) || Number(a.dataset.i) - Number(b.dataset.i); });
    sorted.forEach((r) => body.appendChild(r));
  });
});
const step = DATA.step;
rows.forEach((r) => r.addEventListener('click', () => {
  rows.forEach((x) => x.classList.remove('selected'));
  r.classList.add('selected');
  const from = Number(r.dataset.entry), to = Number(r.dataset.exit);
  // The trade with some candles either side (at least 20 bars in view).
  const span = Math.max(to - from, 20 * step);
  chart.timeScale().setVisibleRange({ from: from - span / 2, to: to + span / 2 });
  wrap.scrollIntoView({ behavior: 'instant', block: 'start' });
  window.__report.focused = { entry: from, exit: to };
}));
applyFilters();
window.__report = { chart, panes, focused: null };
// Set to 1 once the chart is laid out and labelled (the browser tests wait for it).
window.__charts = 0;
window.__chartsExpected = 1;
`;
