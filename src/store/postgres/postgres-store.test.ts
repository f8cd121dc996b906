import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { everyAnswer } from '../../../test/store-answers.js';
import { proxyInFrontOf } from '../../../test/tcp-proxy.js';
import { waitFor } from '../../../test/wait-for.js';
import { EventConflictError } from '../event-conflict-error.js';
import { MEMORY, openSqliteStore } from '../sqlite/open-sqlite-store.js';
import type { AppendNotice, MarketStore, ValidatedEvent } from '../store.js';
import { dayOne, dayThree, dayTwo, describeMarketStore } from '../store-contract.js';
import { settle, trade } from '../store-contract-events.js';
import { SCHEMA_VERSION } from './migrations.js';
import { openPostgresStore, StoreUnreachableError } from './open-postgres-store.js';
import { EXACT_TYPES } from './postgres-types.js';
import { createPostgresWriter } from './postgres-writer.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from './test-schemas.js';

reportSkipped('PostgreSQL store tests');
const schemas = testSchemas();

describe.skipIf(TEST_PG_URL === undefined)('postgres', () => {
  describeMarketStore('postgres', () => schemas.open(), {
    async openPair() {
      const schema = schemas.name();
      const first = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
      return [first, await openPostgresStore(TEST_PG_URL ?? '', { schema })];
    },
  });
});
const D1 = '20250219';

afterAll(async () => {
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

const corrections = (): ValidatedEvent[] => [
  settle(D1, 30, 'BNH2026', 12410, null, '161500'),
  settle(D1, 31, 'BNH2026', 12420, null, '155900'),
  settle(D1, 32, 'BNH20260012000C', 565, 2230, '160100'),
];
const DATES = ['20250219', '20250220', '20250221'];

async function lines(store: MarketStore, date?: string): Promise<string[]> {
  const out: string[] = [];
  for await (const line of store.events.lines(date === undefined ? undefined : { date })) out.push(line);
  return out;
}

describe.skipIf(TEST_PG_URL === undefined)('postgres store', () => {
  it('answers every reader question as the SQLite store does, whatever the arrival order', async () => {
    const events = [...dayOne(), ...corrections(), ...dayTwo(), ...dayThree()];
    const sqlite = openSqliteStore(MEMORY);
    await sqlite.writer.append(events);
    const expected = await everyAnswer(sqlite.reader, DATES);
    await sqlite.close();
    const arrivals: ((s: MarketStore) => Promise<unknown>)[] = [
      (s) => s.writer.append(events),
      (s) => s.writer.append([...events].reverse()),
      async (s) => {
        for (const event of [...events].reverse()) await s.writer.append([event]);
      },
      async (s) => {
        const batch = await s.writer.begin();
        for (const event of events) await batch.append([event]);
        await batch.commit();
      },
    ];
    for (const arrive of arrivals) {
      const store = await schemas.open();
      try {
        await arrive(store);
        expect(await everyAnswer(store.reader, DATES)).toEqual(expected);
        expect(await lines(store)).toEqual(
          [...dayOne(), ...corrections(), ...dayTwo(), ...dayThree()]
            .map((e) => e.line)
            .sort(byIdentity(events)),
        );
      } finally {
        await store.close();
      }
    }
  });

  it("writes a long batch's views in parts, on dates new and stored, and keeps them past a failed append", async () => {
    const events = [...dayOne(), ...corrections(), ...dayTwo(), ...dayThree()];
    const sqlite = openSqliteStore(MEMORY);
    await sqlite.writer.append(events);
    const expected = await everyAnswer(sqlite.reader, DATES);
    await sqlite.close();
    const schema = schemas.name();
    const store = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    // part of the first day is stored before the batch: its views are merged into, not copied
    await store.writer.append(dayOne().slice(0, 10));
    const pool = new pg.Pool({
      connectionString: TEST_PG_URL,
      options: `-c search_path=${schema}`,
      types: EXACT_TYPES,
    });
    try {
      // one daily row is enough to write the sums at the next append; rows are sent from two
      // events on when the server is idle, and at four in any case
      const writer = createPostgresWriter(pool, () => undefined, 'test', 'test', {
        maxSummedRows: 1,
        partEvents: [2, 4],
      });
      const batch = await writer.begin();
      for (const [index, event] of [...events.slice(10)].entries()) {
        await batch.append([event]);
        if (index === 5) {
          // refused before anything is written: the sums and rows of the batch stay as they were
          await expect(batch.append([trade(D1, 6, '103000', 'BNH2026', 1, 1)])).rejects.toThrow(
            EventConflictError,
          );
        }
      }
      await batch.commit();
      expect(await everyAnswer(store.reader, DATES)).toEqual(expected);
    } finally {
      await pool.end();
      await store.close();
    }
  });

  it("reads a new date's stored seqs on its own connection when the side reads have none free", async () => {
    const schema = schemas.name();
    const store = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    await store.writer.append(dayTwo());
    const config = { connectionString: TEST_PG_URL, options: `-c search_path=${schema}`, types: EXACT_TYPES };
    const pool = new pg.Pool(config);
    // the side reads' only connection is taken: waiting for it would wait for ever
    const side = new pg.Pool({ ...config, max: 1 });
    const taken = await side.connect();
    try {
      const writer = createPostgresWriter(pool, () => undefined, 'test', 'test', { sideReads: side });
      const batch = await writer.begin();
      await batch.append(dayOne());
      expect(await batch.append(dayTwo())).toEqual({ added: 0, skipped: dayTwo().length });
      expect(await batch.commit()).toEqual({ added: dayOne().length, skipped: dayTwo().length });
      expect(await store.reader.version()).toBe(dayTwo().length + dayOne().length);
    } finally {
      taken.release();
      await side.end();
      await pool.end();
      await store.close();
    }
  });

  it('stores the contracts a writer new to the store meets, those stored before and new ones, each once', async () => {
    const schema = schemas.name();
    const first = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    await first.writer.append(dayOne());
    await first.close();
    // A new writer knows none of the store's contracts: its COPY of them meets stored codes.
    const newContract = trade('20250220', 90, '150000', 'BNM2026', 12500, 1);
    const later = [...dayTwo(), newContract];
    const second = await openPostgresStore(TEST_PG_URL ?? '', { schema });
    const sqlite = openSqliteStore(MEMORY);
    try {
      expect(await second.writer.append(later)).toEqual({ added: later.length, skipped: 0 });
      await sqlite.writer.append([...dayOne(), ...later]);
      expect(await everyAnswer(second.reader, DATES)).toEqual(await everyAnswer(sqlite.reader, DATES));
      expect(await lines(second, '20250220')).toEqual(later.map((event) => event.line));
      const client = new pg.Client({ connectionString: TEST_PG_URL, options: `-c search_path=${schema}` });
      await client.connect();
      const codes = await client.query<{ code: string }>('SELECT code FROM contracts ORDER BY code');
      await client.end();
      const named = new Set(
        [...dayOne(), ...later].flatMap((event) =>
          'contract' in event && typeof event.contract === 'object' ? [event.contract.code] : [],
        ),
      );
      expect(codes.rows.map((row) => row.code)).toEqual([...named].sort());
    } finally {
      await second.close();
      await sqlite.close();
    }
  });

  it('skips replays, refuses conflicts and stores nothing of a refused batch', async () => {
    const store = await schemas.open();
    try {
      expect(await store.writer.append(dayOne())).toEqual({ added: 27, skipped: 0 });
      expect(await store.writer.append(dayOne())).toEqual({ added: 0, skipped: 27 });
      const before = await lines(store);
      const fresh = trade(D1, 99, '150500', 'BNH2026', 12400, 1);
      const changed = trade(D1, 6, '103000', 'BNH2026', 12502, 3);
      const refusal = store.writer.append([fresh, changed]);
      await expect(refusal).rejects.toBeInstanceOf(EventConflictError);
      await expect(refusal).rejects.toMatchObject({ index: 1, date: D1, seq: 6 });
      expect(await lines(store)).toEqual(before);
      expect(await store.reader.version()).toBe(27);
      expect(await store.writer.append([fresh])).toEqual({ added: 1, skipped: 0 });
      expect(await store.reader.version()).toBe(28);
    } finally {
      await store.close();
    }
  });

  it('keeps a batch usable after a refused append, and rolls a batch back whole', async () => {
    const store = await schemas.open();
    try {
      const dropped = await store.writer.begin();
      await dropped.append(dayOne());
      await dropped.rollback();
      expect(await store.reader.version()).toBe(0);
      expect(await lines(store)).toEqual([]);
      const batch = await store.writer.begin();
      await batch.append(dayOne());
      await expect(
        batch.append([trade(D1, 99, '150500', 'BNH2026', 1, 1), trade(D1, 6, '103000', 'BNH2026', 1, 1)]),
      ).rejects.toBeInstanceOf(EventConflictError);
      await batch.append(dayTwo());
      expect(await batch.commit()).toEqual({ added: 34, skipped: 0 });
      expect(await lines(store, '20250220')).toEqual(dayTwo().map((event) => event.line));
    } finally {
      await store.close();
    }
  });

  it('rolls back a batch left open when the store closes', async () => {
    const schema = schemas.name();
    const store = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    const batch = await store.writer.begin();
    await batch.append(dayOne());
    await store.close(); // returns: the batch's connection does not keep the pool open
    const reopened = await openPostgresStore(TEST_PG_URL ?? '', { schema });
    expect(await reopened.reader.version()).toBe(0);
    expect(await reopened.writer.append(dayOne())).toEqual({ added: 27, skipped: 0 });
    await reopened.close();
  });

  it('announces commits in process at once and to another process by NOTIFY', async () => {
    const schema = schemas.name();
    const writer = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    try {
      const seen: unknown[] = [];
      const remoteSeen: unknown[] = [];
      writer.onAppend((notice) => seen.push(notice));
      const other = await openPostgresStore(TEST_PG_URL ?? '', { schema });
      try {
        // a commit before the other store listens is announced too: it reads the version once listening
        other.onAppend((notice) => remoteSeen.push(notice));
        await writer.writer.append(dayOne());
        expect(seen).toEqual([{ version: 27, added: 27, dates: [D1], revisions: new Map([[D1, 27]]) }]);
        await waitFor('the other store told of the commit', () => remoteSeen.length > 0);
        const { notifiedAtMs: _raced, ...first } = remoteSeen[0] as AppendNotice;
        expect(remoteSeen).toHaveLength(1);
        expect(first).toEqual({ version: 27, added: 0, dates: [D1], revisions: new Map([[D1, 27]]) });
        // Now listening: the next commit's notice says when it was sent (the replicas' notice delay).
        const before = Date.now();
        await writer.writer.append(dayTwo());
        await waitFor('the other store told of the second commit', () => remoteSeen.length > 1);
        const second = remoteSeen[1] as AppendNotice;
        expect(second.notifiedAtMs).toBeGreaterThanOrEqual(before);
        expect(second.notifiedAtMs).toBeLessThanOrEqual(Date.now());
      } finally {
        await other.close();
      }
    } finally {
      await writer.close();
    }
  });

  it("creates a month's partitions with the batch that first meets it, and keeps none of a batch rolled back", async () => {
    const schema = schemas.name();
    const store = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    const client = new pg.Client({ connectionString: TEST_PG_URL });
    await client.connect();
    const partitions = async () =>
      (
        await client.query(
          'SELECT relname FROM pg_class WHERE relispartition AND relkind = $1 AND relnamespace = $2::regnamespace ORDER BY relname',
          ['r', schema],
        )
      ).rows.map((row) => row.relname);
    try {
      const batch = await store.writer.begin();
      await batch.append(dayOne());
      await batch.rollback();
      expect(await partitions()).toEqual([]);
      // the month is met again by the next batch, and its partitions made then
      await store.writer.append(dayOne());
      expect(await partitions()).toEqual(['events_202502', 'ticks_202502', 'trades_202502']);
      expect(await store.reader.version()).toBe(dayOne().length);
    } finally {
      await client.end();
      await store.close();
    }
  });

  it('creates its schema at the current version and refuses a newer one', async () => {
    const schema = schemas.name();
    const store = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    await store.writer.append(dayOne());
    await store.close();
    const client = new pg.Client({ connectionString: TEST_PG_URL, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      const versions = await client.query('SELECT version FROM gridquote_schema ORDER BY version');
      expect(versions.rows.map((row) => row.version)).toEqual(
        [...Array(SCHEMA_VERSION).keys()].map((i) => i + 1),
      );
      const partitions = await client.query(
        "SELECT relname FROM pg_class WHERE relname LIKE '%\\_202502' AND relnamespace = current_schema()::regnamespace ORDER BY relname",
      );
      expect(partitions.rows.map((row) => row.relname)).toEqual([
        'events_202502',
        'ticks_202502',
        'trades_202502',
      ]);
      // reopening without migrating: the schema is this program's, and the data is there
      const reopened = await openPostgresStore(TEST_PG_URL ?? '', { schema });
      expect(await reopened.reader.version()).toBe(27);
      await reopened.close();
      await client.query('INSERT INTO gridquote_schema (version) VALUES ($1)', [SCHEMA_VERSION + 1]);
    } finally {
      await client.end();
    }
    await expect(openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true })).rejects.toThrow(
      /newer than this program/,
    );
    await expect(openPostgresStore(TEST_PG_URL ?? '', { schema })).rejects.toThrow(/newer than this program/);
  });

  it('refuses an empty database unless the command creates stores, and creates nothing then', async () => {
    const schema = schemas.name();
    for (const access of ['read', 'write'] as const) {
      await expect(openPostgresStore(TEST_PG_URL ?? '', { schema, access })).rejects.toThrow(
        /^no store at 127\.0\.0\.1:5432\/test: its search_path \(gq_\w+\) names no schema that exists; create the schema \(CREATE SCHEMA name\), then the store with gridquote seed, ingest or migrate$/,
      );
    }
    const store = await openPostgresStore(TEST_PG_URL ?? '', { schema, access: 'write', create: true });
    expect(await store.reader.version()).toBe(0);
    await store.close();
  });

  it('serves read-only: a write is refused with the reason', async () => {
    const schema = schemas.name();
    const writer = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    await writer.writer.append(dayOne());
    await writer.close();
    const store = await openPostgresStore(TEST_PG_URL ?? '', {
      schema,
      access: 'read',
      purpose: 'for serving',
    });
    try {
      expect(await store.reader.version()).toBe(27);
      await expect(store.writer.append(dayTwo())).rejects.toThrow(
        /open read-only for serving: it is not written/,
      );
      await expect(store.keys.revokeKey('gq_x', '2025-01-01T00:00:00Z')).rejects.toThrow(/read-only/);
      expect(await store.reader.version()).toBe(27);
    } finally {
      await store.close();
    }
  });

  it('refuses to create a store where the search_path of the URL names no existing schema, saying what to do', async () => {
    const url = TEST_PG_URL ?? '';
    const missing = schemas.name();
    const opening = openPostgresStore(
      `${url}${url.includes('?') ? '&' : '?'}options=-c%20search_path%3D${missing}`,
      { create: true },
    );
    await expect(opening).rejects.toThrow(
      new RegExp(
        `^no schema at .* to create the store in: its search_path \\(${missing}\\) names none that exists; create it first`,
      ),
    );
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const found = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [missing]);
      expect(found.rowCount).toBe(0);
    } finally {
      await admin.end();
    }
  });

  it('names the role and the store when the role may not use them, and what to grant', async () => {
    const url = TEST_PG_URL ?? '';
    const schema = schemas.name();
    const owner = await openPostgresStore(url, { schema, migrate: true });
    await owner.close();
    const role = `${schema}_reader`;
    const asRole = new URL(url);
    asRole.username = role;
    asRole.password = '';
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE ROLE ${role} LOGIN`);
    try {
      const opening = () => openPostgresStore(asRole.href, { schema, access: 'read' });
      await expect(opening()).rejects.toThrow(
        new RegExp(
          `^no store at .* that role ${role} may use: it may not use schema ${schema} of its search_path`,
        ),
      );
      await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
      await expect(opening()).rejects.toThrow(
        new RegExp(
          `^role ${role} lacks a privilege on the store in schema ${schema} at .* \\(permission denied for table gridquote_schema\\): a role that serves needs USAGE on the schema and SELECT on its tables`,
        ),
      );
      await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
      const reader = await opening();
      expect(await reader.reader.version()).toBe(0);
      await reader.close();
    } finally {
      await admin.query(`DROP OWNED BY ${role}`);
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    }
  });

  it('waits a bounded time for another writer, then says so', async () => {
    const schema = schemas.name();
    const ingest = await openPostgresStore(TEST_PG_URL ?? '', { schema, migrate: true });
    const other = await openPostgresStore(TEST_PG_URL ?? '', { schema, lockWaitMs: 300 });
    try {
      const batch = await ingest.writer.begin();
      await batch.append(dayOne()); // holds the version row until it commits
      await expect(other.writer.append(dayTwo())).rejects.toThrow(/another process is writing to the store/);
      await batch.commit();
      expect(await other.writer.append(dayTwo())).toEqual({ added: 7, skipped: 0 });
    } finally {
      await other.close();
      await ingest.close();
    }
  });
});

describe('postgres store without a server', () => {
  it('says in one line that the server cannot be reached', async () => {
    const opening = openPostgresStore('postgres://someone:secret@127.0.0.1:1/test', {
      connectTimeoutMs: 2000,
    });
    await expect(opening).rejects.toBeInstanceOf(StoreUnreachableError);
    await expect(opening).rejects.toThrow(/^cannot reach PostgreSQL at 127\.0\.0\.1:1\/test: .*ECONNREFUSED/);
    await opening.catch((error: Error) => {
      expect(error.message).not.toContain('secret');
      expect(error.message).not.toContain('\n');
    });
  });
});

/** Export order: by date then seq. */
function byIdentity(events: readonly ValidatedEvent[]) {
  const key = new Map(
    events.map((event) => [event.line, `${event.date}/${String(event.seq).padStart(12, '0')}`]),
  );
  return (a: string, b: string) => ((key.get(a) ?? '') < (key.get(b) ?? '') ? -1 : 1);
}

describe.skipIf(TEST_PG_URL === undefined)('postgres store losing its server', () => {
  it('fails its operations while the server is away and works again once it is back', async () => {
    const { proxy, url } = await proxyInFrontOf(TEST_PG_URL ?? 'postgres://localhost', 5432);
    const store = await openPostgresStore(url, {
      schema: schemas.name(),
      migrate: true,
      connectTimeoutMs: 1000,
    });
    try {
      await store.writer.append(dayOne());
      expect(await store.reader.version()).toBe(27);
      await proxy.cut();
      await expect(store.reader.version()).rejects.toThrow();
      await expect(store.reader.dates()).rejects.toThrow();
      await expect(store.keys.listKeys()).rejects.toThrow();
      await proxy.restore();
      // the pool opens new connections on demand: no reopening, no restart
      await waitFor('the server back', async () => (await store.reader.version().catch(() => -1)) === 27);
      expect(await store.reader.dates()).toEqual([D1]);
      expect(await store.writer.append(dayTwo())).toEqual({ added: 7, skipped: 0 });
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it('survives losing the server while a write batch and an export hold their connections', async () => {
    const { proxy, url } = await proxyInFrontOf(TEST_PG_URL ?? 'postgres://localhost', 5432);
    const store = await openPostgresStore(url, {
      schema: schemas.name(),
      migrate: true,
      connectTimeoutMs: 1000,
    });
    try {
      await store.writer.append(dayOne());
      const batch = await store.writer.begin();
      await batch.append(dayTwo());
      const lines = store.events.lines()[Symbol.asyncIterator]();
      expect((await lines.next()).done).toBe(false);
      // both connections sit idle, checked out, when the server goes: no crash, the next use fails
      await proxy.cut();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await expect(batch.append(dayThree())).rejects.toThrow();
      await batch.rollback().catch(() => undefined);
      await lines.return?.();
      await proxy.restore();
      await waitFor('the server back', async () => (await store.reader.version().catch(() => -1)) === 27);
      expect(await store.writer.append(dayTwo())).toEqual({ added: 7, skipped: 0 });
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  it('gives up on reads from a server that hangs instead of refusing, within its timeouts, and recovers', async () => {
    const { proxy, url } = await proxyInFrontOf(TEST_PG_URL ?? 'postgres://localhost', 5432);
    const timeouts = { statementTimeoutMs: 300, connectTimeoutMs: 500 };
    const store = await openPostgresStore(url, {
      schema: schemas.name(),
      migrate: true,
      poolMax: 2,
      ...timeouts,
    });
    try {
      await store.writer.append(dayOne());
      // two idle connections in the pool, and more reads than it holds: some wait for a connection
      await Promise.all([store.reader.dates(), store.reader.version()]);
      proxy.freeze();
      const reads = Array.from({ length: 6 }, async () => {
        const started = Date.now();
        const failed = await store.reader.dates().then(
          () => false,
          () => true,
        );
        return { failed, ms: Date.now() - started };
      });
      const settled = await Promise.all(reads);
      expect(settled.every((read) => read.failed)).toBe(true);
      // at worst: a wait for a connection, a connection that never opens, then the read's own
      // timeout and its margin (QUERY_TIMEOUT_MARGIN_MS); slack for a busy machine
      const bound = 2 * timeouts.connectTimeoutMs + timeouts.statementTimeoutMs + 1_000;
      expect(Math.max(...settled.map((read) => read.ms))).toBeLessThan(bound + 2_000);
      proxy.thaw();
      await waitFor(
        'the server answering again',
        async () => (await store.reader.version().catch(() => -1)) === 27,
      );
      expect(await store.reader.dates()).toEqual([D1]);
    } finally {
      proxy.thaw();
      await store.close();
      await proxy.close();
    }
  });

  it('counts the change notices lost when their connection hangs without a reset, and listens again after', async () => {
    const { proxy, url } = await proxyInFrontOf(TEST_PG_URL ?? 'postgres://localhost', 5432);
    const store = await openPostgresStore(url, {
      schema: schemas.name(),
      migrate: true,
      connectTimeoutMs: 500,
      noticeProbeMs: 300,
    });
    const stopListening = store.onAppend(() => undefined);
    try {
      await waitFor('the notices to listen', () => store.changeNotices() === 'listening');
      // A hung server (a host gone, a partition): no byte passes, no connection is reset.
      proxy.freeze();
      const frozenAt = Date.now();
      await waitFor('the notices to be lost', () => store.changeNotices() === 'lost', { timeoutMs: 10_000 });
      // a probe every 300 ms, given 300 ms to answer (slack for a busy machine)
      expect(Date.now() - frozenAt).toBeLessThan(5_000);
      proxy.thaw();
      await waitFor('the notices to listen again', () => store.changeNotices() === 'listening');
    } finally {
      stopListening();
      proxy.thaw();
      await store.close();
      await proxy.close();
    }
  });

  it('bounds every read by the statement timeout', async () => {
    const schema = schemas.name();
    const store = await openPostgresStore(TEST_PG_URL ?? '', {
      schema,
      migrate: true,
      statementTimeoutMs: 200,
    });
    const blocker = new pg.Client({ connectionString: TEST_PG_URL });
    await blocker.connect();
    try {
      await store.writer.append(dayOne());
      // a lock held elsewhere makes the read wait: the timeout ends it
      await blocker.query('BEGIN');
      await blocker.query(`LOCK TABLE ${pg.escapeIdentifier(schema)}.days IN ACCESS EXCLUSIVE MODE`);
      const started = Date.now();
      await expect(store.reader.dates()).rejects.toThrow(/statement timeout/);
      expect(Date.now() - started).toBeLessThan(10_000);
      await blocker.query('ROLLBACK');
      expect(await store.reader.dates()).toEqual([D1]);
    } finally {
      await blocker.end();
      await store.close();
    }
  });
});
