import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { describeLocation, openStore, sqlitePath, storeKind } from './open-store.js';
import { openSqliteStore } from './sqlite/open-sqlite-store.js';
import { collect, dayOne } from './store-contract.js';
import { trade } from './store-contract-events.js';
import { StoreBusyError, StoreOpenError } from './store-open-error.js';

const directory = mkdtempSync(join(tmpdir(), 'gridquote-open-'));
let files = 0;
const freshFile = () => join(directory, `store-${++files}.db`);

afterAll(() => rmSync(directory, { recursive: true, force: true }));

async function storeWithDayOne(): Promise<string> {
  const path = freshFile();
  const store = openSqliteStore(path);
  await store.writer.append(dayOne());
  await store.close();
  return path;
}

describe('openStore', () => {
  it('picks the adapter from the location and never prints a password', () => {
    expect(storeKind('data/x.db')).toBe('sqlite');
    expect(storeKind('sqlite:data/x.db')).toBe('sqlite');
    expect(storeKind('postgres://u@h/db')).toBe('postgres');
    expect(storeKind('postgresql://u@h/db')).toBe('postgres');
    expect(sqlitePath('sqlite:data/x.db')).toBe('data/x.db');
    expect(sqlitePath('sqlite:///srv/x.db')).toBe('/srv/x.db');
    expect(describeLocation('postgres://gq:s3cret@db:5432/market')).toBe('postgres://gq:***@db:5432/market');
    expect(describeLocation('postgres://gq:s3@cret@db/market')).toBe('postgres://gq:***@db/market');
    expect(describeLocation('postgres://gq@db/market?password=s3cret&sslmode=verify-full')).toBe(
      'postgres://gq@db/market?password=***&sslmode=verify-full',
    );
    expect(describeLocation('postgresql://db/market?sslmode=require&sslpassword=s3cret&PASSWORD=x')).toBe(
      'postgresql://db/market?sslmode=require&sslpassword=***&PASSWORD=***',
    );
  });

  it('opens a sqlite: URL as the file it names', async () => {
    const path = await storeWithDayOne();
    const store = await openStore(`sqlite:${path}`, { access: 'read' });
    expect(await store.reader.version()).toBe(dayOne().length);
    await store.close();
  });

  it('refuses a missing store unless the command creates stores, and creates nothing then', async () => {
    for (const access of ['read', 'write'] as const) {
      const path = join(directory, `typo-${access}.db`);
      await expect(openStore(path, { access })).rejects.toThrow(
        new StoreOpenError(`no store at ${path}; create one with gridquote seed or ingest`),
      );
      expect(existsSync(path)).toBe(false);
    }
    const created = await openStore(join(directory, 'new.db'), { access: 'write', create: true });
    expect(await created.reader.version()).toBe(0);
    await created.close();
  });

  it('serves read-only: nothing written beside the file, and a write refused with the reason', async () => {
    const path = await storeWithDayOne();
    // As prepared for read-only media: out of WAL, so that no -shm file is needed.
    const db = new Database(path);
    db.pragma('journal_mode = DELETE');
    db.close();
    const before = readFileSync(path);
    const store = await openStore(path, { access: 'read', purpose: 'for serving' });
    expect(await collect(store.events.lines())).toHaveLength(dayOne().length);
    await expect(store.writer.append([trade('20250219', 99, '150000', 'BNH2026', 1, 1)])).rejects.toThrow(
      /is open read-only for serving: it is not written/,
    );
    await expect(store.keys.revokeKey('a1b2c3d4e5f6', '2025-01-01T00:00:00Z')).rejects.toThrow(/read-only/);
    await store.close();
    expect(readFileSync(path).equals(before)).toBe(true);
    expect(existsSync(`${path}-wal`) || existsSync(`${path}-shm`)).toBe(false);
  });

  it('waits a bounded time for another writer, then says what holds the lock', async () => {
    const path = await storeWithDayOne();
    const ingest = await openStore(path, { access: 'write' });
    const batch = await ingest.writer.begin(); // an ingest in progress holds the write lock
    const keys = await openStore(path, { access: 'write', lockWaitMs: 300 });
    const started = performance.now();
    const record = {
      id: 'a1b2c3d4e5f6',
      name: '',
      level: 'historical' as const,
      secretHash: 'ab'.repeat(32),
      createdAt: '2025-02-01T00:00:00.000Z',
      expiresOn: null,
      revokedAt: null,
      perSecond: null,
      perMinute: null,
    };
    const refusal = keys.keys.insertKey(record);
    await expect(refusal).rejects.toBeInstanceOf(StoreBusyError);
    await expect(refusal).rejects.toThrow(/locked by another writer .* stayed locked for the 0\.3 s/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    await batch.rollback();
    await keys.keys.insertKey(record);
    expect((await keys.keys.findKey(record.id))?.id).toBe(record.id);
    await keys.close();
    await ingest.close();
  });

  it('says so in one line when no PostgreSQL adapter is built in', async () => {
    const adapter = join(import.meta.dirname, 'postgres', 'open-postgres-store.ts');
    if (existsSync(adapter)) return; // the adapter's own tests cover opening it
    await expect(openStore('postgres://gq:secret@127.0.0.1:1/none', { access: 'read' })).rejects.toThrow(
      new StoreOpenError('this build of gridquote has no PostgreSQL store; use a SQLite file path'),
    );
  });
});

/** A real read-only file system, where the machine lets this test mount one (root, tmpfs). */
function mountReadOnly(target: string): (() => void) | undefined {
  try {
    mkdirSync(target, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=16m', 'tmpfs', target], { stdio: 'ignore' });
  } catch {
    return undefined;
  }
  return () => execFileSync('umount', [target], { stdio: 'ignore' });
}

const media = join(directory, 'media');
const unmount = mountReadOnly(media);
if (!unmount) console.log('read-only media test skipped: this machine does not let the test mount a tmpfs');

describe.skipIf(!unmount)('a store on read-only media', () => {
  afterAll(() => unmount?.());

  it('is served and exported from a rollback-journal file; a WAL file is refused with the reason', async () => {
    const served = join(media, 'served.db');
    const wal = join(media, 'wal.db');
    for (const path of [served, wal]) {
      const store = openSqliteStore(path);
      await store.writer.append(dayOne());
      await store.close();
    }
    const db = new Database(served);
    db.pragma('journal_mode = DELETE');
    db.close();
    execFileSync('mount', ['-o', 'remount,ro', media], { stdio: 'ignore' });

    const store = await openStore(served, { access: 'read', purpose: 'for serving' });
    expect(await collect(store.events.lines())).toHaveLength(dayOne().length);
    expect(await store.reader.latestDate()).toBe('20250219');
    await store.close();
    await expect(openStore(served, { access: 'write' })).rejects.toThrow(
      /cannot write to .*served\.db: the file is on read-only media; serve and export open a store read-only/,
    );
    await expect(openStore(wal, { access: 'read' })).rejects.toThrow(
      /it is in WAL mode and the file is on read-only media, .*rollback-journal mode/,
    );
  });
});
