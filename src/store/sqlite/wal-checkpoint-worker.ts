import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { CheckpointWorkerData } from './wal-checkpoint-thread.js';

/**
 * The WAL checkpoint thread's side (wal-checkpoint-thread.ts): its own connection to the store's
 * file, a PASSIVE checkpoint every interval, until told to stop.
 */

const { path, intervalMs } = workerData as CheckpointWorkerData;
const port = parentPort;
if (port === null) throw new Error('wal-checkpoint-worker runs as a worker thread');

const db = new Database(path, { fileMustExist: true });
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // As with SQLite's own automatic checkpoints, a failed one only leaves the WAL longer: the next retries.
  }
}, intervalMs);

port.on('message', () => {
  clearInterval(timer);
  db.close();
  port.close();
});
