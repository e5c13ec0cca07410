/** Sweeps on a job queue (BullMQ on Redis): the coordinator's executor and the worker. */
export { parseQueueUrl, redactUrl, type QueueUrl } from './connection.js';
export { openQueueStudy, queueExecutor, queueTrialExecutor, type QueueStudy, type QueueSweepOptions, type StudyContext } from './coordinator.js';
export { startWorker, type RunningWorker, type WorkerOptions } from './worker.js';
