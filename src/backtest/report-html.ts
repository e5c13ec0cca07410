/**
 * The self-contained HTML report: lightweight-charts inlined (no network, works from file://),
 * candles with entry and exit markers, equity and drawdown curves, the trades table, and the
 * metrics with their definitions. Candles are aggregated to at most `maxCandles` bars for the page.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { METRIC_DEFINITIONS, formatMetricValue } from './metrics/index.js';
import type { Series } from './data.js';
import { resampleColumns } from './data.js';

/** Above this many trades per market the markers carry no text. */
const MAX_LABELLED_TRADES = 40;
import type { BacktestResult } from './result.js';

/** The standalone build of lightweight-charts, found from its package.json (its exports map hides the file itself). */
function chartLibrary(): string {
  const root = join(dirname(createRequire(import.meta.url).resolve('lightweight-charts/package.json')), 'dist');
  return readFileSync(join(root, 'lightweight-charts.standalone.production.js'), 'utf8');
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
/** JSON inside a <script>: no `</script>` can end it early. */
const safeJson = (v: unknown) => JSON.stringify(v).replace(/</g, '\\u003c');

function candleData(s: Series, maxCandles: number): { time: number; open: number; high: number; low: number; close: number }[] {
  let c = { length: s.length - s.firstIndex, time: s.time.subarray(s.firstIndex), open: s.open.subarray(s.firstIndex), high: s.high.subarray(s.firstIndex), low: s.low.subarray(s.firstIndex), close: s.close.subarray(s.firstIndex), volume: s.volume.subarray(s.firstIndex) };
  if (c.length > maxCandles) c = resampleColumns(c, s.resSec * Math.ceil(c.length / maxCandles));
  const out = [];
  for (let i = 0; i < c.length; i++) out.push({ time: c.time[i]!, open: c.open[i]!, high: c.high[i]!, low: c.low[i]!, close: c.close[i]! });
  return out;
}

/** One market's candles (aggregated to at most `maxCandles`) and its trades' entry and exit markers. */
function marketChart(r: BacktestResult, s: Series, maxCandles: number) {
  const candles = candleData(s, maxCandles);
  const step = candles.length > 1 ? candles[1]!.time - candles[0]!.time : s.resSec;
  const snap = (ms: number) => Math.floor(ms / 1000 / step) * step;
  const trades = r.trades.filter((t) => t.symbol === s.symbol);
  // Labels only while they stay readable; with many trades the arrows alone show the entries and
  // exits (prices are in the trades table).
  const labels = trades.length <= MAX_LABELLED_TRADES;
  const markers = trades
    .flatMap((t) => [
      { time: snap(t.entryTime), position: 'belowBar', color: '#2e7d32', shape: 'arrowUp', text: labels ? `${t.strategy} in ${t.entryPrice}` : '' },
      { time: snap(t.exitTime), position: 'aboveBar', color: '#c62828', shape: 'arrowDown', text: labels ? `${t.strategy} out ${t.exitPrice}` : '' },
    ])
    .sort((a, b) => a.time - b.time);
  return { symbol: s.symbol, candles, markers };
}

export function renderHtmlReport(r: BacktestResult, series: readonly Series[], maxCandles = 5000): string {
  // Every market of the run gets its candle chart; the page's candle budget is shared between them.
  const markets = series.map((s) => marketChart(r, s, Math.max(500, Math.floor(maxCandles / series.length))));
  const equity: { time: number; value: number }[] = [];
  const drawdown: { time: number; value: number }[] = [];
  let peak = -Infinity;
  for (let i = 0; i < r.equity.times.length; i++) {
    const time = Math.floor(r.equity.times[i]! / 1000);
    if (equity.length && equity[equity.length - 1]!.time >= time) continue;
    const v = r.equity.values[i]!;
    peak = Math.max(peak, v);
    equity.push({ time, value: v });
    drawdown.push({ time, value: peak > 0 ? -(1 - v / peak) * 100 : 0 });
  }
  const metricRows = METRIC_DEFINITIONS.map(
    (d) => `<tr><td>${esc(d.name)}</td><td class="num">${esc(formatMetricValue(r.metrics[d.key], d.unit))}</td><td class="def">${esc(d.formula)}<br><i>n/a when: ${esc(d.na)}</i></td></tr>`,
  ).join('\n');
  const tradeRows = r.trades
    .map(
      (t) =>
        `<tr><td>${esc(t.strategy)}</td><td>${esc(t.symbol)}</td><td>${t.side}</td><td>${new Date(t.entryTime).toISOString()}</td><td>${new Date(t.exitTime).toISOString()}</td><td class="num">${esc(t.entryPrice)}</td><td class="num">${esc(t.exitPrice)}</td><td class="num">${esc(t.quantity)}</td><td class="num">${esc(t.pnl)}</td><td class="num">${t.pnlPct.toFixed(2)}</td><td>${esc(t.exit)}</td></tr>`,
    )
    .join('\n');
  const title = `mizan backtest: ${r.run.strategies.map((x) => x.name).join(', ')} ${r.run.from.slice(0, 10)} .. ${r.run.to.slice(0, 10)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:16px;color:#222}h1{font-size:20px}h2{font-size:16px;margin-top:24px}
.chart{width:100%;height:360px;border:1px solid #ddd}.small{height:200px}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:3px 6px;vertical-align:top}.num{text-align:right;font-variant-numeric:tabular-nums}.def{color:#555;max-width:600px}
</style></head><body>
<h1>${esc(title)}</h1>
<p>Equity ${r.summary.startEquity.toFixed(2)} → ${r.summary.endEquity.toFixed(2)} ${esc(r.run.reference)}; ${r.summary.trades} trades, ${r.summary.orders} orders. Fill model: slippage ${r.run.fillModel.slippagePct} %, ${r.run.fillModel.fillOnTouch ? 'limits fill on touch' : 'limits fill when traded through'}${r.run.fillModel.volumeCapPct !== null ? `, volume cap ${r.run.fillModel.volumeCapPct} %` : ''}.</p>
${r.data.problems.length ? `<p><b>Data:</b> ${r.data.problems.map(esc).join('<br>')}</p>` : ''}
${r.data.notes.length ? `<p><b>Data notes:</b> ${r.data.notes.map(esc).join('<br>')}</p>` : ''}
${r.errors.total > 0 ? `<p><b>Strategy handler errors: ${r.errors.total}</b><br>${r.errors.kinds.map((k) => esc(`${k.count} × ${k.strategy}.${k.handler}: ${k.error} (first at ${k.firstAt})`)).join('<br>')}</p>` : ''}
${r.denied.total > 0 ? `<p><b>Denied intents: ${r.denied.total}</b><br>${r.denied.byRule.map((x) => esc(`${x.rule}: ${x.count}`) + x.reasons.map((y) => `<br>&nbsp;&nbsp;${esc(`${y.count} × ${y.reason}`)}`).join('') + (x.otherReasons > 0 ? `<br>&nbsp;&nbsp;${x.otherReasons} × (other reasons)` : '')).join('<br>')}</p>` : ''}
${markets.map((m, j) => `<h2>${esc(m.symbol)} candles with entries and exits</h2><div id="candles-${j}" class="chart candles"></div>`).join('\n')}
<h2>Equity</h2><div id="equity" class="chart small"></div>
<h2>Drawdown (%)</h2><div id="drawdown" class="chart small"></div>
<h2>Metrics</h2><table><tr><th>metric</th><th>value</th><th>definition</th></tr>
${metricRows}
</table>
<h2>Trades</h2><table><tr><th>strategy</th><th>market</th><th>side</th><th>entry</th><th>exit</th><th>entry price</th><th>exit price</th><th>quantity</th><th>pnl</th><th>pnl %</th><th>exit</th></tr>
${tradeRows}
</table>
<script>${chartLibrary()}</script>
<script>
const DATA = ${safeJson({ markets, equity, drawdown })};
const LC = LightweightCharts;
const opts = (el) => ({ width: el.clientWidth, height: el.clientHeight, timeScale: { timeVisible: true } });
window.__charts = 0;
window.__chartsExpected = DATA.markets.length + 2;
function draw(id, fn) { const el = document.getElementById(id); const chart = LC.createChart(el, opts(el)); fn(chart); chart.timeScale().fitContent(); window.__charts++; }
DATA.markets.forEach((m, j) => draw('candles-' + j, (c) => { const s = c.addSeries(LC.CandlestickSeries, {}); s.setData(m.candles); LC.createSeriesMarkers(s, m.markers); }));
draw('equity', (c) => c.addSeries(LC.LineSeries, { color: '#1565c0' }).setData(DATA.equity));
draw('drawdown', (c) => c.addSeries(LC.AreaSeries, { lineColor: '#c62828', topColor: 'rgba(198,40,40,0.1)', bottomColor: 'rgba(198,40,40,0.4)' }).setData(DATA.drawdown));
</script>
</body></html>
`;
}
