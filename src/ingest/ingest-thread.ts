import { once } from 'node:events';
import type { FeedEvent } from '../feed/events.js';
import type { AppendResult, MarketStore } from '../store/store.js';
import { startWorker } from '../store/worker-thread.js';

/**
 * Ingest on a thread of its own (ingest-thread-worker.ts), for a server that also writes (the
 * demo's live exchange): validating and writing a batch, and SQLite's WAL checkpoints, then never
 * hold the serving thread's event loop. The thread writes through its own connection to the same
 * store; the server learns of each commit by the thread's message at once (store.lookForCommits),
 * not at its next poll, so caches are dropped and streams fed as soon as the commit is visible.
 */

export interface StoredBatch {
  readonly result: AppendResult;
  /** The store's version after the commit (the last event's sequence). */
  readonly version: number;
  /** When the batch committed, on process.hrtime's monotonic clock (shared by every process of the machine). */
  readonly committedAtNs: bigint;
}

export interface IngestThread {
  /** Stores a batch (validated, idempotent; one at a time, in call order); rejects with the refusal. */
  ingest(events: readonly FeedEvent[]): Promise<StoredBatch>;
  /** Waits for the batches sent, closes the thread's connection and ends the thread. */
  close(): Promise<void>;
}

export type IngestThreadRequest =
  | { readonly type: 'ingest'; readonly id: number; readonly events: readonly FeedEvent[] }
  | { readonly type: 'close' };

export type IngestThreadReply =
  | { readonly type: 'ready' }
  | ({ readonly type: 'stored'; readonly id: number } & StoredBatch)
  | { readonly type: 'refused'; readonly id: number; readonly message: string };

/**
 * Starts the thread on the store at `db` (a SQLite file or a PostgreSQL URL: not `:memory:`,
 * which another connection cannot see). `store` is the server's own: told of each commit.
 */
export async function startIngestThread(db: string, store: MarketStore): Promise<IngestThread> {
  const worker = startWorker(import.meta.url, 'ingest-thread-worker', { db });
  const pending = new Map<
    number,
    { resolve: (batch: StoredBatch) => void; reject: (error: Error) => void }
  >();
  let next = 0;
  let failure: Error | undefined;
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (reply: IngestThreadReply) => {
      if (reply.type === 'ready') {
        resolve();
        return;
      }
      const waiting = pending.get(reply.id);
      pending.delete(reply.id);
      if (reply.type === 'stored') {
        store.lookForCommits();
        waiting?.resolve(reply);
      } else {
        waiting?.reject(new Error(reply.message));
      }
    });
    const fail = (error: Error) => {
      failure = error;
      reject(error);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the ingest thread exited (code ${code})`)));
  });
  await ready;
  worker.unref();
  return {
    ingest(events) {
      if (failure !== undefined) return Promise.reject(failure);
      const id = next++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ type: 'ingest', id, events } satisfies IngestThreadRequest);
      });
    },
    async close() {
      if (failure !== undefined) return;
      const exited = once(worker, 'exit');
      worker.postMessage({ type: 'close' } satisfies IngestThreadRequest);
      await exited;
    },
  };
}
