export { computeMetrics } from './compute.js';
export { METRIC_DEFINITIONS, type MetricDefinition, type MetricUnit } from './definitions.js';
export { formatMetrics, formatMetricValue, formatDuration } from './format.js';
export { dailyReturns } from './equity.js';
export { type Metric, type MetricKey, type Metrics, type MetricsInput, type ClosedTrade, type EquityCurve } from './types.js';
