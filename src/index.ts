/**
 * mizan's public API. Strategies and user code import only from here.
 */
export * from './core/index.js';
