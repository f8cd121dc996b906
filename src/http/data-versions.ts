import type { AppendNotice, MarketReader } from '../store/store.js';

/**
 * What the app knows of the store's data without asking it: the version and each trading day's
 * revision (store.ts dayRevisions), seeded once and then moved by the store's commit notices,
 * which also arrive for commits of other processes. Cached answers are checked against these,
 * so a cache hit never waits for the store. Without notices (an app built on a bare reader)
 * nothing can be known between requests: every read refreshes from the store and the app keeps
 * no cache.
 */
export class DataVersions {
  readonly #live: boolean;
  #seeded = false;
  #version = 0;
  readonly #revisions = new Map<string, number>();
  /** Counts notices: an answer computed across one may predate it and is not kept. */
  #generation = 0;

  /** live: commit notices will arrive (apply is subscribed to the store's onAppend). */
  constructor(live: boolean) {
    this.#live = live;
  }

  get live(): boolean {
    return this.#live;
  }

  get version(): number {
    return this.#version;
  }

  get generation(): number {
    return this.#generation;
  }

  /** The revision of a day, or the highest of the days of [from, to]; 0 for days without data. */
  revisionOf(to: string, from: string = to): number {
    if (from === to) return this.#revisions.get(to) ?? 0;
    let highest = 0;
    for (const [date, revision] of this.#revisions) {
      if (date >= from && date <= to && revision > highest) highest = revision;
    }
    return highest;
  }

  apply(notice: AppendNotice): void {
    this.#generation += 1;
    if (notice.version > this.#version) this.#version = notice.version;
    for (const [date, revision] of notice.revisions) this.#raise(date, revision);
  }

  /**
   * Reads version and revisions from the store: once when notices keep them current, before every
   * use otherwise. Values only rise, so a notice that arrives meanwhile is never undone.
   */
  async refresh(reader: MarketReader): Promise<void> {
    if (this.#live && this.#seeded) return;
    const [version, revisions] = await Promise.all([reader.version(), reader.dayRevisions()]);
    if (version > this.#version) this.#version = version;
    for (const [date, revision] of revisions) this.#raise(date, revision);
    this.#seeded = true;
  }

  #raise(date: string, revision: number): void {
    if (revision > (this.#revisions.get(date) ?? 0)) this.#revisions.set(date, revision);
  }
}
