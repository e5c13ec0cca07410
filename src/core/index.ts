export * from './decimal.js';
export * from './errors.js';
export * from './clock.js';
export * from './logger.js';
export * from './types/index.js';
export * from './intents.js';
