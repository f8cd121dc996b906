import Database from 'better-sqlite3';
import type { AppendNotice, MarketStore } from '../store.js';
import { migrate } from './migrations.js';
import { createSqliteEventLog } from './sqlite-event-log.js';
import { createSqliteKeyStore } from './sqlite-keys.js';
import { createSqliteReader } from './sqlite-reader.js';
import { createSqliteWriter } from './sqlite-writer.js';
import { promised, promisedEventLog, promisedWriter } from './synchronous.js';

export const MEMORY = ':memory:';

/**
 * Opens (creating and migrating as needed) a store in a SQLite file, or in memory for tests.
 * A file gets two connections: writes go through one and reads through a read-only other, so
 * WAL gives every read a committed snapshot, even while a streamed batch is half written. An
 * in-memory database exists only inside its one connection, which then does both. Opening is
 * synchronous (tests and tools may use the store at once); every method of the store is async.
 */
export function openSqliteStore(path: string): MarketStore {
  const writeDb = new Database(path);
  let readDb = writeDb;
  try {
    configure(writeDb, path !== MEMORY);
    migrate(writeDb);
    if (path !== MEMORY) {
      readDb = new Database(path, { readonly: true });
      readDb.pragma('busy_timeout = 5000');
      // Reads map at most 64 MiB of the file: mapped pages count in the server's RSS, and beyond
      // that the OS page cache serves the same pages without counting against the process.
      readDb.pragma('mmap_size = 67108864');
    }
  } catch (error) {
    if (readDb !== writeDb) readDb.close();
    writeDb.close();
    throw error;
  }

  const listeners = new Set<(notice: AppendNotice) => void>();
  const notify = (notice: AppendNotice) => {
    for (const listener of listeners) listener(notice);
  };

  return {
    reader: promised(createSqliteReader(readDb)),
    writer: promisedWriter(createSqliteWriter(writeDb, notify)),
    events: promisedEventLog(createSqliteEventLog(readDb)),
    keys: promised(createSqliteKeyStore(writeDb)),
    onAppend(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    async close() {
      listeners.clear();
      if (writeDb.inTransaction) writeDb.exec('ROLLBACK');
      if (readDb !== writeDb) readDb.close();
      writeDb.close();
    },
  };
}

function configure(db: Database.Database, file: boolean): void {
  if (file) {
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode loses at most the last commits on power loss, never consistency.
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  db.pragma('foreign_keys = OFF');
}
