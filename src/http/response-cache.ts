import type { Coding } from './compression.js';

/**
 * The serialised bytes of recent answers within a byte budget (architecture "Performance shape":
 * serialise once, cache the bytes). Keys are built by answer.ts; this file only keeps the bytes
 * and their accounting. Eviction gives a second chance (the CLOCK approximation of least recently
 * used): a hit only marks its entry, and eviction, from the oldest entry on, moves a marked entry
 * to the end with its mark cleared and drops the first unmarked one. A hit allocates nothing: the
 * exact recency order it replaced moved every hit to the end of the Map, whose tables, rebuilt
 * every few thousand hits, were a fifth of what the live server promoted to its old generation and
 * collected there (docs/benchmarks.md, live pollers).
 */

export interface CachedAnswer {
  /** The identity bytes, exactly what a fresh query would send. */
  readonly body: Buffer;
  /** Strong entity tags (quoted) of the identity and each coded representation. */
  readonly etags: Readonly<Record<Coding | 'identity', string>>;
  /**
   * A past day's answer to a request that names that day: valid whatever the version, until a
   * commit touches one of its days (dropStale).
   */
  readonly pastDay: boolean;
  /** The store's version the answer was computed at (current-day answers are valid only at it). */
  readonly version: number;
  /** Set when the query read the exchange clock: the answer is valid only within that second. */
  readonly clockSecond: number | undefined;
  /** The trading day the answer is about (a range's last), if one. */
  readonly date: string | undefined;
  /** A range's first day; the date itself for a one-day answer. */
  readonly from: string | undefined;
  /** A CSV answer's Content-Disposition, with its suggested file name (csv-file-name.ts); undefined for JSON. */
  readonly contentDisposition?: string;
  /** Coded bodies, filled in on first demand. */
  readonly coded: { br?: Buffer; gzip?: Buffer };
}

/**
 * What an entry costs the process beyond its key and bodies, so that a flood of tiny answers (a
 * client walking thousands of distinct URLs) still meets the budget: the answer and its ETag
 * strings, the Buffer and its own allocation, the Map's slot. Measured at 1.5-1.7 KB of resident
 * memory per entry of a 70-byte answer (100,000 entries, `process.memoryUsage()` after a full
 * collection); counted as 256 bytes, a budget of 32 MiB of such answers took about 120 MB.
 */
export const ENTRY_OVERHEAD = 1_536;

interface Entry {
  readonly answer: CachedAnswer;
  /** Asked for since it was stored, or since eviction last passed it. */
  used: boolean;
}

export class ResponseCache {
  readonly #budget: number;
  readonly #maxEntry: number;
  /** In the order eviction passes them: stored, or last given a second chance. */
  readonly #entries = new Map<string, Entry>();
  /** Keys of the entries that a new event makes stale, so dropping them scans nothing else. */
  readonly #current = new Set<string>();
  /** Answers being computed, by key and version: every request that misses meanwhile waits for the same one. */
  readonly #inFlight = new Map<string, Promise<CachedAnswer>>();
  #bytes = 0;
  #latestPastDate = '';

  /** budget: bytes; an answer over an eighth of it is not kept (it would flush the rest). */
  constructor(budget: number) {
    this.#budget = budget;
    this.#maxEntry = Math.floor(budget / 8);
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string): CachedAnswer | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.answer;
  }

  set(key: string, answer: CachedAnswer): void {
    this.delete(key);
    const size = sizeOf(key, answer);
    if (size > this.#maxEntry) return;
    this.#entries.set(key, { answer, used: false });
    this.#bytes += size;
    if (answer.pastDay) {
      if (answer.date !== undefined && answer.date > this.#latestPastDate) {
        this.#latestPastDate = answer.date;
      }
    } else {
      this.#current.add(key);
    }
    this.#evict(key);
  }

  /**
   * The answer for `key` at the store's `version`, computed by `compute` once however many
   * requests miss it at once (single flight): after a commit drops a popular answer, the first
   * request computes it and the others that arrive meanwhile share its promise, instead of each
   * running the same query on the serving thread. A failure reaches every waiter and is not kept
   * (the next request tries again). `compute` decides itself whether to keep what it made (set).
   */
  fill(key: string, version: number, compute: () => Promise<CachedAnswer>): Promise<CachedAnswer> {
    const flight = `${version} ${key}`;
    const pending = this.#inFlight.get(flight);
    if (pending !== undefined) return pending;
    const computing = compute().finally(() => this.#inFlight.delete(flight));
    this.#inFlight.set(flight, computing);
    return computing;
  }

  /** Answers being computed now (single flight), for tests and metrics. */
  get computing(): number {
    return this.#inFlight.size;
  }

  /** Keeps a coded body beside its answer, if the answer is still the cached one for the key. */
  addCoded(key: string, answer: CachedAnswer, coding: Coding, bytes: Buffer): void {
    if (this.#entries.get(key)?.answer !== answer || answer.coded[coding] !== undefined) return;
    answer.coded[coding] = bytes;
    this.#bytes += bytes.length;
    this.#evict();
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#current.delete(key);
    this.#bytes -= sizeOf(key, entry.answer);
  }

  /**
   * A commit: every current-day answer is stale, and so is a past day's answer when a late event
   * touched one of its days (the feed may correct a past day: docs/feed-format.md).
   */
  dropStale(dates: readonly string[]): void {
    for (const key of [...this.#current]) this.delete(key);
    if (!dates.some((date) => date <= this.#latestPastDate)) return;
    for (const [key, { answer }] of [...this.#entries]) {
      const { from, date } = answer;
      if (date === undefined || from === undefined) continue;
      if (dates.some((touched) => touched >= from && touched <= date)) this.delete(key);
    }
  }

  /**
   * Drops entries, oldest first, until the budget holds; an entry asked for since it was last
   * passed goes to the end instead, its mark cleared, and so does `stored`, the answer just set,
   * which this eviction must not take back unasked. Each entry is passed at most twice.
   */
  #evict(stored?: string): void {
    while (this.#bytes > this.#budget) {
      const oldest = this.#entries.entries().next();
      if (oldest.done === true) return;
      const [key, entry] = oldest.value;
      if (entry.used || key === stored) {
        entry.used = false;
        if (key === stored) stored = undefined;
        this.#entries.delete(key);
        this.#entries.set(key, entry);
      } else {
        this.delete(key);
      }
    }
  }
}

function sizeOf(key: string, answer: CachedAnswer): number {
  return (
    ENTRY_OVERHEAD +
    key.length * 2 +
    answer.body.length +
    (answer.coded.br?.length ?? 0) +
    (answer.coded.gzip?.length ?? 0)
  );
}
