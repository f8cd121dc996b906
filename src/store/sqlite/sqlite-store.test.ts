import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { dayOne, dayTwo, describeMarketStore } from '../store-contract.js';
import { book, trade } from '../store-contract-events.js';
import { MIGRATIONS } from './migrations.js';
import { MEMORY, openSqliteStore } from './open-sqlite-store.js';
import { createSqliteKeyStore } from './sqlite-keys.js';

const directory = mkdtempSync(join(tmpdir(), 'gridquote-store-'));
let files = 0;
const freshFile = () => join(directory, `store-${++files}.db`);

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describeMarketStore('sqlite in memory', () => openSqliteStore(MEMORY));
describeMarketStore('sqlite file', () => openSqliteStore(freshFile()));

describe('sqlite store file', () => {
  it('is created in WAL mode with every migration applied, and keeps its data', () => {
    const path = freshFile();
    const store = openSqliteStore(path);
    store.writer.append(dayOne());
    store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
    const reopened = openSqliteStore(path);
    expect(reopened.reader.version()).toBe(dayOne().length);
    expect([...reopened.events.lines()]).toEqual(dayOne().map((event) => event.line));
    reopened.close();
  });

  it('refuses a database from a newer program', () => {
    const path = freshFile();
    const db = new Database(path);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openSqliteStore(path)).toThrow(/newer than this program/);
  });

  it('shows readers only committed batches', () => {
    const store = openSqliteStore(freshFile());
    const batch = store.writer.begin();
    batch.append(dayOne());
    expect(store.reader.version()).toBe(0);
    expect(store.reader.dates()).toEqual([]);
    batch.commit();
    expect(store.reader.version()).toBe(dayOne().length);
    store.close();
  });

  it('keeps key records in memory, yet sees keys created or revoked by another process within recheckMs', () => {
    const path = freshFile();
    openSqliteStore(path).close(); // creates and migrates the file
    const serverDb = new Database(path);
    const cliDb = new Database(path);
    let clock = 0;
    const server = createSqliteKeyStore(serverDb, { recheckMs: 1000, now: () => clock });
    const cli = createSqliteKeyStore(cliDb);
    const record = {
      id: 'a1b2c3d4e5f6',
      name: 'desk',
      level: 'historical' as const,
      secretHash: 'ab'.repeat(32),
      createdAt: '2025-02-01T00:00:00.000Z',
      expiresOn: null,
      revokedAt: null,
      perSecond: null,
      perMinute: null,
    };
    // Unknown ids are looked up every time, so a new key works at once.
    expect(server.findKey(record.id)).toBeUndefined();
    cli.insertKey(record);
    expect(server.findKey(record.id)).toEqual(record);
    cli.revokeKey(record.id, '2025-03-01T00:00:00.000Z');
    clock = 999;
    expect(server.findKey(record.id)?.revokedAt).toBeNull(); // still the remembered record
    clock = 1000;
    expect(server.findKey(record.id)?.revokedAt).toBe('2025-03-01T00:00:00.000Z');
    // Writes through the store itself are seen at once.
    server.insertKey({ ...record, id: 'ffffffffffff' });
    expect(server.findKey('ffffffffffff')?.revokedAt).toBeNull();
    server.revokeKey('ffffffffffff', '2025-04-01T00:00:00.000Z');
    expect(server.findKey('ffffffffffff')?.revokedAt).toBe('2025-04-01T00:00:00.000Z');
    cliDb.close();
    serverDb.close();
  });

  it('answers the queries from their indexes', () => {
    const store = openSqliteStore(freshFile());
    store.writer.append(dayOne());
    store.writer.append(dayTwo());
    store.close();
    const db = new Database(join(directory, `store-${files}.db`), { readonly: true });
    const plan = (sql: string) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[])
        .map((row) => row.detail)
        .join(' | ');
    expect(
      plan(
        "SELECT * FROM daily WHERE date = 1 AND market = 1 AND instrument = 0 AND code >= 'BN' AND code < 'BO'",
      ),
    ).toMatch(/SEARCH daily USING PRIMARY KEY/);
    const ticker = plan(
      'SELECT * FROM ticks WHERE date = 1 AND market = 1 AND instrument = 0 AND time BETWEEN 0 AND 235959 ' +
        'ORDER BY time DESC, seq DESC',
    );
    expect(ticker).toMatch(/SEARCH ticks USING PRIMARY KEY/);
    expect(ticker).not.toMatch(/TEMP B-TREE/);
    const log = plan('SELECT * FROM trades WHERE date = 1 AND market = 1 AND time >= 0 ORDER BY time, seq');
    expect(log).toMatch(/SEARCH trades USING PRIMARY KEY/);
    expect(log).not.toMatch(/TEMP B-TREE/);
    db.close();
  });
});

describe('sqlite store reads', () => {
  it('serves a full-day market ticker of 10,000 messages from one read', () => {
    const store = openSqliteStore(freshFile());
    const codes = ['BNH2026', 'BNM2026', 'BQU2026', 'BVZ2026', 'HNZ2026', 'ENF2026', 'PSH2027', 'GNM2026'];
    const events = Array.from({ length: 10_000 }, (_, index) => {
      const seq = index + 1;
      const second = 36_000 + Math.floor(index * 2.1);
      const time = [second / 3600, (second % 3600) / 60, second % 60]
        .map((part) => String(Math.floor(part)).padStart(2, '0'))
        .join('');
      const code = codes[index % codes.length] ?? 'BNH2026';
      return index % 10 === 0
        ? trade('20250219', seq, time, code, 10_000 + index, 1)
        : book('20250219', seq, time, code, [10_000 + index, 1], [10_050 + index, 2]);
    });
    store.writer.append(events);
    const query = {
      date: '20250219',
      selection: { instrument: 'future', market: 'au_electricity' } as const,
    };
    // Its speed is measured by the HTTP benchmark (cold full-day ticker), not timed here.
    const rows = store.reader.ticker({ ...query, from: '000000', to: '235959' }).length;
    store.close();
    expect(rows).toBe(10_000);
  });
});
