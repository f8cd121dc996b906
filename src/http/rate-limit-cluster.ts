import cluster from 'node:cluster';
import {
  memoryRateLimitStore,
  type RateLimitStore,
  type RateLimitStoreFactory,
  type RateLimitWindow,
  type WindowCount,
} from './rate-limit.js';

/**
 * Rate-limit counters shared by the workers of one `gridquote serve --workers N`: the primary
 * process keeps the only counters (rate-limiter-flexible's in-memory limiter, as a single
 * process does), so a key gets its limit once across the workers, not once per worker. The
 * primary calls `startClusterRateLimitCounters` before forking; each worker passes
 * `clusterRateLimitStore`.
 *
 * Why not rate-limiter-flexible's RateLimiterCluster: it sends one IPC message each way per
 * request and window, each with a timer of its own. Here a worker sends the keys of all the
 * requests counted in one turn of its event loop as one message, and the primary answers them
 * with one; on two workers under wrk that took server CPU per answer from 212-279 µs to about
 * 172 µs (one worker: about 80 µs; docs/benchmarks.md has the run).
 */

const CHANNEL = 'gridquote-rate-limit';

/** Worker -> primary: count one request of each key, in order. */
interface CountRequest {
  readonly channel: typeof CHANNEL;
  readonly window: RateLimitWindow;
  readonly batch: number;
  readonly keys: readonly string[];
}

/** Primary -> worker: the counts of a CountRequest, index for index. */
interface CountReply {
  readonly channel: typeof CHANNEL;
  readonly window: RateLimitWindow['name'];
  readonly batch: number;
  readonly consumedPoints: readonly number[];
  readonly msBeforeNext: readonly number[];
}

function onChannel<T>(message: unknown): message is T {
  return (
    typeof message === 'object' && message !== null && (message as { channel?: unknown }).channel === CHANNEL
  );
}

let counting = false;

/** The primary's side: counts what the workers send. Idempotent. */
export function startClusterRateLimitCounters(): void {
  if (counting) return;
  counting = true;
  const stores = new Map<string, RateLimitStore>();
  cluster.on('message', (worker, message: unknown) => {
    if (!onChannel<CountRequest>(message)) return;
    let store = stores.get(message.window.name);
    if (store === undefined) {
      store = memoryRateLimitStore(message.window);
      stores.set(message.window.name, store);
    }
    const counted = store;
    void Promise.all(message.keys.map((key) => counted.consume(key))).then((counts) => {
      if (!worker.isConnected()) return;
      worker.send({
        channel: CHANNEL,
        window: message.window.name,
        batch: message.batch,
        consumedPoints: counts.map((count) => count.consumedPoints),
        msBeforeNext: counts.map((count) => count.msBeforeNext),
      } satisfies CountReply);
    });
  });
}

interface Waiting {
  readonly key: string;
  resolve(count: WindowCount): void;
  reject(error: Error): void;
}

/**
 * The workers' side. No timeout per request: the primary answers every message it gets, and
 * when it is gone the channel closes, which fails whatever is still waiting (and node:cluster
 * ends the worker).
 */
export const clusterRateLimitStore: RateLimitStoreFactory = (window) => {
  let queued: Waiting[] = [];
  const sent = new Map<number, Waiting[]>();
  let nextBatch = 0;

  const flush = () => {
    const batch = nextBatch++;
    sent.set(batch, queued);
    const keys = queued.map((waiting) => waiting.key);
    queued = [];
    process.send?.({ channel: CHANNEL, window, batch, keys } satisfies CountRequest);
  };
  process.on('message', (message: unknown) => {
    if (!onChannel<CountReply>(message) || message.window !== window.name) return;
    const waiting = sent.get(message.batch) ?? [];
    sent.delete(message.batch);
    for (const [index, one] of waiting.entries()) {
      one.resolve({
        consumedPoints: message.consumedPoints[index] ?? Number.POSITIVE_INFINITY,
        msBeforeNext: message.msBeforeNext[index] ?? 0,
      });
    }
  });
  process.once('disconnect', () => {
    const error = new Error('the primary process is gone: no rate-limit counts');
    for (const one of [...sent.values()].flat().concat(queued)) one.reject(error);
    sent.clear();
    queued = [];
  });

  return {
    consume(key) {
      return new Promise<WindowCount>((resolve, reject) => {
        // After the current turn's I/O: every request parsed in it shares the one message.
        if (queued.length === 0) setImmediate(flush);
        queued.push({ key, resolve, reject });
      });
    },
  };
};
