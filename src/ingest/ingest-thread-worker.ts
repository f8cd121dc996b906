import { parentPort, workerData } from 'node:worker_threads';
import type { FeedEvent } from '../feed/events.js';
import { openStore } from '../store/open-store.js';
import { ingestEvents } from './ingest-events.js';
import type { IngestThreadReply, IngestThreadRequest } from './ingest-thread.js';

/**
 * The ingest thread's side (ingest-thread.ts): its own write connection to the store, batches
 * stored one at a time in arrival order, each answered with its result and the instant of its
 * commit on the process-wide monotonic clock (process.hrtime), or with why it was refused.
 */

const { db } = workerData as { readonly db: string };
const port = parentPort;
if (port === null) throw new Error('ingest-thread-worker runs as a worker thread');

const store = await openStore(db, { access: 'write' });
let queue = Promise.resolve();

port.on('message', (message: IngestThreadRequest) => {
  if (message.type === 'close') {
    queue = queue.then(async () => {
      await store.close();
      port.close();
    });
    return;
  }
  queue = queue.then(() => ingest(message.id, message.events));
});
port.postMessage({ type: 'ready' } satisfies IngestThreadReply);

async function ingest(id: number, events: readonly FeedEvent[]): Promise<void> {
  try {
    const result = await ingestEvents(store.writer, events);
    const committedAtNs = process.hrtime.bigint();
    const version = await store.reader.version();
    port?.postMessage({ type: 'stored', id, result, committedAtNs, version } satisfies IngestThreadReply);
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    port?.postMessage({ type: 'refused', id, message: text } satisfies IngestThreadReply);
  }
}
