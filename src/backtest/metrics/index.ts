export { computeMetrics } from './compute.js';
export { METRIC_DEFINITIONS, type MetricDefinition, type MetricUnit } from './definitions.js';
export { formatMetrics, formatMetricValue, formatDuration } from './format.js';
export { dailyReturns } from './equity.js';
export {
  DEFAULT_THRESHOLDS,
  type Metric,
  type MetricKey,
  type Metrics,
  type MetricsInput,
  type MetricsOptions,
  type ClosedTrade,
  type TradeSide,
  type EquityCurve,
  type Interval,
} from './types.js';
