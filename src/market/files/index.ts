export { CandleFileError } from './errors.js';
export { parseTimeValue, epochToSeconds } from './time.js';
export { type CandleColumns, candlesToColumns, columnsToCandles } from './columns.js';
export { BUNDLED_HEADER, BUNDLED_FORMAT, type BundledMeta, writeBundledCandles, readBundledMeta, formatBundled, metaPathFor } from './bundled.js';
export { type CandleFileFormat, readCandleFile, readCandles, readCandleColumns, detectCandleFormat } from './read.js';
export { type CandleGap, findGaps, summarizeGaps } from './gaps.js';
export { readTextMaybeGzip } from './text.js';
