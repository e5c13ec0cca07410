/** formatMetrics: a plain-text table for the terminal. */
import { METRIC_DEFINITIONS, type MetricUnit } from './definitions.js';
import type { Metric, Metrics } from './types.js';

/** Prints a duration in ms as e.g. "3d 4h 5m", "45m", "12s". */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Math.round(ms / 1000)}s`;
  const totalMin = Math.round(ms / 60_000);
  const d = Math.floor(totalMin / 1440);
  const h = Math.floor((totalMin % 1440) / 60);
  const m = totalMin % 60;
  const parts: string[] = [];
  if (d > 0) parts.push(`${d}d`);
  if (h > 0) parts.push(`${h}h`);
  if (m > 0 || parts.length === 0) parts.push(`${m}m`);
  return parts.join(' ');
}

/** Prints one metric value in its unit, or `n/a (reason)`. */
export function formatMetricValue(metric: Metric, unit: MetricUnit): string {
  if (metric.value === null) return `n/a (${metric.reason})`;
  const v = metric.value;
  switch (unit) {
    case 'pct':
      return `${v.toFixed(2)} %`;
    case 'ratio':
      return v.toFixed(2);
    case 'money':
      return formatMoney(v);
    case 'count':
      return String(v);
    case 'duration':
      return formatDuration(v);
  }
}

function formatMoney(v: number): string {
  const abs = Math.abs(v);
  const digits = abs >= 1 || abs === 0 ? 2 : 8;
  const s = abs.toFixed(digits);
  const [int, frac] = s.split('.') as [string, string | undefined];
  const grouped = int.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (v < 0 ? '-' : '') + grouped + (frac !== undefined ? `.${frac}` : '');
}

function isoMinute(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

/** A two-column table: the run's range, then every metric of METRIC_DEFINITIONS in order. */
export function formatMetrics(m: Metrics): string {
  const rows: [string, string][] = [
    ['Start', isoMinute(m.start)],
    ['End', isoMinute(m.end)],
    ['Duration', formatDuration(m.end - m.start)],
    ['Equity start', formatMoney(m.startEquity)],
    ['Equity end', formatMoney(m.endEquity)],
  ];
  for (const def of METRIC_DEFINITIONS) rows.push([def.name, formatMetricValue(m[def.key], def.unit)]);
  const w = Math.max(...rows.map((r) => r[0].length));
  return rows.map(([k, v]) => `${k.padEnd(w)}  ${v}`).join('\n') + '\n';
}
