export { CandleFileError } from './errors.js';
export { type CandleColumns, candlesToColumns, columnsToCandles } from './columns.js';
export { BUNDLED_HEADER, writeBundledCandles, readBundledMeta } from './bundled.js';
export { type CandleFileFormat, type CandleReadOptions, type ReadColumns, readCandleFile, readCandles, readCandleColumns, detectCandleFormat } from './read.js';
export { type CandleGap, findGaps, summarizeGaps } from './gaps.js';
