import type pg from 'pg';
import type { ApiKeyRecord, KeyStore } from '../store.js';

type KeyRow = [
  id: string,
  name: string,
  level: string,
  secretHash: string,
  createdAt: string,
  expiresOn: string | null,
  revokedAt: string | null,
  perSecond: number | null,
  perMinute: number | null,
];

const COLUMNS = 'id, name, level, secret_hash, created_at, expires_on, revoked_at, per_second, per_minute';

/**
 * Key records in PostgreSQL, kept in memory once read: every authenticated request looks its
 * key up. As with SQLite (sqlite/sqlite-keys.ts), a key created or revoked by another process
 * counts within `recheckMs` (a second by default): a remembered record older than that is read
 * again. Writes through this store drop the memory copy at once. Unknown ids are not
 * remembered, so random ids cannot grow the map.
 */
export function createPostgresKeyStore(
  pool: pg.Pool,
  options: { readonly recheckMs?: number; readonly now?: () => number } = {},
): KeyStore {
  const recheckMs = options.recheckMs ?? 1000;
  const now = options.now ?? (() => performance.now());
  const known = new Map<string, { record: ApiKeyRecord; readAt: number }>();
  /** The record read within recheckMs of `time`, if any. */
  const fresh = (id: string, time: number) => {
    const remembered = known.get(id);
    return remembered && time - remembered.readAt < recheckMs ? remembered.record : undefined;
  };
  return {
    async insertKey(record) {
      await pool.query(`INSERT INTO api_keys (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
        record.id,
        record.name,
        record.level,
        record.secretHash,
        record.createdAt,
        record.expiresOn,
        record.revokedAt,
        record.perSecond,
        record.perMinute,
      ]);
      known.clear();
    },
    async findKey(id) {
      const time = now();
      const remembered = fresh(id, time);
      if (remembered !== undefined) return remembered;
      const result = await pool.query({
        name: 'find_key',
        text: `SELECT ${COLUMNS} FROM api_keys WHERE id = $1`,
        values: [id],
        rowMode: 'array',
      });
      const row = result.rows[0] as KeyRow | undefined;
      if (row === undefined) {
        known.delete(id);
        return undefined;
      }
      const record = toRecord(row);
      known.set(id, { record, readAt: time });
      return record;
    },
    rememberedKey: (id) => fresh(id, now()),
    async listKeys() {
      const result = await pool.query({
        text: `SELECT ${COLUMNS} FROM api_keys ORDER BY created_at, id`,
        rowMode: 'array',
      });
      return (result.rows as KeyRow[]).map(toRecord);
    },
    async revokeKey(id, at) {
      // Revoking twice keeps the first time: the key stopped working then.
      await pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
      known.clear();
      const exists = await pool.query('SELECT 1 FROM api_keys WHERE id = $1', [id]);
      return (exists.rowCount ?? 0) > 0;
    },
  };
}

function toRecord(row: KeyRow): ApiKeyRecord {
  const [id, name, level, secretHash, createdAt, expiresOn, revokedAt, perSecond, perMinute] = row;
  return {
    id,
    name,
    level: level === 'historical' ? 'historical' : 'end_of_day',
    secretHash,
    createdAt,
    expiresOn,
    revokedAt,
    perSecond,
    perMinute,
  };
}
