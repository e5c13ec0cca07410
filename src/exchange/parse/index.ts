/** Response parsers: pure `(json) => domain` functions shared by the REST client, the stream client and the simulator's contract tests. */
export { timeMs } from './fields.js';
export * from './envelope.js';
export * from './market.js';
export * from './account.js';
export * from './order.js';
export * from './margin.js';
export * from './prop.js';
export * from './otc.js';
export * from './wallet-history.js';
export * from './margin-extra.js';
