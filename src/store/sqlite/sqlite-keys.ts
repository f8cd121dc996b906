import type Database from 'better-sqlite3';
import type { ApiKeyRecord, KeyStore } from '../store.js';

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

export function createSqliteKeyStore(db: Database.Database): KeyStore {
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
  };
  return {
    insertKey(record) {
      s.insert.run(record);
    },
    findKey(id) {
      const row = s.find.get(id) as KeyDbRow | undefined;
      return row ? toRecord(row) : undefined;
    },
    listKeys() {
      return (s.list.all() as KeyDbRow[]).map(toRecord);
    },
    revokeKey(id, at) {
      // Revoking twice keeps the first time: the key stopped working then.
      s.revoke.run(at, id);
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
