/**
 * The read-only views and events a strategy sees. They are shared by every layer (execution, risk,
 * portfolio report in them), so they live in core/views.ts; this module keeps the strategy API's path.
 */
export * from '../core/views.js';
