// The journal's background checkpointer (see checkpointer.ts): a second connection to the journal
// file, in its own thread, that copies the WAL into the database every `intervalMs` with a PASSIVE
// checkpoint (never blocks the writer). The checkpoint's fsync happens here, not on the thread that
// journals an order just before sending it. Plain JavaScript so it needs no TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
let stopped = false;

function checkpoint() {
  if (stopped) return;
  try {
    const [r] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ kind: 'checkpoint', busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  }
}

const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', (msg) => {
  if (msg === 'checkpoint') checkpoint();
  if (msg === 'stop') {
    stopped = true;
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
parentPort.postMessage({ kind: 'ready' });
