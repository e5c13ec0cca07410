export * from './market.js';
export * from './account.js';
export * from './order.js';
export * from './margin.js';
export * from './margin-extra.js';
