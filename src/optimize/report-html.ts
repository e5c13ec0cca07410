/**
 * The optimisation report: one self-contained HTML page (inline SVG drawn here, no script, no
 * network): trials over time (objective per trial, best-so-far line), the objective against each
 * parameter, a heatmap of the best objective over the two most important numeric parameters, the
 * parameter importance, and, when walk-forward ran, in-sample against out-of-sample per window and
 * the stitched out-of-sample equity.
 */
import { importanceText, paramImportance, type Importance } from './importance.js';
import { scoreOf } from './objectives.js';
import type { StudyRecord, TrialRecord } from './store.js';
import type { ParamDist, ParamValue } from './space.js';
import type { WalkForwardResult } from './walk-forward.js';

interface OptimizeReportInput {
  study: StudyRecord;
  trials: readonly TrialRecord[];
  walkForward?: WalkForwardResult;
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
const num = (v: number | null | undefined) => (v == null ? 'n/a' : String(+v.toPrecision(6)));
const W = 640;
const H = 300;
const PAD = { l: 84, r: 16, t: 16, b: 40 };
/** Room right of a heatmap for its colour legend. */
const LEGEND_W = 110;

interface Axis {
  min: number;
  max: number;
  log: boolean;
}

function axisOf(values: number[], log = false): Axis {
  const vs = log ? values.filter((v) => v > 0).map(Math.log10) : values;
  let min = Math.min(...vs);
  let max = Math.max(...vs);
  if (!Number.isFinite(min)) return { min: 0, max: 1, log };
  if (min === max) {
    min -= 0.5;
    max += 0.5;
  }
  const pad = (max - min) * 0.05;
  return { min: min - pad, max: max + pad, log };
}

const sx = (a: Axis, v: number) => PAD.l + (((a.log ? Math.log10(v) : v) - a.min) / (a.max - a.min)) * (W - PAD.l - PAD.r);
const sy = (a: Axis, v: number) => H - PAD.b - ((v - a.min) / (a.max - a.min)) * (H - PAD.t - PAD.b);

/** Nice tick values (1, 2 or 5 × 10^k apart) inside [min, max], about `count` of them. */
function niceTicks(min: number, max: number, count = 5): number[] {
  if (!(max > min)) return [min];
  const raw = (max - min) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((st) => st >= raw)!;
  const digits = Math.max(0, -Math.floor(Math.log10(step)));
  const out: number[] = [];
  for (let v = Math.ceil(min / step - 1e-9) * step; v <= max + step * 1e-9; v += step) out.push(+(Math.round(v / step) * step).toFixed(digits));
  return out;
}

/** Ticks of a log axis (values in log10 space): powers of ten, else 1/2/5 × 10^k, inside it. */
function logTicks(a: Axis): number[] {
  const lo = 10 ** a.min;
  const hi = 10 ** a.max;
  const out: number[] = [];
  for (let k = Math.floor(a.min); k <= Math.ceil(a.max); k++) for (const f of [1, 2, 5]) out.push(+(f * 10 ** k).toPrecision(1));
  const inside = out.filter((v) => v >= lo && v <= hi);
  const powers = inside.filter((v) => /^1(0*|e[+-]?\d+)$|^0\.0*1$/.test(String(v)));
  return powers.length >= 2 ? powers : inside.length ? inside : niceTicks(lo, hi);
}

function ticks(a: Axis, horizontal: boolean): string {
  const out: string[] = [];
  const values = a.log ? logTicks(a) : niceTicks(a.min, a.max);
  for (const v of values) {
    const label = num(v);
    if (horizontal) {
      const x = sx(a, v).toFixed(1);
      out.push(
        `<line x1="${x}" y1="${H - PAD.b}" x2="${x}" y2="${H - PAD.b + 4}" stroke="#999"/><text class="tick x-tick" x="${x}" y="${H - PAD.b + 16}" text-anchor="middle">${esc(label)}</text>`,
      );
    } else {
      const y = sy(a, a.log ? Math.log10(v) : v).toFixed(1);
      out.push(
        `<line x1="${PAD.l - 4}" y1="${y}" x2="${W - PAD.r}" y2="${y}" stroke="#eee"/><text class="tick y-tick" x="${PAD.l - 6}" y="${Number(y) + 4}" text-anchor="end">${esc(label)}</text>`,
      );
    }
  }
  return out.join('');
}

function frame(id: string, title: string, body: string, xLabel: string, yLabel: string, extraW = 0): string {
  return `<figure><figcaption>${esc(title)}</figcaption><svg data-chart="${esc(id)}" viewBox="0 0 ${W + extraW} ${H}" width="${W + extraW}" height="${H}" xmlns="http://www.w3.org/2000/svg">
<rect x="${PAD.l}" y="${PAD.t}" width="${W - PAD.l - PAD.r}" height="${H - PAD.t - PAD.b}" fill="#fafafa" stroke="#ccc"/>${body}
<text x="${(W + PAD.l) / 2}" y="${H - 6}" text-anchor="middle" class="axis x-label">${esc(xLabel)}</text><text x="12" y="${H / 2}" transform="rotate(-90 12 ${H / 2})" text-anchor="middle" class="axis y-label">${esc(yLabel)}</text></svg></figure>`;
}

const complete = (t: TrialRecord) => t.state === 'complete' && t.value !== null;

function trialsChart(s: StudyRecord, trials: readonly TrialRecord[]): string {
  const ok = trials.filter(complete);
  if (ok.length === 0) return '<p>No complete trial yet.</p>';
  const xa = axisOf(trials.map((t) => t.number));
  const ya = axisOf(ok.map((t) => t.value!));
  const dots = ok.map(
    (t) =>
      `<circle class="trial" cx="${sx(xa, t.number).toFixed(1)}" cy="${sy(ya, t.value!).toFixed(1)}" r="3.5" fill="#1565c0" fill-opacity="0.7"><title>trial ${t.number}: ${esc(num(t.value))}</title></circle>`,
  );
  const bad = trials
    .filter((t) => t.state === 'infeasible' || t.state === 'failed')
    .map(
      (t) =>
        `<path class="infeasible" d="M${(sx(xa, t.number) - 3).toFixed(1)},${H - PAD.b - 6} l6,6 m0,-6 l-6,6" stroke="#c62828"><title>trial ${t.number}: ${t.state}${t.reason ? ` (${esc(t.reason)})` : ''}</title></path>`,
    );
  let best: number | undefined;
  const pts: string[] = [];
  for (const t of [...trials].sort((a, b) => a.number - b.number)) {
    if (complete(t) && (best === undefined || scoreOf(t.value, s.direction)! > scoreOf(best, s.direction)!)) best = t.value!;
    if (best !== undefined) pts.push(`${sx(xa, t.number).toFixed(1)},${sy(ya, best).toFixed(1)}`);
  }
  const line = `<polyline class="best-line" points="${pts.join(' ')}" fill="none" stroke="#2e7d32" stroke-width="2"/>`;
  return frame(
    'trials',
    `Objective (${s.objective}) per trial; green: best so far; red crosses: infeasible or failed`,
    ticks(xa, true) + ticks(ya, false) + line + dots.join('') + bad.join(''),
    'trial',
    s.objective,
  );
}

function paramDists(s: StudyRecord): ParamDist[] {
  return JSON.parse(s.space) as ParamDist[];
}

function catIndex(d: ParamDist, v: ParamValue): number {
  return d.kind === 'categorical' ? d.choices.findIndex((c) => c === v) : Number(v);
}

function scatterCharts(s: StudyRecord, trials: readonly TrialRecord[]): string {
  const ok = trials.filter(complete);
  if (ok.length === 0) return '';
  const ya = axisOf(ok.map((t) => t.value!));
  return paramDists(s)
    .map((d) => {
      const log = d.kind !== 'categorical' && d.log;
      const xa =
        d.kind === 'categorical'
          ? { min: -0.5, max: d.choices.length - 0.5, log: false }
          : axisOf(
              ok.map((t) => Number(t.params[d.name])),
              log,
            );
      const dots = ok.map(
        (t) =>
          `<circle class="point" cx="${sx(xa, catIndex(d, t.params[d.name]!)).toFixed(1)}" cy="${sy(ya, t.value!).toFixed(1)}" r="3.5" fill="#6a1b9a" fill-opacity="0.6"><title>${esc(d.name)}=${esc(String(t.params[d.name]))}: ${esc(num(t.value))} (trial ${t.number})</title></circle>`,
      );
      const xt =
        d.kind === 'categorical'
          ? d.choices.map((c, i) => `<text x="${sx(xa, i)}" y="${H - PAD.b + 16}" text-anchor="middle">${esc(String(c))}</text>`).join('')
          : ticks(xa, true);
      return frame(`param:${d.name}`, `${s.objective} by ${d.name}${log ? ' (log scale)' : ''}`, xt + ticks(ya, false) + dots.join(''), d.name, s.objective);
    })
    .join('');
}

function color(t: number): string {
  // 0 (worst) pale yellow .. 1 (best) dark green.
  const r = Math.round(255 - t * 228);
  const g = Math.round(247 - t * 122);
  const b = Math.round(188 - t * 138);
  return `rgb(${r},${g},${b})`;
}

function heatmap(s: StudyRecord, trials: readonly TrialRecord[], imp: Importance[]): string {
  const dists = paramDists(s);
  const numeric = imp.map((i) => dists.find((d) => d.name === i.param)!).filter((d) => d.kind !== 'categorical');
  const ok = trials.filter(complete);
  if (numeric.length < 2 || ok.length === 0) return '<p>Heatmap: needs two numeric parameters and a complete trial.</p>';
  const [dx, dy] = [numeric[0]!, numeric[1]!] as [Extract<ParamDist, { kind: 'int' | 'float' }>, Extract<ParamDist, { kind: 'int' | 'float' }>];
  const n = 10;
  const bin = (d: Extract<ParamDist, { kind: 'int' | 'float' }>, v: number) => {
    const f = d.log ? (Math.log(v) - Math.log(d.low)) / (Math.log(d.high) - Math.log(d.low)) : (v - d.low) / (d.high - d.low);
    return Math.min(n - 1, Math.max(0, Math.floor(f * n)));
  };
  const cells = new Map<string, { best: number; count: number }>();
  for (const t of ok) {
    const k = `${bin(dx, Number(t.params[dx.name]))},${bin(dy, Number(t.params[dy.name]))}`;
    const c = cells.get(k);
    const sc = scoreOf(t.value, s.direction)!;
    if (!c || sc > c.best) cells.set(k, { best: sc, count: (c?.count ?? 0) + 1 });
    else c.count++;
  }
  const scores = [...cells.values()].map((c) => c.best);
  const lo = Math.min(...scores);
  const hi = Math.max(...scores);
  const cw = (W - PAD.l - PAD.r) / n;
  const ch = (H - PAD.t - PAD.b) / n;
  const edge = (d: Extract<ParamDist, { kind: 'int' | 'float' }>, k: number) =>
    d.log ? Math.exp(Math.log(d.low) + ((Math.log(d.high) - Math.log(d.low)) * k) / n) : d.low + ((d.high - d.low) * k) / n;
  const rects = [...cells.entries()].map(([k, c]) => {
    const [i, j] = k.split(',').map(Number) as [number, number];
    const value = s.direction === 'maximize' ? c.best : -c.best;
    return `<rect class="cell" x="${(PAD.l + i * cw).toFixed(1)}" y="${(H - PAD.b - (j + 1) * ch).toFixed(1)}" width="${cw.toFixed(1)}" height="${ch.toFixed(1)}" fill="${color(hi === lo ? 1 : (c.best - lo) / (hi - lo))}"><title>${esc(dx.name)} ${num(edge(dx, i))}..${num(edge(dx, i + 1))}, ${esc(dy.name)} ${num(edge(dy, j))}..${num(edge(dy, j + 1))}: best ${esc(num(value))} of ${c.count} trial(s)</title></rect>`;
  });
  const labels: string[] = [];
  // Nice values placed where they fall on each axis (log axes: at their log position).
  const at = (d: Extract<ParamDist, { kind: 'int' | 'float' }>, v: number) =>
    d.log ? (Math.log(v) - Math.log(d.low)) / (Math.log(d.high) - Math.log(d.low)) : (v - d.low) / (d.high - d.low);
  const axisTicks = (d: Extract<ParamDist, { kind: 'int' | 'float' }>) =>
    d.log ? logTicks({ min: Math.log10(d.low), max: Math.log10(d.high), log: true }) : niceTicks(d.low, d.high);
  for (const v of axisTicks(dx))
    labels.push(`<text class="tick x-tick" x="${(PAD.l + at(dx, v) * n * cw).toFixed(1)}" y="${H - PAD.b + 16}" text-anchor="middle">${esc(num(v))}</text>`);
  for (const v of axisTicks(dy))
    labels.push(`<text class="tick y-tick" x="${PAD.l - 6}" y="${(H - PAD.b - at(dy, v) * n * ch + 4).toFixed(1)}" text-anchor="end">${esc(num(v))}</text>`);
  // The colour legend: the scale from the worst to the best cell, with their values.
  const lx = W + 16;
  const lh = H - PAD.t - PAD.b;
  const shown = (sc: number) => (s.direction === 'maximize' ? sc : -sc);
  const steps = 20;
  const legend = [`<g class="legend"><text x="${lx}" y="${PAD.t - 4}" font-size="11">${esc(s.objective)}</text>`];
  for (let k = 0; k < steps; k++)
    legend.push(
      `<rect class="legend-step" x="${lx}" y="${(PAD.t + (lh * k) / steps).toFixed(1)}" width="16" height="${(lh / steps + 0.5).toFixed(1)}" fill="${color(1 - k / (steps - 1))}"/>`,
    );
  legend.push(
    `<text class="legend-max" x="${lx + 22}" y="${PAD.t + 10}">${esc(num(shown(hi)))} (best)</text>`,
    `<text class="legend-min" x="${lx + 22}" y="${PAD.t + lh}">${esc(num(shown(lo)))}</text></g>`,
  );
  return frame(
    'heatmap',
    `Best ${s.objective} per cell of ${dx.name} × ${dy.name} (the two most important numeric parameters; darker is better)`,
    rects.join('') + labels.join('') + legend.join(''),
    dx.name,
    dy.name,
    LEGEND_W,
  );
}

function importanceChart(imp: Importance[]): string {
  if (imp.length === 0) return '';
  const bh = 26;
  const h = PAD.t + imp.length * bh + 20;
  const bars = imp.map((i, k) => {
    const label = `<text x="150" y="${PAD.t + k * bh + 17}" text-anchor="end">${esc(i.param)}</text>`;
    // Not measured (too few trials): no bar, the reason in its place.
    if (i.epsilon2 === undefined) return `${label}<text x="166" y="${PAD.t + k * bh + 17}">${esc(importanceText(i))}</text>`;
    const w = Math.max(1, i.epsilon2 * (W - 260));
    return `${label}<rect class="bar" x="160" y="${PAD.t + k * bh + 4}" width="${w.toFixed(1)}" height="${bh - 8}" fill="#ef6c00"><title>${esc(i.param)}: ε² ${i.epsilon2.toFixed(3)}</title></rect><text x="${(166 + w).toFixed(1)}" y="${PAD.t + k * bh + 17}">${i.epsilon2.toFixed(3)} (${(i.share * 100).toFixed(1)}%)</text>`;
  });
  return `<figure><figcaption>Parameter importance: ε², the share of the objective's variance each parameter explains alone, less what chance gives</figcaption><svg data-chart="importance" viewBox="0 0 ${W} ${h}" width="${W}" height="${h}" xmlns="http://www.w3.org/2000/svg">${bars.join('')}</svg></figure>`;
}

function walkForwardCharts(wf: WalkForwardResult): string {
  const vals = wf.windows.flatMap((w) => [w.isValue, w.oosValue]).filter((v): v is number => v !== null);
  const ya = axisOf([0, ...vals]);
  const n = wf.windows.length;
  const gw = (W - PAD.l - PAD.r) / n;
  const bars = wf.windows.flatMap((w, k) => {
    const out: string[] = [];
    const zero = sy(ya, 0);
    const bar = (v: number | null, off: number, cls: string, fill: string, label: string) => {
      if (v === null) return;
      const y = sy(ya, v);
      out.push(
        `<rect class="${cls}" x="${(PAD.l + k * gw + gw * off).toFixed(1)}" y="${Math.min(y, zero).toFixed(1)}" width="${(gw * 0.35).toFixed(1)}" height="${Math.max(1, Math.abs(zero - y)).toFixed(1)}" fill="${fill}"><title>window ${w.index} ${label}: ${esc(num(v))}</title></rect>`,
      );
    };
    bar(w.isValue, 0.12, 'is-bar', '#1565c0', 'in-sample');
    bar(w.oosValue, 0.53, 'oos-bar', w.warn ? '#c62828' : '#2e7d32', 'out-of-sample');
    out.push(`<text x="${(PAD.l + k * gw + gw / 2).toFixed(1)}" y="${H - PAD.b + 16}" text-anchor="middle">${w.index}${w.warn ? ' ⚠' : ''}</text>`);
    return out;
  });
  const zeroLine = `<line x1="${PAD.l}" y1="${sy(ya, 0)}" x2="${W - PAD.r}" y2="${sy(ya, 0)}" stroke="#555"/>`;
  let out = frame(
    'walk-forward',
    `Walk-forward ${wf.spec}: ${wf.objective} in-sample (blue) and out-of-sample (green; red: more than ${wf.threshold * 100}% below in-sample)`,
    ticks(ya, false) + zeroLine + bars.join(''),
    'window',
    wf.objective,
  );
  const e = wf.stitched;
  if (e.values.length >= 2) {
    const xa = axisOf(e.times);
    const ea = axisOf(e.values);
    const pts = e.times.map((t, i) => `${sx(xa, t).toFixed(1)},${sy(ea, e.values[i]!).toFixed(1)}`).join(' ');
    const seps = wf.windows
      .map(
        (w) =>
          `<line class="window-edge" x1="${sx(xa, w.testFrom).toFixed(1)}" y1="${PAD.t}" x2="${sx(xa, w.testFrom).toFixed(1)}" y2="${H - PAD.b}" stroke="#bbb" stroke-dasharray="3,3"/>`,
      )
      .join('');
    const xt = [0, 1, 2, 3, 4]
      .map(
        (k) =>
          `<text x="${PAD.l + ((W - PAD.l - PAD.r) * k) / 4}" y="${H - PAD.b + 16}" text-anchor="middle">${new Date(xa.min + ((xa.max - xa.min) * k) / 4).toISOString().slice(0, 10)}</text>`,
      )
      .join('');
    out += frame(
      'oos-equity',
      'Out-of-sample equity: the test windows stitched (each starts where the previous ended)',
      xt + ticks(ea, false) + seps + `<polyline class="equity-line" points="${pts}" fill="none" stroke="#2e7d32" stroke-width="1.5"/>`,
      'time',
      'equity',
    );
  }
  const rows = wf.windows
    .map(
      (w) =>
        `<tr${w.warn ? ' class="warn"' : ''}><td>${w.index}</td><td>${new Date(w.trainFrom).toISOString()} .. ${new Date(w.trainTo).toISOString()}</td><td>${new Date(w.testFrom).toISOString()} .. ${new Date(w.testTo).toISOString()}</td><td>${esc(num(w.isValue))}</td><td>${esc(num(w.oosValue))}</td><td>${esc(
          w.params
            ? Object.entries(w.params)
                .map(([k, v]) => `${k}=${v}`)
                .join(' ')
            : '',
        )}</td><td>${esc(w.note ?? '')}</td></tr>`,
    )
    .join('');
  out += `<table class="wf"><thead><tr><th>window</th><th>train</th><th>test</th><th>in-sample</th><th>out-of-sample</th><th>params</th><th>note</th></tr></thead><tbody>${rows}</tbody><tfoot><tr><td colspan="3">overall</td><td>${esc(num(wf.overall.isValue))}</td><td>${esc(num(wf.overall.oosValue))}</td><td colspan="2">${wf.overall.warn ? 'WARNING: out-of-sample far below in-sample' : ''}</td></tr></tfoot></table>`;
  return out;
}

export function renderOptimizeReport(r: OptimizeReportInput): string {
  const s = r.study;
  const ok = r.trials.filter(complete);
  const names = paramDists(s).map((d) => d.name);
  const imp = paramImportance(
    names,
    ok.map((t) => ({ params: t.params, value: t.value! })),
  );
  let best: TrialRecord | undefined;
  for (const t of ok) if (!best || scoreOf(t.value, s.direction)! > scoreOf(best.value, s.direction)!) best = t;
  const count = (st: string) => r.trials.filter((t) => t.state === st).length;
  const top = [...ok].sort((a, b) => scoreOf(b.value, s.direction)! - scoreOf(a.value, s.direction)! || a.number - b.number).slice(0, 20);
  const table = top
    .map(
      (t, i) =>
        `<tr><td>${i + 1}</td><td>${t.number}</td><td>${esc(num(t.value))}</td><td>${esc(num(t.metrics.totalReturnPct))}</td><td>${esc(num(t.metrics.maxDrawdownPct))}</td><td>${esc(num(t.metrics.trades))}</td><td>${esc(
          Object.entries(t.params)
            .map(([k, v]) => `${k}=${String(v)}`)
            .join(' '),
        )}</td></tr>`,
    )
    .join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mizan optimisation: ${esc(s.name)}</title>
<style>body{font:14px system-ui,sans-serif;margin:24px;color:#222}figure{margin:16px 0}figcaption{font-weight:600;margin-bottom:4px}svg text{font-size:11px;fill:#444}svg .axis{font-size:12px;fill:#222}table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}th{background:#f3f3f3}tr.warn td{background:#fdecea}.charts{display:flex;flex-wrap:wrap;gap:16px}</style></head><body>
<h1>Optimisation: ${esc(s.name)}</h1>
<p>Objective <b>${esc(s.objective)}</b> (${s.direction}), sampler ${esc(s.sampler)}, seed ${s.seed}, config ${esc(s.configFile)}; ${r.trials.length} trials (complete ${count('complete')}, infeasible ${count('infeasible')}, failed ${count('failed')}).</p>
<p id="best">${
    best
      ? `Best: trial ${best.number}, ${esc(s.objective)} ${esc(num(best.value))}: ${esc(
          Object.entries(best.params)
            .map(([k, v]) => `${k}=${v}`)
            .join(' '),
        )}`
      : 'No complete trial.'
  }</p>
<div class="charts">${trialsChart(s, r.trials)}${importanceChart(imp)}${heatmap(s, r.trials, imp)}${scatterCharts(s, r.trials)}</div>
${r.walkForward ? `<h2>Walk-forward</h2><div class="charts">${walkForwardCharts(r.walkForward)}</div>` : ''}
<h2>Top trials</h2><table><thead><tr><th>rank</th><th>trial</th><th>${esc(s.objective)}</th><th>return %</th><th>max DD %</th><th>trades</th><th>params</th></tr></thead><tbody>${table}</tbody></table>
</body></html>
`;
}
