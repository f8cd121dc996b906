import type { StreamPosition } from './event-id.js';
import { type SharedFrames, sharedFrames } from './shared-frames.js';
import type { StreamItem } from './stream-items.js';

/** Bytes of shared frames kept at most (oldest dropped first): a day's worth for a few selections. */
const FRAME_BUDGET = 16 * 1024 * 1024;
/**
 * What a kept page of frames costs beyond its bytes (its key, the two Buffer views, the Map's
 * slot), so that pages a selection matches nothing of (5 bytes of chunk each), asked for at many
 * resume positions, still meet the budget instead of piling up uncounted.
 */
export const FRAMES_ENTRY_OVERHEAD = 512;

/**
 * The latest trading day's events as stream items, parsed once and shared by every stream: a
 * thousand streams catching up on the day read it from memory, not a thousand times from the
 * store, and each item's frame is written once (StreamItem.frame). Only the day's complete
 * prefix is kept (seq 1, 2, 3, ... without a gap): stored events with those seqs never change
 * (a replay is identical, a different line is refused), so a page of it is the same whoever
 * reads it and whenever. The encoded frames of a selection for such a page are kept too, so
 * streams of the same selection that catch up through the same pages share the bytes.
 */
export class SharedDay {
  #date = '';
  /** items[i] has seq i + 1. */
  #items: StreamItem[] = [];
  readonly #frames = new Map<string, SharedFrames>();
  #frameBytes = 0;

  /** The items after `position` from memory, when the kept prefix holds any; else undefined. */
  page(position: StreamPosition, limit: number): readonly StreamItem[] | undefined {
    if (position.date !== this.#date || position.seq >= this.#items.length) return undefined;
    return this.#items.slice(position.seq, position.seq + limit);
  }

  /** Items just read from the store (in seq order): kept where they continue the day's prefix. */
  keep(date: string, items: readonly StreamItem[]): void {
    if (date !== this.#date) {
      // An earlier day is read by a resuming stream only: not worth keeping.
      if (date < this.#date) return;
      this.#date = date;
      this.#items = [];
      this.#frames.clear();
      this.#frameBytes = 0;
    }
    for (const item of items) {
      const next = this.#items.length + 1;
      if (item.seq === next) this.#items.push(item);
      else if (item.seq > next) return;
    }
  }

  /**
   * The frames a selection makes of a page that `page` returned, encoded once: `make` writes them
   * for the first stream that asks, the others get the same bytes.
   */
  frames(
    selection: string,
    items: readonly StreamItem[],
    make: () => { readonly text: string; readonly count: number },
  ): SharedFrames {
    const key = `${items[0]?.date ?? ''}:${items[0]?.seq ?? 0}:${items[items.length - 1]?.seq ?? 0}:${selection}`;
    const kept = this.#frames.get(key);
    if (kept !== undefined) return kept;
    const { text, count } = make();
    const made = sharedFrames(text, count);
    this.#frames.set(key, made);
    this.#frameBytes += framesCost(key, made);
    for (const [oldest, frames] of this.#frames) {
      if (this.#frameBytes <= FRAME_BUDGET) break;
      this.#frames.delete(oldest);
      this.#frameBytes -= framesCost(oldest, frames);
    }
    return made;
  }
}

function framesCost(key: string, frames: SharedFrames): number {
  return FRAMES_ENTRY_OVERHEAD + key.length * 2 + frames.chunk.length;
}
