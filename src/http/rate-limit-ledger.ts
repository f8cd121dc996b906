import type { RateLimitWindow } from './rate-limit.js';

/**
 * The books of fixed-window rate limits: per window and key, how much of the key's budget has
 * been handed out in its current window (a window starts at the key's first request, as
 * rate-limiter-flexible's memory limiter counts). Synchronous: the one process of a plain
 * `serve` counts its requests here (rate-limit.ts memoryRateLimitStore, one point at a time),
 * and the primary of `serve --workers N` lends the workers blocks of the same budget
 * (rate-limit-cluster.ts).
 */

export interface Lease {
  readonly granted: number;
  /** Points of the window handed out in all, this grant included. */
  readonly total: number;
  /** When the window ends (ms since the epoch, the ledger's clock). */
  readonly windowEnd: number;
}

interface Books {
  windowEnd: number;
  total: number;
}

export class LeaseLedger {
  /** By window name, then key: no key string is built per grant. */
  readonly #windows = new Map<string, Map<string, Books>>();

  constructor(
    /** How many takers share the budget (read per grant: workers come and go). */
    private readonly takers: () => number,
    private readonly now: () => number = Date.now,
  ) {}

  /** `now`: the ledger's clock at the grant; a caller that needs the same instant reads it once and passes it. */
  grant(window: RateLimitWindow, key: string, limit: number, want: number, now = this.now()): Lease {
    let keys = this.#windows.get(window.name);
    if (keys === undefined) {
      keys = new Map();
      this.#windows.set(window.name, keys);
    }
    let books = keys.get(key);
    if (books === undefined || now >= books.windowEnd) {
      books = { windowEnd: now + window.seconds * 1000, total: 0 };
      keys.set(key, books);
      this.#forgetEnded(now);
    }
    const remaining = Math.max(0, limit - books.total);
    // At most the remainder over twice the takers, so that blocks shrink to 1 near the limit.
    const share = Math.max(1, Math.floor(remaining / (2 * Math.max(1, this.takers()))));
    const granted = Math.min(remaining, share, Math.max(1, Math.floor(want)));
    books.total += granted;
    return { granted, total: books.total, windowEnd: books.windowEnd };
  }

  #sweepAt = 0;

  /** Ended windows are dropped now and then (at most once a second), so idle keys do not pile up. */
  #forgetEnded(now: number): void {
    if (now < this.#sweepAt) return;
    this.#sweepAt = now + 1000;
    for (const keys of this.#windows.values()) {
      for (const [key, books] of keys) if (now >= books.windowEnd) keys.delete(key);
    }
  }
}
