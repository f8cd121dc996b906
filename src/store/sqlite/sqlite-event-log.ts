import type Database from 'better-sqlite3';
import { dateToInt } from '../rows/ids.js';
import type { EventLog, StoredEvent } from '../store.js';
import type { Synchronous } from './synchronous.js';

/** The stored stream in (date, seq) order, read lazily: an export never holds it all in memory. */
export function createSqliteEventLog(db: Database.Database): Synchronous<EventLog> {
  const all = db.prepare('SELECT line FROM events ORDER BY date, seq').pluck();
  const ofDate = db.prepare('SELECT line FROM events WHERE date = ? ORDER BY seq').pluck();
  // A range of the primary key (date, seq): each page is an index seek, however long the day.
  const afterSeq = db.prepare<[number, number, number], StoredEvent>(
    'SELECT seq, line FROM events WHERE date = ? AND seq > ? ORDER BY seq LIMIT ?',
  );
  return {
    lines(query) {
      const rows = query?.date === undefined ? all.iterate() : ofDate.iterate(dateToInt(query.date));
      return rows as IterableIterator<string>;
    },
    after(query) {
      return afterSeq.all(dateToInt(query.date), query.seq, query.limit);
    },
  };
}
