import Database from 'better-sqlite3';
import { NEVER_LOST } from '../exchange-slot.js';
import type { StoreClaim } from '../store.js';

/**
 * The exchange claim of a SQLite file store (MarketStore.claimExchange): an exclusive lock on
 * `<store>-exchange.lock`, a small SQLite file of its own, held by a transaction left open. The
 * lock is the operating system's (fcntl on POSIX, LockFileEx on Windows), so it ends with the
 * process however that ends, and SQLite applies it between connections of one process too.
 * The file stays when released: removed while another process opens it, two could lock
 * different files of the one name.
 */
export function claimFileExchange(storePath: string): StoreClaim | undefined {
  // No busy wait: a claim held elsewhere is an answer, not something to wait for.
  const lock = new Database(`${storePath}-exchange.lock`, { timeout: 0 });
  try {
    // The lock is the point, not the data: no journal file beside it.
    lock.pragma('journal_mode = MEMORY');
    lock.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    lock.close();
    if (error instanceof Database.SqliteError && error.code === 'SQLITE_BUSY') return undefined;
    throw error;
  }
  return {
    async release() {
      if (!lock.open) return;
      lock.exec('ROLLBACK');
      lock.close();
    },
    // The process's own lock: it lasts as long as the process.
    lost: NEVER_LOST,
  };
}
