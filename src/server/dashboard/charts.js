// @ts-check
// Charts with lightweight-charts (its standalone build, served by the bot at
// /dashboard/vendor/lightweight-charts.js: the global LightweightCharts).

/** @typedef {import('../port.js').CandleDto} CandleDto */
/** @typedef {import('../port.js').OrderDto} OrderDto */
/** @typedef {import('../port.js').FillDto} FillDto */
/** @typedef {import('../port.js').PlotDto} PlotDto */

const LC = globalThis.LightweightCharts;
const PALETTE = ['#d2a8ff', '#ffa657', '#79c0ff', '#7ee787', '#ff7b72', '#e3b341'];

/**
 * @param {HTMLElement} el
 * @param {number} height
 */
function chartIn(el, height) {
  const chart = LC.createChart(el, {
    height,
    autoSize: true,
    layout: { background: { color: 'transparent' }, textColor: '#c9d1d9', attributionLogo: false },
    grid: { vertLines: { color: '#21262d' }, horzLines: { color: '#21262d' } },
    timeScale: { timeVisible: true, secondsVisible: true, borderColor: '#30363d' },
    rightPriceScale: { borderColor: '#30363d' },
  });
  return chart;
}

/**
 * Equity (line) and its drawdown from the running peak (area, %), redrawn by `set` from an
 * EquitySeries (series.js: evenly spaced periods, capped). The series objects are left on the
 * elements (`chartSeries`) so a test reads what is drawn.
 * @param {HTMLElement & { chartSeries?: LightweightCharts.ISeriesApi<'Line'> }} eqEl
 * @param {HTMLElement & { chartSeries?: LightweightCharts.ISeriesApi<'Area'> }} ddEl
 * @param {(price: number) => string} [format] the equity's price scale
 */
export function equityCharts(eqEl, ddEl, format) {
  const eq = chartIn(eqEl, 260);
  const dd = chartIn(ddEl, 160);
  const line = eq.addSeries(LC.LineSeries, {
    color: '#58a6ff',
    lineWidth: 2,
    ...(format ? { priceFormat: { type: 'custom', minMove: 1e-8, formatter: format } } : {}),
  });
  const area = dd.addSeries(LC.AreaSeries, {
    lineColor: '#f85149',
    topColor: 'rgba(248,81,73,0.05)',
    bottomColor: 'rgba(248,81,73,0.4)',
    priceFormat: { type: 'custom', minMove: 0.001, formatter: (v) => `${v.toFixed(3)} %` },
  });
  eqEl.chartSeries = line;
  ddEl.chartSeries = area;
  let fitted = false;
  return {
    /** @param {import('./series.js').EquitySeries} series */
    set(series) {
      const points = series.points();
      let peak = -Infinity;
      const dds = points.map((p) => {
        /** @type {LightweightCharts.LineData | LightweightCharts.WhitespaceData} */
        if (p.value === undefined) return { time: p.time };
        peak = Math.max(peak, p.value);
        return { time: p.time, value: peak > 0 ? (p.value / peak - 1) * 100 : 0 };
      });
      line.setData(points);
      area.setData(dds);
      eqEl.dataset.step = String(series.step);
      eqEl.dataset.points = String(points.length);
      if (!fitted && points.length > 1) {
        eq.timeScale().fitContent();
        dd.timeScale().fitContent();
        fitted = true;
      }
    },
    /**
     * Money of the price scale, rounded as the bot's reference asset.
     * @param {(price: number) => string} fn
     */
    format(fn) {
      line.applyOptions({ priceFormat: { type: 'custom', minMove: 1e-8, formatter: fn } });
    },
    remove() {
      eq.remove();
      dd.remove();
    },
  };
}

/**
 * A market's candles with the strategy's orders (circles at their price) and fills (arrows). The
 * plots' series are left on the element (`plotSeries`) so a test reads what is drawn.
 * @param {HTMLElement & { plotSeries?: Map<string, LightweightCharts.ISeriesApi<'Line'>> }} el
 * @param {number} resolution the candles' period, seconds
 */
export function candleChart(el, resolution) {
  const chart = chartIn(el, 360);
  const series = chart.addSeries(LC.CandlestickSeries, {
    upColor: '#3fb950',
    downColor: '#f85149',
    borderVisible: false,
    wickUpColor: '#3fb950',
    wickDownColor: '#f85149',
  });
  const markers = LC.createSeriesMarkers(series, []);
  /** @param {CandleDto} c */
  const bar = (c) => ({ time: c.time, open: Number(c.open), high: Number(c.high), low: Number(c.low), close: Number(c.close) });
  /** @param {number} ms */
  const snap = (ms) => Math.floor(ms / 1000 / resolution) * resolution;
  let last = 0;
  /** @type {Map<string, LightweightCharts.ISeriesApi<'Line'>>} by plot name */
  const lines = new Map();
  return {
    /** @param {CandleDto[]} candles oldest first */
    set(candles) {
      series.setData(candles.map(bar));
      last = candles[candles.length - 1]?.time ?? 0;
      chart.timeScale().fitContent();
    },
    /** @param {CandleDto} c */
    add(c) {
      if (c.time < last) return;
      series.update(bar(c));
      last = c.time;
    },
    /**
     * @param {OrderDto[]} orders
     * @param {FillDto[]} fills
     * @returns {number} the markers drawn
     */
    marks(orders, fills) {
      /** @type {LightweightCharts.SeriesMarker[]} */
      const m = [
        ...orders
          .filter((o) => o.price !== null)
          .map(
            /** @returns {LightweightCharts.SeriesMarker} */ (o) => ({
              time: snap(o.createdAt),
              position: 'atPriceMiddle',
              price: Number(o.price),
              shape: 'circle',
              color: String(o.side).toLowerCase() === 'buy' ? '#2ea04380' : '#da363380',
              size: 0.6,
              id: o.clientOrderId,
            }),
          ),
        ...fills.map(
          /** @returns {LightweightCharts.SeriesMarker} */ (f) => ({
            time: snap(f.ts),
            position: 'atPriceMiddle',
            price: Number(f.price),
            shape: String(f.side).toLowerCase() === 'buy' ? 'arrowUp' : 'arrowDown',
            color: String(f.side).toLowerCase() === 'buy' ? '#3fb950' : '#f85149',
            id: `fill-${f.id}`,
          }),
        ),
      ].sort((a, b) => a.time - b.time);
      markers.setMarkers(m);
      return m.length;
    },
    /**
     * The strategy's declared plots (GET /strategies/:name/plots of this market): `price` ones over
     * the candles, each other pane name a pane of its own under them. A point drawn at a candle's
     * close belongs to that candle (the one that started a resolution earlier).
     * @param {PlotDto[]} list
     */
    plots(list) {
      const panes = [...new Set(list.filter((p) => p.pane !== 'price').map((p) => p.pane))];
      for (const p of list) {
        let s = lines.get(p.name);
        if (!s) {
          const pane = p.pane === 'price' ? 0 : 1 + panes.indexOf(p.pane);
          s = chart.addSeries(
            LC.LineSeries,
            { color: p.color ?? PALETTE[lines.size % PALETTE.length], lineWidth: 2, title: p.name, priceLineVisible: false, lastValueVisible: false },
            pane,
          );
          for (const level of p.levels) s.createPriceLine({ price: level, color: '#8b949e', lineStyle: 2, lineWidth: 1, axisLabelVisible: true });
          lines.set(p.name, s);
        }
        /** @type {(LightweightCharts.LineData | LightweightCharts.WhitespaceData)[]} */
        const data = [];
        for (const pt of p.points) {
          const time = snap(pt.time) - resolution;
          const last = data[data.length - 1];
          const item = pt.value === null ? { time } : { time, value: pt.value };
          if (last && last.time === time) data[data.length - 1] = item;
          else if (!last || last.time < time) data.push(item);
        }
        s.setData(data);
      }
      el.plotSeries = lines;
      el.dataset.plots = String([...lines.values()].filter((s) => s.data().some((d) => 'value' in d && d.value !== undefined)).length);
    },
    remove() {
      chart.remove();
    },
  };
}
