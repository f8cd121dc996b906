import { EventConflictError } from '../event-conflict-error.js';
import type { ValidatedEvent } from '../store.js';

/** A batch sorted into new events and replays. */
export interface Classified {
  /** Indexes of the new events, in batch order. */
  readonly fresh: number[];
  /** Replays: events stored (or earlier in the batch) with an identical line. */
  readonly skipped: number;
}

/**
 * Idempotency, the same in both stores: an event is a replay when its (date, seq) is stored
 * (`stored`, the adapter's lookup), or earlier in the same batch, with an identical line; with a
 * different line it is a conflict and EventConflictError names it. `dates`: each event's date as
 * an integer. Nothing is written here, so a refused batch leaves the store as it was.
 */
export function sortReplays(
  events: readonly ValidatedEvent[],
  dates: readonly number[],
  stored: (date: number, seq: number) => string | undefined,
): Classified {
  // lines by date, then seq: numeric keys, no string built per event
  const accepted = new Map<number, Map<number, string>>();
  const fresh: number[] = [];
  let skipped = 0;
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index] as ValidatedEvent;
    const date = dates[index] as number;
    let ofDate = accepted.get(date);
    const line = stored(date, event.seq) ?? ofDate?.get(event.seq);
    if (line === undefined) {
      if (!ofDate) {
        ofDate = new Map();
        accepted.set(date, ofDate);
      }
      ofDate.set(event.seq, event.line);
      fresh.push(index);
    } else if (line === event.line) {
      skipped += 1;
    } else {
      throw new EventConflictError(index, event.date, event.seq);
    }
  }
  return { fresh, skipped };
}
