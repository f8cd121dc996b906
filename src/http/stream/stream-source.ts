import type { EventLog, MarketReader } from '../../store/store.js';
import type { StreamPosition } from './event-id.js';
import type { SharedDay } from './shared-day.js';
import { StreamItem } from './stream-items.js';

/** What the streams read: the event log in pages, and the dates, to follow the exchange into a new day. */
export interface StreamSource {
  readonly events: EventLog;
  readonly reader: MarketReader;
}

/** Before any event: the position of a stream opened on an empty store. */
export const START: StreamPosition = { date: '', seq: 0 };

export interface Page {
  readonly items: readonly StreamItem[];
  /** Where the next page starts: the last item, or where the read ended (a new day, nothing yet). */
  readonly end: StreamPosition;
  /** The page came from the shared day's complete prefix: the same items for every reader (SharedDay.frames). */
  readonly shared?: boolean;
}

/**
 * The next events after `position`: the rest of its date; when that date holds nothing more and
 * the store holds a later date, the first events of the next one. A stream so follows the
 * exchange from one trading day into the next; events that reach an earlier date after the
 * stream has moved on (a late correction) are not pushed (docs/api.md, the event stream).
 */
export async function readPage(
  source: StreamSource,
  position: StreamPosition,
  limit: number,
  day?: SharedDay,
): Promise<Page> {
  if (position.date !== '') {
    const kept = day?.page(position, limit);
    if (kept !== undefined && kept.length > 0) {
      return { items: kept, end: kept[kept.length - 1] as StreamItem, shared: true };
    }
    const stored = await source.events.after({ date: position.date, seq: position.seq, limit });
    if (stored.length > 0) {
      const items = stored.map((event) => StreamItem.fromStored(position.date, event));
      day?.keep(position.date, items);
      return { items, end: items[items.length - 1] as StreamItem };
    }
  }
  const latest = await source.reader.latestDate();
  if (latest === undefined || latest <= position.date) return { items: [], end: position };
  const next = (await source.reader.dates()).find((date) => date > position.date);
  if (next === undefined) return { items: [], end: position };
  return readPage(source, { date: next, seq: 0 }, limit, day);
}
