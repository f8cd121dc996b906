import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { EventConflictError } from '../event-conflict-error.js';
import type { AppendNotice, MarketStore } from '../store.js';
import { collect, dayOne, dayThree, dayTwo, describeMarketStore, snapshot } from '../store-contract.js';
import { book, settle, trade } from '../store-contract-events.js';
import { MIGRATIONS, migrate } from './migrations.js';
import { MEMORY, openSqliteStore } from './open-sqlite-store.js';
import { createSqliteKeyStore } from './sqlite-keys.js';
import { createSqliteReader } from './sqlite-reader.js';
import { createSqliteWriter } from './sqlite-writer.js';
import { promised } from './synchronous.js';

const directory = mkdtempSync(join(tmpdir(), 'gridquote-store-'));
let files = 0;
const freshFile = () => join(directory, `store-${++files}.db`);
const D1 = '20250219';

afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
});

describeMarketStore('sqlite in memory', () => openSqliteStore(MEMORY));
describeMarketStore('sqlite file', () => openSqliteStore(freshFile()), {
  async openPair() {
    const path = freshFile();
    return [openSqliteStore(path), openSqliteStore(path)];
  },
});

describe('sqlite store file', () => {
  it('is created in WAL mode with every migration applied, and keeps its data', async () => {
    const path = freshFile();
    const store = openSqliteStore(path);
    await store.writer.append(dayOne());
    await store.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
    const reopened = openSqliteStore(path);
    expect(await reopened.reader.version()).toBe(dayOne().length);
    expect(await collect(reopened.events.lines())).toEqual(dayOne().map((event) => event.line));
    await reopened.close();
  });

  it('runs WAL checkpoints on a thread of its own when asked, while the serving thread does nothing', async () => {
    const path = freshFile();
    const store = openSqliteStore(path, { backgroundCheckpoints: true });
    try {
      await store.writer.append(dayOne());
      // What the database file itself holds, without its WAL: only what a checkpoint copied back.
      const checkpointed = () => {
        const copy = `${path}-copy.db`;
        rmSync(`${copy}-wal`, { force: true });
        copyFileSync(path, copy);
        try {
          const db = new Database(copy);
          try {
            return Number(db.prepare("SELECT value FROM meta WHERE key = 'version'").pluck().get());
          } finally {
            db.close();
          }
        } catch {
          return undefined; // copied in the middle of a checkpoint: look again
        }
      };
      // A few pages, far below SQLite's own threshold (1,000): only the thread copies them back.
      let version = checkpointed();
      for (let waited = 0; version !== dayOne().length && waited < 10_000; waited += 50) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        version = checkpointed();
      }
      expect(version).toBe(dayOne().length);
    } finally {
      await store.close();
    }
    // The thread has stopped with the store: the file opens and holds everything.
    const reopened = openSqliteStore(path);
    expect(await reopened.reader.version()).toBe(dayOne().length);
    await reopened.close();
  });

  it('refuses a database from a newer program', async () => {
    const path = freshFile();
    const db = new Database(path);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();
    expect(() => openSqliteStore(path)).toThrow(/newer than this program/);
  });

  it('moves the latest settles from ticks into daily when migrating a version-1 file', async () => {
    const path = freshFile();
    // As version 1 wrote them: every settle in ticks, the latest of a contract also in daily.
    const old = new Database(path);
    old.exec(MIGRATIONS[0] ?? '');
    old.pragma('user_version = 1');
    const tick = old.prepare(
      `INSERT INTO ticks (date, seq, time, market, instrument, code, option_type, kind, bid_cents, bid_size,
        settle_cents, published_at, implied_volatility) VALUES (20250219, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    tick.run(1, 100000, 0, 'BNH2026', null, 1, 12400, 1, null, null, null);
    tick.run(21, 160000, 0, 'BNH2026', null, 3, null, null, 12400, 1_740_000_021, null);
    tick.run(30, 155900, 0, 'BNH2026', null, 3, null, null, 12410, 1_740_000_030, null);
    tick.run(22, 160000, 1, 'BNH20260012000C', 'C', 3, null, null, 560, 1_740_000_022, 2228);
    const daily = old.prepare(
      `INSERT INTO daily (date, market, instrument, code, option_type, book_seq, bid_cents, bid_size, volume, trades,
        settle_seq, settle_cents, implied_volatility) VALUES (20250219, 1, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?, ?)`,
    );
    daily.run(0, 'BNH2026', null, 1, 12400, 1, 30, 12410, null);
    daily.run(1, 'BNH20260012000C', 'C', null, null, null, 22, 560, 2228);
    old.close();

    const migrated = openSqliteStore(path);
    const fresh = openSqliteStore(MEMORY);
    await fresh.writer.append([
      book('20250219', 1, '100000', 'BNH2026', [12400, 1], null),
      settle('20250219', 21, 'BNH2026', 12400),
      settle('20250219', 30, 'BNH2026', 12410, null, '155900'),
      settle('20250219', 22, 'BNH20260012000C', 560, 2228),
    ]);
    const answers = async (store: MarketStore) => {
      const all = [];
      for (const instrument of ['future', 'option'] as const) {
        const selection = { market: 'au_electricity', instrument } as const;
        all.push({
          ticker: await store.reader.ticker({ date: '20250219', selection, from: '000000', to: '235959' }),
          eod: await store.reader.endOfDay({ date: '20250219', selection }),
        });
      }
      return all;
    };
    expect(await answers(migrated)).toEqual(await answers(fresh));
    expect(
      (await answers(migrated))[0]?.ticker.map((row) => `${row.time}:${row.type}:${row.settleCents}`),
    ).toEqual(['160000:settle:12400', '155900:settle:12410', '100000:book:null']);
    await migrated.close();
    await fresh.close();
    const db = new Database(path, { readonly: true });
    // only the superseded settle is left in ticks
    expect(db.prepare('SELECT seq FROM ticks WHERE kind = 3').pluck().all()).toEqual([21]);
    db.close();
  });

  it('migrates a new file once when another process migrated it between its first look and its write lock', () => {
    const path = freshFile();
    const late = new Database(path);
    const other = new Database(path);
    try {
      // `late` read version 0 before `other` migrated the file: its look is stale.
      const pragma = late.pragma.bind(late);
      let looks = 0;
      late.pragma = ((source: string, options?: Database.PragmaOptions) =>
        source === 'user_version' && looks++ === 0 ? 0 : pragma(source, options)) as typeof late.pragma;
      const applied = migrate(other);
      expect(applied.length).toBeGreaterThan(0);
      expect(migrate(late)).toEqual([]);
      expect(pragma('user_version', { simple: true })).toBe(applied.length);
    } finally {
      late.close();
      other.close();
    }
  });

  it('writes the summed views of a long batch in parts, and keeps them summed past a failed append', async () => {
    const db = new Database(MEMORY);
    migrate(db);
    // one daily row is enough to write the sums at the next append
    const writer = createSqliteWriter(db, () => {}, { maxSummedRows: 1 });
    const batch = writer.begin();
    for (const [index, event] of dayOne().entries()) {
      batch.append([event]);
      if (index === 5) {
        // this append writes the sums (a trade's), then fails: they roll back with it and stay summed
        expect(() => batch.append([trade(D1, 6, '103000', 'BNH2026', 1, 1)])).toThrow(EventConflictError);
      }
    }
    for (const event of [...dayTwo(), ...dayThree()]) batch.append([event]);
    batch.commit();
    const expected = openSqliteStore(MEMORY);
    await expected.writer.append([...dayOne(), ...dayTwo(), ...dayThree()]);
    const store = { reader: promised(createSqliteReader(db)) } as MarketStore;
    expect(await snapshot(store)).toEqual(await snapshot(expected));
    await expected.close();
    db.close();
  });

  it('shows readers only committed batches', async () => {
    const store = openSqliteStore(freshFile());
    const batch = await store.writer.begin();
    await batch.append(dayOne());
    expect(await store.reader.version()).toBe(0);
    expect(await store.reader.dates()).toEqual([]);
    await batch.commit();
    expect(await store.reader.version()).toBe(dayOne().length);
    await store.close();
  });

  it('rolls a batch back when its COMMIT fails, so the next append starts clean', async () => {
    const path = freshFile();
    await openSqliteStore(path).close(); // creates and migrates the file
    const db = new Database(path);
    let failCommit = true;
    // The real connection, except that its first COMMIT fails as on a full disk.
    const flaky = new Proxy(db, {
      get(target, property) {
        if (property === 'exec') {
          return (sql: string) => {
            if (sql === 'COMMIT' && failCommit) {
              failCommit = false;
              throw new Error('database or disk is full');
            }
            return target.exec(sql);
          };
        }
        const value = Reflect.get(target, property);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const writer = createSqliteWriter(flaky, () => {});
    const batch = writer.begin();
    batch.append(dayOne());
    expect(() => batch.commit()).toThrow('database or disk is full');
    expect(db.inTransaction).toBe(false);
    expect(writer.append(dayTwo())).toEqual({ added: dayTwo().length, skipped: 0 });
    db.close();
    const store = openSqliteStore(path);
    expect(await store.reader.version()).toBe(dayTwo().length);
    await store.close();
  });

  it('keeps key records in memory, yet sees keys created or revoked by another process within recheckMs', async () => {
    const path = freshFile();
    await openSqliteStore(path).close(); // creates and migrates the file
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

  it("hears another process's commits as they write its WAL file, without waiting for the poll", async () => {
    const path = freshFile();
    await openSqliteStore(path).close(); // creates and migrates the file
    // A poll of an hour: within this test only the watch on the WAL file can bring the notices.
    const served = openSqliteStore(path, { readonly: true, pollMs: 3_600_000 });
    const other = openSqliteStore(path);
    const notices: AppendNotice[] = [];
    const stop = served.onAppend((notice) => notices.push(notice));
    try {
      await other.writer.append(dayOne());
      const first = dayOne().length;
      await vi.waitFor(() => expect(notices.at(-1)?.version).toBe(first), { timeout: 5_000 });
      await other.writer.append(dayTwo());
      const second = first + dayTwo().length;
      await vi.waitFor(() => expect(notices.at(-1)?.version).toBe(second), { timeout: 5_000 });
      expect(notices.at(-1)).toMatchObject({ added: dayTwo().length, dates: [dayTwo()[0]?.date] });
      // Without listeners the store stops watching: nothing more arrives.
      stop();
      const heard = notices.length;
      await other.writer.append(dayThree());
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(notices).toHaveLength(heard);
    } finally {
      stop();
      await served.close();
      await other.close();
    }
  });

  it('answers the queries from their indexes', async () => {
    const store = openSqliteStore(freshFile());
    await store.writer.append(dayOne());
    await store.writer.append(dayTwo());
    await store.close();
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
    // the ticker's latest settles, merged into the ticks above
    expect(
      plan(
        'SELECT settle_time, settle_seq FROM daily WHERE date = 1 AND market = 1 AND instrument = 0 ' +
          'AND settle_seq IS NOT NULL AND settle_time BETWEEN 0 AND 235959',
      ),
    ).toMatch(/SEARCH daily USING PRIMARY KEY/);
    const log = plan('SELECT * FROM trades WHERE date = 1 AND market = 1 AND time >= 0 ORDER BY time, seq');
    expect(log).toMatch(/SEARCH trades USING PRIMARY KEY/);
    expect(log).not.toMatch(/TEMP B-TREE/);
    db.close();
  });
});

describe('sqlite store reads', () => {
  it('serves a full-day market ticker of 10,000 messages from one read', async () => {
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
    await store.writer.append(events);
    const query = {
      date: '20250219',
      selection: { instrument: 'future', market: 'au_electricity' } as const,
    };
    // Its speed is measured by the HTTP benchmark (cold full-day ticker), not timed here.
    const rows = (await store.reader.ticker({ ...query, from: '000000', to: '235959' })).length;
    await store.close();
    expect(rows).toBe(10_000);
  });
});
