import type Database from 'better-sqlite3';
import type { EventLog } from '../store.js';
import { dateToInt } from './ids.js';
import type { Synchronous } from './synchronous.js';

/** The stored stream in (date, seq) order, read lazily: an export never holds it all in memory. */
export function createSqliteEventLog(db: Database.Database): Synchronous<EventLog> {
  const all = db.prepare('SELECT line FROM events ORDER BY date, seq').pluck();
  const ofDate = db.prepare('SELECT line FROM events WHERE date = ? ORDER BY seq').pluck();
  return {
    lines(query) {
      const rows = query?.date === undefined ? all.iterate() : ofDate.iterate(dateToInt(query.date));
      return rows as IterableIterator<string>;
    },
  };
}
