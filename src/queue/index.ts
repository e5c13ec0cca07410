/** Sweeps on a job queue (BullMQ on Redis): what the sweep and optimize commands load when given --queue. */
export { parseQueueUrl } from './connection.js';
export { queueExecutor, queueTrialExecutor } from './coordinator.js';
