import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authenticate } from '../http/auth.js';
import { openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import type { MarketStore } from '../store/store.js';
import { demoKeys, demoKeysFile } from './demo-keys.js';

const NOW = new Date('2026-01-17T03:00:00Z');
const clock = () => NOW;
let dir: string;
let db: string;
let store: MarketStore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gridquote-demo-keys-'));
  db = join(dir, 'demo.db');
  store = openSqliteStore(db);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function accepted(key: string): Promise<string | undefined> {
  try {
    return (await authenticate(store.keys, `Bearer ${key}`, clock)).level;
  } catch {
    return undefined;
  }
}

describe('demo keys', () => {
  it('issues a key of each level and keeps them in a file beside the store readable only by the user', async () => {
    const keys = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    expect(keys.origin).toBe('new');
    expect(keys.file).toBe(demoKeysFile(db));
    expect(keys.file).toBe(join(dir, 'demo.db-keys.json'));
    expect(await accepted(keys.historical)).toBe('historical');
    expect(await accepted(keys.endOfDay)).toBe('end_of_day');
    expect(statSync(keys.file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(keys.file, 'utf8'))).toEqual({
      historical: keys.historical,
      end_of_day: keys.endOfDay,
    });
    // The store itself holds no key, only hashes.
    for (const record of await store.keys.listKeys()) {
      expect(keys.historical).not.toContain(record.secretHash);
      expect(JSON.stringify(record)).not.toContain(keys.historical.slice(16));
    }
  });

  it('gives the same keys at the next start, without issuing or revoking any', async () => {
    const first = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    const records = await store.keys.listKeys();
    const second = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    expect(second).toMatchObject({ historical: first.historical, endOfDay: first.endOfDay, origin: 'kept' });
    expect(await store.keys.listKeys()).toEqual(records);
    expect(await accepted(second.historical)).toBe('historical');
  });

  it('rotates on request: the old keys are revoked, the new ones saved', async () => {
    const first = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    const rotated = await demoKeys(store.keys, { db, rotate: true, now: NOW });
    expect(rotated.origin).toBe('rotated');
    expect(rotated.historical).not.toBe(first.historical);
    expect(await accepted(first.historical)).toBeUndefined();
    expect(await accepted(first.endOfDay)).toBeUndefined();
    expect(await accepted(rotated.historical)).toBe('historical');
    expect(JSON.parse(readFileSync(rotated.file, 'utf8')).historical).toBe(rotated.historical);
    expect((await demoKeys(store.keys, { db, rotate: false, now: NOW })).origin).toBe('kept');
  });

  it('replaces saved keys that no longer verify (revoked, or unknown to this store)', async () => {
    const first = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    const [historicalId] = /^gq_([0-9a-f]{12})_/.exec(first.historical)?.slice(1) ?? [];
    await store.keys.revokeKey(historicalId ?? '', NOW.toISOString());
    const replaced = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    expect(replaced.origin).toBe('replaced');
    expect(await accepted(replaced.historical)).toBe('historical');
    // The surviving old end_of_day key is revoked too: the demo has one key per level.
    expect(await accepted(first.endOfDay)).toBeUndefined();

    // A file from another store names keys this store does not know.
    const secret = 'A'.repeat(43);
    writeFileSync(
      demoKeysFile(db),
      JSON.stringify({ historical: `gq_000000000000_${secret}`, end_of_day: `gq_000000000001_${secret}` }),
    );
    expect((await demoKeys(store.keys, { db, rotate: false, now: NOW })).origin).toBe('replaced');
  });

  it('issues new keys when the file is missing or damaged', async () => {
    const first = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    rmSync(first.file);
    const fresh = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    expect(fresh.origin).toBe('new');
    expect(await accepted(first.historical)).toBeUndefined();
    writeFileSync(fresh.file, '{"historical": 1');
    expect((await demoKeys(store.keys, { db, rotate: false, now: NOW })).origin).toBe('replaced');
  });

  it('tightens a kept file whose mode was loosened', async () => {
    const first = await demoKeys(store.keys, { db, rotate: false, now: NOW });
    chmodSync(first.file, 0o644);
    expect((await demoKeys(store.keys, { db, rotate: false, now: NOW })).origin).toBe('kept');
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
  });
});

describe('the demo keys file of a PostgreSQL store', () => {
  it('is in ./data, named after the database, never holding its password', () => {
    expect(demoKeysFile('postgres://gq:s3cret@db.example:5432/market')).toBe(
      'data/demo-gq_db.example_5432_market-keys.json',
    );
    expect(demoKeysFile('sqlite:data/demo.db')).toBe('data/demo.db-keys.json');
  });
});
