import type Database from 'better-sqlite3';
import type { ApiKeyRecord, KeyStore } from '../store.js';
import type { Synchronous } from './synchronous.js';

interface KeyDbRow {
  id: string;
  name: string;
  level: string;
  secret_hash: string;
  created_at: string;
  expires_on: string | null;
  revoked_at: string | null;
  per_second: number | null;
  per_minute: number | null;
}

/**
 * Key records live in SQLite and are kept in memory once read: every authenticated request
 * looks its key up, and a SQLite read is most of that lookup's cost. The memory copy is dropped
 * when this connection writes a key, and when another connection (`gridquote keys` in another
 * process) has committed, which SQLite's data_version reports. That check is itself a read of
 * the database, so it runs at most once per `recheckMs`: a key created or revoked by another
 * process counts within that time (a second by default). Unknown ids are not remembered, so
 * random ids cannot grow the map.
 */
export function createSqliteKeyStore(
  db: Database.Database,
  options: { readonly recheckMs?: number; readonly now?: () => number } = {},
): Synchronous<KeyStore> {
  const recheckMs = options.recheckMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  const s = {
    insert: db.prepare(
      `INSERT INTO api_keys (id, name, level, secret_hash, created_at, expires_on, revoked_at, per_second,
        per_minute) VALUES (@id, @name, @level, @secretHash, @createdAt, @expiresOn, @revokedAt, @perSecond,
        @perMinute)`,
    ),
    find: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
    list: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
    revoke: db.prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL'),
    exists: db.prepare('SELECT 1 FROM api_keys WHERE id = ?').pluck(),
    dataVersion: db.prepare('PRAGMA data_version').pluck(),
  };
  const known = new Map<string, ApiKeyRecord>();
  let seenVersion = s.dataVersion.get();
  let checkedAt = now();
  /** Forgets what another connection may have changed since the last look. */
  function recheck(): void {
    const time = now();
    if (time - checkedAt < recheckMs) return;
    checkedAt = time;
    const version = s.dataVersion.get();
    if (version !== seenVersion) {
      known.clear();
      seenVersion = version;
    }
  }
  function remembered(id: string): ApiKeyRecord | undefined {
    recheck();
    return known.get(id);
  }
  return {
    insertKey(record) {
      s.insert.run(record);
      known.clear();
    },
    findKey(id) {
      let record = remembered(id);
      if (record === undefined) {
        const row = s.find.get(id) as KeyDbRow | undefined;
        if (row === undefined) return undefined;
        record = toRecord(row);
        known.set(id, record);
      }
      return record;
    },
    rememberedKey: remembered,
    listKeys() {
      return (s.list.all() as KeyDbRow[]).map(toRecord);
    },
    revokeKey(id, at) {
      // Revoking twice keeps the first time: the key stopped working then.
      s.revoke.run(at, id);
      known.clear();
      return s.exists.get(id) !== undefined;
    },
  };
}

function toRecord(row: KeyDbRow): ApiKeyRecord {
  return {
    id: row.id,
    name: row.name,
    level: row.level === 'historical' ? 'historical' : 'end_of_day',
    secretHash: row.secret_hash,
    createdAt: row.created_at,
    expiresOn: row.expires_on,
    revokedAt: row.revoked_at,
    perSecond: row.per_second,
    perMinute: row.per_minute,
  };
}
