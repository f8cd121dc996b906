import cluster from 'node:cluster';
import type { RateLimitStore, RateLimitStoreFactory, RateLimitWindow, WindowCount } from './rate-limit.js';
import { type Lease, LeaseLedger } from './rate-limit-ledger.js';

/**
 * Rate-limit counters shared by the workers of one `gridquote serve --workers N`: the primary
 * process keeps each key's budget per window (a LeaseLedger), and a worker takes it in blocks
 * (leases) that it spends locally, so most requests cost no message at all. A key's limit holds
 * across the workers: the primary never hands out more than the limit in a window, so the
 * workers together never admit more. The price is at the limit: a worker refuses when its lease
 * is spent and the primary has nothing left, while another worker may still hold a few unspent
 * points of that window. Leases shrink as the budget runs out (at most the remainder over twice
 * the number of workers, at least 1), so that shortfall is a few requests at most, and none for
 * a burst that reaches every worker (a worker asks for no more than its waiting requests plus
 * its prefetch, and the prefetch is 1 until a key has been busy).
 *
 * Why leases: the earlier design (one batched round trip to the primary per request) made two
 * workers with a rate-limited key serve 0.65 times the requests of one (docs/benchmarks.md).
 *
 * Windows are fixed, starting at a key's first request (as rate-limiter-flexible's memory
 * limiter counts a single process); the primary's clock decides when one ends, and a worker
 * drops a lease of an ended window.
 */

const CHANNEL = 'gridquote-rate-limit-lease';

/** The largest block a worker takes at once: a busy key's worker asks the primary about once per this many requests. */
export const MAX_LEASE = 1024;

/** Worker -> primary: a lease of up to `want` points of the key's budget in the window. */
interface LeaseRequest {
  readonly channel: typeof CHANNEL;
  readonly id: number;
  readonly window: RateLimitWindow;
  readonly key: string;
  readonly limit: number;
  readonly want: number;
}

/** Primary -> worker: the points granted (0 when the budget is spent) and the window's state. */
interface LeaseReply extends Lease {
  readonly channel: typeof CHANNEL;
  readonly id: number;
}

function onChannel<T>(message: unknown): message is T {
  return (
    typeof message === 'object' && message !== null && (message as { channel?: unknown }).channel === CHANNEL
  );
}

interface Waiting {
  resolve(count: WindowCount): void;
  reject(error: Error): void;
}

/** A worker's lease on one key in one window. */
interface Held {
  points: number;
  /** The window's points handed out in all as of the last grant (to every worker). */
  total: number;
  windowEnd: number;
  /** The next prefetch: doubles while the key keeps spending its leases, up to MAX_LEASE. */
  prefetch: number;
  asking: boolean;
  /** The primary had nothing left for this window: refused here until it ends (the budget only shrinks). */
  exhausted: boolean;
  readonly waiting: Waiting[];
}

/**
 * A worker's side: spends leases locally and asks `ask` (the primary) for more, one request at
 * a time per key and window, early when a busy key's lease runs low.
 */
export class LeaseHolder {
  /** By window name, then key: no key string is built per request. */
  readonly #held = new Map<string, Map<string, Held>>();

  constructor(
    private readonly ask: (
      window: RateLimitWindow,
      key: string,
      limit: number,
      want: number,
    ) => Promise<Lease>,
    private readonly now: () => number = Date.now,
  ) {}

  consume(window: RateLimitWindow, key: string, limit: number): Promise<WindowCount> | WindowCount {
    let keys = this.#held.get(window.name);
    if (keys === undefined) {
      keys = new Map();
      this.#held.set(window.name, keys);
    }
    let held = keys.get(key);
    const now = this.now();
    if (held === undefined || (now >= held.windowEnd && !held.asking)) {
      // A key that was busy in its last window (and not refused) starts the next with the same
      // prefetch, rather than growing it again from 1 in every window.
      const prefetch = held !== undefined && !held.exhausted ? held.prefetch : 1;
      this.#forgetEnded(now);
      held = { points: 0, total: 0, windowEnd: 0, prefetch, asking: false, exhausted: false, waiting: [] };
      keys.set(key, held);
    }
    if (held.exhausted && now < held.windowEnd) {
      return { consumedPoints: limit + 1, msBeforeNext: held.windowEnd - now };
    }
    if (held.points > 0 && now < held.windowEnd && held.waiting.length === 0) {
      held.points -= 1;
      // Ask for the next block before this one is spent, so a busy key's requests never wait.
      if (held.prefetch > 1 && held.points * 2 <= held.prefetch && !held.asking) {
        this.#refill(window, key, limit, held);
      }
      return { consumedPoints: held.total - held.points, msBeforeNext: held.windowEnd - now };
    }
    return new Promise((resolve, reject) => {
      held.waiting.push({ resolve, reject });
      if (!held.asking) this.#refill(window, key, limit, held);
    });
  }

  #sweepAt = 0;

  /** Leases of ended windows are dropped now and then (at most once a second), so idle keys do not pile up. */
  #forgetEnded(now: number): void {
    if (now < this.#sweepAt) return;
    this.#sweepAt = now + 1000;
    for (const keys of this.#held.values()) {
      for (const [key, held] of keys) {
        if (now >= held.windowEnd && !held.asking && held.waiting.length === 0) keys.delete(key);
      }
    }
  }

  /** Fails every request still waiting (the primary is gone). */
  failAll(error: Error): void {
    for (const keys of this.#held.values()) {
      for (const held of keys.values()) for (const one of held.waiting.splice(0)) one.reject(error);
    }
    this.#held.clear();
  }

  #refill(window: RateLimitWindow, key: string, limit: number, held: Held): void {
    held.asking = true;
    const want = held.waiting.length + held.prefetch;
    this.ask(window, key, limit, want).then(
      (lease) => {
        held.asking = false;
        const now = this.now();
        if (lease.windowEnd !== held.windowEnd) {
          held.points = 0;
          held.exhausted = false;
        }
        held.windowEnd = lease.windowEnd;
        held.total = lease.total;
        held.points += lease.granted;
        // A key that spent its whole lease is busy: the next one may be larger.
        held.prefetch = Math.min(MAX_LEASE, Math.max(1, held.prefetch * 2));
        while (held.waiting.length > 0 && held.points > 0) {
          held.points -= 1;
          held.waiting
            .shift()
            ?.resolve({ consumedPoints: held.total - held.points, msBeforeNext: held.windowEnd - now });
        }
        if (held.waiting.length === 0) return;
        if (lease.granted > 0) {
          // Granted less than was waiting: ask again for the rest.
          this.#refill(window, key, limit, held);
          return;
        }
        // Nothing left in this window: every waiting request is over the limit.
        for (const one of held.waiting.splice(0)) {
          one.resolve({ consumedPoints: limit + 1, msBeforeNext: Math.max(0, held.windowEnd - now) });
        }
        held.prefetch = 1;
        held.exhausted = true;
      },
      (error: unknown) => {
        held.asking = false;
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const one of held.waiting.splice(0)) one.reject(failure);
      },
    );
  }
}

let counting = false;

/** The primary's side: grants the workers' leases. Idempotent. */
export function startClusterRateLimitCounters(): void {
  if (counting) return;
  counting = true;
  const ledger = new LeaseLedger(() => Object.keys(cluster.workers ?? {}).length);
  cluster.on('message', (worker, message: unknown) => {
    if (!onChannel<LeaseRequest>(message)) return;
    const lease = ledger.grant(message.window, message.key, message.limit, message.want);
    if (!worker.isConnected()) return;
    worker.send({ channel: CHANNEL, id: message.id, ...lease } satisfies LeaseReply);
  });
}

/**
 * A worker's one line to the primary. No timeout per request: the primary answers every message
 * it gets, and when it is gone the channel closes, which fails whatever is still waiting (and
 * node:cluster ends the worker).
 */
function primaryHolder(): LeaseHolder {
  const asked = new Map<number, { resolve(lease: Lease): void; reject(error: Error): void }>();
  let nextId = 0;
  const holder = new LeaseHolder(
    (window, key, limit, want) =>
      new Promise<Lease>((resolve, reject) => {
        const id = nextId++;
        asked.set(id, { resolve, reject });
        process.send?.({ channel: CHANNEL, id, window, key, limit, want } satisfies LeaseRequest);
      }),
  );
  process.on('message', (message: unknown) => {
    if (!onChannel<LeaseReply>(message)) return;
    const one = asked.get(message.id);
    asked.delete(message.id);
    one?.resolve(message);
  });
  process.once('disconnect', () => {
    const error = new Error('the primary process is gone: no rate-limit counts');
    for (const one of asked.values()) one.reject(error);
    asked.clear();
    holder.failAll(error);
  });
  return holder;
}

let holder: LeaseHolder | undefined;

/** The workers' side. */
export const clusterRateLimitStore: RateLimitStoreFactory = (window) => {
  holder ??= primaryHolder();
  const shared = holder;
  return {
    consume: (key, limit) => shared.consume(window, key, limit ?? Number.MAX_SAFE_INTEGER),
  } satisfies RateLimitStore;
};
