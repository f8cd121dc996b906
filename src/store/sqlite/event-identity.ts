import type Database from 'better-sqlite3';
import { dateToInt } from '../rows/ids.js';
import { type Classified, sortReplays } from '../rows/replays.js';
import type { ValidatedEvent } from '../store.js';

/**
 * Idempotency: sorts a batch into new events and replays before anything is written, so new
 * events can be inserted in bulk. An event is a replay when its (date, seq) is stored, or
 * earlier in the same batch, with an identical line; with a different line it is a conflict.
 * Stored lines are probed once per date and seq range of the batch, not once per event.
 */
export class EventIdentity {
  private readonly range: Database.Statement;
  private readonly single: Database.Statement;

  constructor(db: Database.Database) {
    this.range = db.prepare('SELECT seq, line FROM events WHERE date = ? AND seq BETWEEN ? AND ?').raw();
    this.single = db.prepare('SELECT line FROM events WHERE date = ? AND seq = ?').pluck();
  }

  /** Indexes of the new events, in batch order, and the number of replays; throws on conflict. */
  classify(events: readonly ValidatedEvent[]): Classified {
    const stored = this.storedLines(events);
    const dates = events.map((event) => dateToInt(event.date));
    return sortReplays(events, dates, (date, seq) => {
      const known = stored.get(date);
      return known === null ? this.lookup(date, seq) : known?.get(seq);
    });
  }

  /**
   * Stored lines per date within the batch's seq range; null for a date whose range is too
   * sparse to read whole (its events are then looked up one by one).
   */
  private storedLines(events: readonly ValidatedEvent[]): Map<number, Map<number, string> | null> {
    const ranges = new Map<number, { lo: number; hi: number; count: number }>();
    for (const event of events) {
      const date = dateToInt(event.date);
      const range = ranges.get(date);
      if (!range) ranges.set(date, { lo: event.seq, hi: event.seq, count: 1 });
      else {
        if (event.seq < range.lo) range.lo = event.seq;
        if (event.seq > range.hi) range.hi = event.seq;
        range.count += 1;
      }
    }
    const lines = new Map<number, Map<number, string> | null>();
    for (const [date, { lo, hi, count }] of ranges) {
      if (hi - lo > 4 * count + 1024) {
        lines.set(date, null);
        continue;
      }
      const rows = this.range.all(date, lo, hi) as [number, string][];
      lines.set(date, new Map(rows));
    }
    return lines;
  }

  private lookup(date: number, seq: number): string | undefined {
    return this.single.get(date, seq) as string | undefined;
  }
}
