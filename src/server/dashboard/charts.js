// Charts with lightweight-charts (its standalone build, served by the bot at
// /dashboard/vendor/lightweight-charts.js: the global LightweightCharts).

const LC = globalThis.LightweightCharts;

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

/** Equity (line) and its drawdown from the running peak (area, %), kept current by `set`. */
export function equityCharts(eqEl, ddEl) {
  const eq = chartIn(eqEl, 260);
  const dd = chartIn(ddEl, 160);
  const line = eq.addSeries(LC.LineSeries, { color: '#58a6ff', lineWidth: 2 });
  const area = dd.addSeries(LC.AreaSeries, { lineColor: '#f85149', topColor: 'rgba(248,81,73,0.05)', bottomColor: 'rgba(248,81,73,0.4)', priceFormat: { type: 'custom', minMove: 0.001, formatter: (v) => `${v.toFixed(3)} %` } });
  let shown = 0;
  let peak = -Infinity;
  let fitted = false;
  return {
    /** points: { t: seconds, v }, ascending; only the new ones are added. */
    set(points) {
      if (points.length < shown) shown = 0;
      if (shown === 0) {
        peak = -Infinity;
        const dds = points.map((p) => {
          peak = Math.max(peak, p.v);
          return { time: p.t, value: peak > 0 ? (p.v / peak - 1) * 100 : 0 };
        });
        line.setData(points.map((p) => ({ time: p.t, value: p.v })));
        area.setData(dds);
        shown = points.length;
      } else {
        // The last point may have been replaced (same second), then the new ones.
        for (let i = Math.max(0, shown - 1); i < points.length; i++) {
          const p = points[i];
          peak = Math.max(peak, p.v);
          line.update({ time: p.t, value: p.v });
          area.update({ time: p.t, value: peak > 0 ? (p.v / peak - 1) * 100 : 0 });
        }
        shown = points.length;
      }
      if (!fitted && points.length > 1) {
        eq.timeScale().fitContent();
        dd.timeScale().fitContent();
        fitted = true;
      }
    },
    remove() {
      eq.remove();
      dd.remove();
    },
  };
}

/** A market's candles with the strategy's orders (circles at their price) and fills (arrows). */
export function candleChart(el, resolution) {
  const chart = chartIn(el, 360);
  const series = chart.addSeries(LC.CandlestickSeries, { upColor: '#3fb950', downColor: '#f85149', borderVisible: false, wickUpColor: '#3fb950', wickDownColor: '#f85149' });
  const markers = LC.createSeriesMarkers(series, []);
  const bar = (c) => ({ time: c.time, open: Number(c.open), high: Number(c.high), low: Number(c.low), close: Number(c.close) });
  const snap = (ms) => Math.floor(ms / 1000 / resolution) * resolution;
  let last = 0;
  return {
    set(candles) {
      series.setData(candles.map(bar));
      last = candles.length ? candles[candles.length - 1].time : 0;
      chart.timeScale().fitContent();
    },
    add(c) {
      if (c.time < last) return;
      series.update(bar(c));
      last = c.time;
    },
    marks(orders, fills) {
      const m = [
        ...orders
          .filter((o) => o.price !== null)
          .map((o) => ({ time: snap(o.createdAt), position: 'atPriceMiddle', price: Number(o.price), shape: 'circle', color: String(o.side).toLowerCase() === 'buy' ? '#2ea04380' : '#da363380', size: 0.6, id: o.clientOrderId })),
        ...fills.map((f) => ({
          time: snap(f.ts),
          position: 'atPriceMiddle',
          price: Number(f.price),
          shape: String(f.side).toLowerCase() === 'buy' ? 'arrowUp' : 'arrowDown',
          color: String(f.side).toLowerCase() === 'buy' ? '#3fb950' : '#f85149',
          id: `fill-${f.id}`,
        })),
      ].sort((a, b) => a.time - b.time);
      markers.setMarkers(m);
      return m.length;
    },
    remove() {
      chart.remove();
    },
  };
}
