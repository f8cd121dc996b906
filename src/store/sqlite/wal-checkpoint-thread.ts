import { once } from 'node:events';
import { startWorker } from '../worker-thread.js';

/**
 * SQLite's WAL checkpoints on a thread of their own (wal-checkpoint-worker.ts), for a store that
 * is written on a serving thread (the demo's live feed). By default the commit that takes the WAL
 * past 1,000 pages copies it back into the database itself, fsyncs included: a few milliseconds
 * every hundred or so small commits, spent on the thread that serves requests. With the thread,
 * the write connection never checkpoints (wal_autocheckpoint = 0) and the thread's own connection
 * runs a PASSIVE checkpoint every second (it waits for no reader or writer, and writers carry on
 * meanwhile). Should the thread fail, `onFailure` is told (the store goes back to SQLite's own
 * checkpoints), so the WAL never grows without bound.
 */

/** How often the thread copies the WAL back into the database. */
export const CHECKPOINT_INTERVAL_MS = 1_000;

export interface WalCheckpointThread {
  /** Stops the thread and closes its connection (the last connection's close checkpoints anyway). */
  stop(): Promise<void>;
}

export interface CheckpointWorkerData {
  readonly path: string;
  readonly intervalMs: number;
}

export function startWalCheckpointThread(path: string, onFailure: () => void): WalCheckpointThread {
  const worker = startWorker(import.meta.url, 'wal-checkpoint-worker', {
    path,
    intervalMs: CHECKPOINT_INTERVAL_MS,
  } satisfies CheckpointWorkerData);
  let stopping = false;
  let running = true;
  worker.on('error', () => {
    if (!stopping) onFailure();
  });
  worker.on('exit', () => {
    running = false;
    if (!stopping) onFailure();
  });
  // Never what keeps the process alive.
  worker.unref();
  return {
    async stop() {
      if (!running) return;
      stopping = true;
      const exited = once(worker, 'exit').catch(() => undefined);
      // Now the process waits for it: with nothing else left to keep it alive (a server that
      // failed to listen), an unref'd worker let it end while this was awaited, exit code 13.
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
