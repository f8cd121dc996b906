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
 * request and window, each with a timer of its own. Here a worker sends what all its windows
 * were asked in one turn of its event loop as one message, and the primary answers it with
 * one. On two workers under wrk, on a shared and noisy 2-core machine, that cost less server
 * CPU per answer than RateLimiterCluster in most runs (about 170-250 µs against 210-400 µs);
 * the price that remains is in docs/benchmarks.md.
 */

const CHANNEL = 'gridquote-rate-limit';

/** Worker -> primary: count one request of each key in each window, in order. */
interface CountRequest {
  readonly channel: typeof CHANNEL;
  readonly batch: number;
  readonly windows: readonly RateLimitWindow[];
  /** keys[i]: the keys to count in windows[i]. */
  readonly keys: readonly (readonly string[])[];
}

/** Primary -> worker: the counts of a CountRequest, window for window and key for key. */
interface CountReply {
  readonly channel: typeof CHANNEL;
  readonly batch: number;
  readonly consumedPoints: readonly (readonly number[])[];
  readonly msBeforeNext: readonly (readonly number[])[];
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
  const storeOf = (window: RateLimitWindow) => {
    let store = stores.get(window.name);
    if (store === undefined) {
      store = memoryRateLimitStore(window);
      stores.set(window.name, store);
    }
    return store;
  };
  cluster.on('message', (worker, message: unknown) => {
    if (!onChannel<CountRequest>(message)) return;
    const counts = message.windows.map((window, index) => {
      const store = storeOf(window);
      return Promise.all((message.keys[index] ?? []).map((key) => store.consume(key)));
    });
    void Promise.all(counts).then((windows) => {
      if (!worker.isConnected()) return;
      worker.send({
        channel: CHANNEL,
        batch: message.batch,
        consumedPoints: windows.map((window) => window.map((count) => count.consumedPoints)),
        msBeforeNext: windows.map((window) => window.map((count) => count.msBeforeNext)),
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
 * A worker's one line to the primary, shared by its windows: what every window was asked in
 * a turn of the event loop goes in one message. No timeout per request: the primary answers
 * every message it gets, and when it is gone the channel closes, which fails whatever is still
 * waiting (and node:cluster ends the worker).
 */
class PrimaryCounter {
  private readonly queued = new Map<string, { window: RateLimitWindow; waiting: Waiting[] }>();
  private readonly sent = new Map<number, Waiting[][]>();
  private nextBatch = 0;

  constructor() {
    process.on('message', (message: unknown) => {
      if (onChannel<CountReply>(message)) this.receive(message);
    });
    process.once('disconnect', () => {
      const error = new Error('the primary process is gone: no rate-limit counts');
      const waiting = [...this.sent.values()].flat(2);
      for (const { waiting: queued } of this.queued.values()) waiting.push(...queued);
      this.sent.clear();
      this.queued.clear();
      for (const one of waiting) one.reject(error);
    });
  }

  consume(window: RateLimitWindow, key: string): Promise<WindowCount> {
    return new Promise((resolve, reject) => {
      // After the current turn's I/O: every request parsed in it shares the one message.
      if (this.queued.size === 0) setImmediate(() => this.flush());
      let queue = this.queued.get(window.name);
      if (queue === undefined) {
        queue = { window, waiting: [] };
        this.queued.set(window.name, queue);
      }
      queue.waiting.push({ key, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.nextBatch++;
    const queues = [...this.queued.values()];
    this.queued.clear();
    this.sent.set(
      batch,
      queues.map((queue) => queue.waiting),
    );
    process.send?.({
      channel: CHANNEL,
      batch,
      windows: queues.map((queue) => queue.window),
      keys: queues.map((queue) => queue.waiting.map((waiting) => waiting.key)),
    } satisfies CountRequest);
  }

  private receive(reply: CountReply): void {
    const windows = this.sent.get(reply.batch) ?? [];
    this.sent.delete(reply.batch);
    for (const [w, waiting] of windows.entries()) {
      for (const [index, one] of waiting.entries()) {
        one.resolve({
          consumedPoints: reply.consumedPoints[w]?.[index] ?? Number.POSITIVE_INFINITY,
          msBeforeNext: reply.msBeforeNext[w]?.[index] ?? 0,
        });
      }
    }
  }
}

let counter: PrimaryCounter | undefined;

/** The workers' side. */
export const clusterRateLimitStore: RateLimitStoreFactory = (window) => {
  counter ??= new PrimaryCounter();
  const shared = counter;
  return { consume: (key) => shared.consume(window, key) };
};
