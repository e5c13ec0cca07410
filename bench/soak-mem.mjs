// Loaded into the soak's bot with `node --import` (bench/soak.ts): every 30 s it appends one JSON
// line of process.memoryUsage() (MB) to the file named by MIZAN_SOAK_MEM, so the soak can tell the
// JS heap's growth (heapUsed) from native/allocator growth (RSS minus the heap). The main thread
// only (worker threads inherit --import); the timer is unref'd so it never keeps the bot alive.
import { appendFileSync } from 'node:fs';
import { isMainThread } from 'node:worker_threads';

const file = process.env.MIZAN_SOAK_MEM;
if (isMainThread && file) {
  const t0 = Date.now();
  const mb = (x) => Number((x / 1024 / 1024).toFixed(1));
  const sample = () => {
    const m = process.memoryUsage();
    const line = {
      t: Math.round((Date.now() - t0) / 1000),
      rssMB: mb(m.rss),
      heapTotalMB: mb(m.heapTotal),
      heapUsedMB: mb(m.heapUsed),
      externalMB: mb(m.external),
      arrayBuffersMB: mb(m.arrayBuffers),
    };
    try {
      appendFileSync(file, JSON.stringify(line) + '\n');
    } catch {
      // the soak's folder is gone: the soak is over
    }
  };
  setInterval(sample, 30_000).unref();
}
