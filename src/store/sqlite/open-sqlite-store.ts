import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  type FSWatcher,
  openSync,
  readSync,
  watch,
} from 'node:fs';
import { basename, dirname } from 'node:path';
import Database from 'better-sqlite3';
import { exchangeSlot, NEVER_LOST } from '../exchange-slot.js';
import type { AppendNotice, MarketStore, MarketWriter, SchemaReport } from '../store.js';
import { StoreBusyError, StoreOpenError } from '../store-open-error.js';
import { claimFileExchange } from './exchange-claim.js';
import { MIGRATIONS, migrate } from './migrations.js';
import { createSqliteEventLog } from './sqlite-event-log.js';
import { createSqliteKeyStore } from './sqlite-keys.js';
import { createSqliteReader } from './sqlite-reader.js';
import { createSqliteWriter } from './sqlite-writer.js';
import { promised, promisedEventLog, promisedWriter } from './synchronous.js';
import { startWalCheckpointThread, type WalCheckpointThread } from './wal-checkpoint-thread.js';

export const MEMORY = ':memory:';

/**
 * How often a store with listeners looks for commits of other processes (PRAGMA data_version)
 * besides watching its WAL file: where the file system reports no changes, this is all it has.
 */
export const STORE_POLL_MS = 250;

/**
 * After the WAL file changed, more looks this much later, ms: a commit's last frame is written
 * to the WAL just before the WAL index marks it committed, so the first look can come too
 * early, and a writer descheduled in between takes longer. Each look is one cheap pragma.
 */
const LOOKS_AFTER_MS = [1, 10] as const;

/** Default wait for another writer's lock (an ingest holds it for its whole transaction). */
export const DEFAULT_LOCK_WAIT_MS = 30_000;

export interface SqliteStoreOptions {
  /** Opened read-only: nothing is written, not even a schema upgrade or the journal mode. */
  readonly readonly?: boolean;
  /** Why it is read-only, for the refusal of a write ("for serving"). */
  readonly purpose?: string;
  /** Whether a missing file may be created (default true: tests and tools). */
  readonly create?: boolean;
  /** Longest wait for another connection's write lock, ms. */
  readonly lockWaitMs?: number;
  /**
   * A writable file's WAL checkpoints run on a thread of their own, never inside a commit
   * (wal-checkpoint-thread.ts): for a store written on a thread that also serves requests.
   */
  readonly backgroundCheckpoints?: boolean;
  /** How often to look for other processes' commits besides the file watch, ms (STORE_POLL_MS). */
  readonly pollMs?: number;
  /** Told what opening for writing did to the schema (open-store.ts). */
  readonly onSchema?: (report: SchemaReport) => void;
}

/**
 * Opens a store in a SQLite file (creating and migrating it as allowed), or in memory for tests.
 * A writable file gets two connections: writes go through one and reads through a read-only
 * other, so WAL gives every read a committed snapshot, even while a streamed batch is half
 * written. An in-memory database exists only inside its one connection, which then does both.
 * A read-only store has the read connection alone: it can be served from read-only media.
 * Opening is synchronous (tests and tools may use the store at once); its methods are async.
 */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): MarketStore {
  const file = path !== MEMORY;
  const readonly = file && options.readonly === true;
  const lockWaitMs = options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS;
  if (file && !existsSync(path) && (readonly || options.create === false)) {
    throw new StoreOpenError(`no store at ${path}; create one with gridquote seed or ingest`);
  }
  if (file && !readonly && !existsSync(dirname(path))) {
    throw new StoreOpenError(`no folder ${dirname(path)} for the store ${path}; create the folder first`);
  }
  if (file && !readonly) requireWritable(path);

  let writeDb: Database.Database | undefined;
  let readDb: Database.Database | undefined;
  try {
    if (readonly) {
      upgradeIfBehind(path, lockWaitMs);
      readDb = openReadConnection(path, lockWaitMs);
      checkSchema(readDb, path);
    } else {
      writeDb = new Database(path);
      configure(writeDb, file, lockWaitMs);
      const applied = migrate(writeDb);
      options.onSchema?.({ applied, version: MIGRATIONS.length });
      readDb = file ? openReadConnection(path, lockWaitMs) : writeDb;
    }
  } catch (error) {
    if (readDb !== writeDb) readDb?.close();
    writeDb?.close();
    throw explainOpenFailure(error, path);
  }
  const reads = readDb;
  const checkpoints =
    writeDb !== undefined && file && options.backgroundCheckpoints === true
      ? checkpointElsewhere(writeDb, path)
      : undefined;

  const listeners = new Set<(notice: AppendNotice) => void>();
  const reader = createSqliteReader(reads);
  const versionQuery = reads.prepare("SELECT value FROM meta WHERE key = 'version'").pluck();
  const currentVersion = () => Number(versionQuery.get());
  let seen = currentVersion();

  /** What changed since the last version announced: this process's commit and any other's. */
  const announce = (notice: AppendNotice) => {
    let full = notice;
    if (notice.version - notice.added > seen) full = changesSince(seen, notice.version);
    seen = Math.max(seen, notice.version);
    for (const listener of listeners) listener(full);
  };
  const changesSince = (since: number, version: number): AppendNotice => {
    const revisions = reader.dayRevisions(since);
    return { version, added: version - since, dates: [...revisions.keys()].sort(), revisions };
  };

  // Commits of other processes: data_version moves when another connection committed. Every
  // commit writes the WAL file, so a watch on its directory (the WAL file comes and goes with
  // the connections) tells at once, in practice within milliseconds; the poll is the fallback.
  let poll: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  let followUp: NodeJS.Timeout | undefined;
  let dataVersion = 0;
  const look = () => {
    try {
      const now = Number(reads.pragma('data_version', { simple: true }));
      if (now === dataVersion) return;
      dataVersion = now;
      const version = currentVersion();
      if (version > seen) announce(changesSince(seen, version));
    } catch {
      // A store that cannot be read now is reported by the requests; the next look tries again.
    }
  };
  const walName = `${basename(path)}-wal`;
  const walChanged = (_event: string, name: string | Buffer | null) => {
    // No name: the platform does not say which file changed, so it may be the WAL.
    if (name !== null && String(name) !== walName) return;
    look();
    if (followUp === undefined) lookAgain(0);
  };
  const lookAgain = (step: number) => {
    const delay = LOOKS_AFTER_MS[step];
    if (delay === undefined) {
      followUp = undefined;
      return;
    }
    followUp = setTimeout(() => {
      look();
      lookAgain(step + 1);
    }, delay).unref();
  };
  const startLooking = () => {
    if (!file || poll !== undefined) return;
    dataVersion = Number(reads.pragma('data_version', { simple: true }));
    poll = setInterval(look, options.pollMs ?? STORE_POLL_MS);
    poll.unref();
    try {
      watcher = watch(dirname(path), { persistent: false }, walChanged);
      // A watch that fails later (the directory removed) leaves the poll to do its work.
      watcher.on('error', () => watcher?.close());
    } catch {
      // No change events on this file system: the poll alone.
    }
  };
  const stopLooking = () => {
    if (poll !== undefined) clearInterval(poll);
    poll = undefined;
    watcher?.close();
    watcher = undefined;
    if (followUp !== undefined) clearTimeout(followUp);
    followUp = undefined;
  };

  const busy = busyTranslator(path, lockWaitMs);
  const refuse = readOnlyRefusal(path, options.purpose);
  const keys = createSqliteKeyStore(writeDb ?? reads);
  // An in-memory store has no other store to keep out: the slot alone is its claim.
  const exchange = exchangeSlot(() =>
    file ? claimFileExchange(path) : { release: async () => undefined, lost: NEVER_LOST },
  );
  return {
    reader: promised(reader),
    writer: writeDb ? promisedWriter(createSqliteWriter(writeDb, announce), busy) : refusingWriter(refuse),
    events: promisedEventLog(createSqliteEventLog(reads)),
    // rememberedKey answers at once: it stays synchronous (store.ts).
    keys: writeDb
      ? { ...promised(keys, busy), rememberedKey: keys.rememberedKey }
      : {
          ...promised(keys),
          rememberedKey: keys.rememberedKey,
          insertKey: async () => refuse(),
          revokeKey: async () => refuse(),
        },
    onAppend(listener) {
      listeners.add(listener);
      startLooking();
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) stopLooking();
      };
    },
    lookForCommits() {
      if (listeners.size > 0) look();
    },
    changeNotices: () => 'local',
    claimExchange: exchange.claim,
    async copyTo(copy) {
      reads.prepare('VACUUM INTO ?').run(copy);
    },
    async close() {
      await exchange.release();
      stopLooking();
      listeners.clear();
      await checkpoints?.stop();
      if (writeDb?.inTransaction) writeDb.exec('ROLLBACK');
      if (reads !== writeDb) reads.close();
      writeDb?.close();
    },
  };
}

/** Turns the write connection's automatic checkpoints off and starts the thread that runs them instead. */
function checkpointElsewhere(writeDb: Database.Database, path: string): WalCheckpointThread {
  const automatic = Number(writeDb.pragma('wal_autocheckpoint', { simple: true }));
  writeDb.pragma('wal_autocheckpoint = 0');
  return startWalCheckpointThread(path, () => {
    // The thread failed: SQLite's own checkpoints again, on this connection.
    if (writeDb.open) writeDb.pragma(`wal_autocheckpoint = ${automatic}`);
  });
}

function openReadConnection(path: string, lockWaitMs: number): Database.Database {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  db.pragma(`busy_timeout = ${lockWaitMs}`);
  // Reads map at most 64 MiB of the file: mapped pages count in the server's RSS, and beyond
  // that the OS page cache serves the same pages without counting against the process.
  db.pragma('mmap_size = 67108864');
  return db;
}

function configure(db: Database.Database, file: boolean, lockWaitMs: number): void {
  if (file) {
    db.pragma('journal_mode = WAL');
    // NORMAL in WAL mode loses at most the last commits on power loss, never consistency.
    db.pragma('synchronous = NORMAL');
  }
  db.pragma(`busy_timeout = ${lockWaitMs}`);
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = MEMORY');
  db.pragma('foreign_keys = OFF');
}

/** A read-only open of an older store upgrades it first when it can be written (docs/operations.md). */
function upgradeIfBehind(path: string, lockWaitMs: number): void {
  const probe = new Database(path, { readonly: true, fileMustExist: true });
  let behind: boolean;
  try {
    behind = Number(probe.pragma('user_version', { simple: true })) < MIGRATIONS.length;
  } finally {
    probe.close();
  }
  if (!behind || writableProblem(path) !== undefined) return;
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${lockWaitMs}`);
    migrate(db);
  } finally {
    db.close();
  }
}

function checkSchema(db: Database.Database, path: string): void {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version > MIGRATIONS.length) {
    throw new StoreOpenError(
      `database schema version ${version} is newer than this program knows (${MIGRATIONS.length})`,
    );
  }
  if (version < MIGRATIONS.length) {
    throw new StoreOpenError(
      `${path} has schema version ${version} and this program needs ${MIGRATIONS.length}, but it cannot be ` +
        `upgraded where it is (${writableProblem(path) ?? 'read-only'}): upgrade a copy on writable media ` +
        '(any gridquote command opens and upgrades it) and serve that',
    );
  }
}

/** Why the file (or, to create it and its journal, its folder) cannot be written; undefined if it can. */
function writableProblem(path: string): string | undefined {
  for (const target of existsSync(path) ? [path, dirname(path)] : [dirname(path)]) {
    try {
      accessSync(target, constants.W_OK);
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? error.code : undefined;
      if (code === 'ENOENT') return undefined; // a missing folder is refused before (openSqliteStore)
      const what = target === path ? 'the file' : `its folder ${target}`;
      return code === 'EROFS' ? `${what} is on read-only media` : `${what} is not writable (${String(code)})`;
    }
  }
  return undefined;
}

function requireWritable(path: string): void {
  const problem = writableProblem(path);
  if (problem !== undefined) {
    throw new StoreOpenError(
      `cannot write to ${path}: ${problem}; serve and export open a store read-only, writing commands need it writable`,
    );
  }
}

/** SQLite reads a WAL file only where it may create the -shm file beside it. */
function explainOpenFailure(error: unknown, path: string): unknown {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  if (code !== 'SQLITE_CANTOPEN' || !isWal(path)) return error;
  const problem = writableProblem(path);
  if (problem === undefined) return error;
  return new StoreOpenError(
    `cannot read ${path}: it is in WAL mode and ${problem}, where SQLite cannot read a WAL store; ` +
      "switch it to rollback-journal mode before copying it there (docs/operations.md, 'Read-only media')",
  );
}

/** Bytes 18 and 19 of a SQLite header are 2 for a WAL database. */
function isWal(path: string): boolean {
  try {
    const fd = openSync(path, 'r');
    try {
      const header = Buffer.alloc(20);
      return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2 && header[19] === 2;
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}

function busyTranslator(path: string, lockWaitMs: number): (error: unknown) => unknown {
  return (error) => {
    const code = error instanceof Error && 'code' in error ? String(error.code) : '';
    if (!code.startsWith('SQLITE_BUSY')) return error;
    return new StoreBusyError(
      `${path} is locked by another writer (an ingest or seed still running?) and stayed locked for the ` +
        `${lockWaitMs / 1000} s this command waits; try again once it has finished`,
      { cause: error },
    );
  };
}

function readOnlyRefusal(path: string, purpose: string | undefined): () => never {
  return () => {
    throw new StoreOpenError(
      `${path} is open read-only${purpose ? ` ${purpose}` : ''}: it is not written, so that it can be served from read-only media`,
    );
  };
}

function refusingWriter(refuse: () => never): MarketWriter {
  return { append: async () => refuse(), begin: async () => refuse() };
}
