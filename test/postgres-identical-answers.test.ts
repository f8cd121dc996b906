import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { buildApp } from '../src/http/app.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { ingestLines } from '../src/ingest/ingest-lines.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../src/store/postgres/test-schemas.js';
import type { MarketStore } from '../src/store/store.js';
import { collect } from '../src/store/store-contract.js';
import { DEFAULT_NOW } from './api-harness.js';
import { everyOperation, FORMATS } from './every-operation.js';
import { seededStore } from './fixtures.js';

reportSkipped('identical answers from SQLite and PostgreSQL');
const schemas = testSchemas();
const UNLIMITED = { perSecond: 0, perMinute: 0 };

interface Served {
  readonly store: MarketStore;
  readonly app: FastifyInstance;
}

describe.skipIf(TEST_PG_URL === undefined)('SQLite and PostgreSQL serve identical bytes', () => {
  const key = createApiKey({ level: 'historical', name: 'both', now: DEFAULT_NOW });
  let sqlite: Served;
  let postgres: Served;
  let dates: readonly string[];

  const serve = async (store: MarketStore): Promise<Served> => {
    await store.keys.insertKey(key.record);
    const app = buildApp({
      reader: store.reader,
      keys: store.keys,
      onAppend: (listener) => store.onAppend(listener),
      clock: () => DEFAULT_NOW,
      rateLimits: { historical: UNLIMITED, end_of_day: UNLIMITED },
    });
    await app.ready();
    return { store, app };
  };

  beforeAll(async () => {
    // the same seeded history in both stores, through the same ingest path
    const seeded = seededStore({ days: 3, seed: 7 });
    dates = seeded.dates;
    const simulator = createSimulator({ seed: 7 });
    const pg = await schemas.open();
    for (const date of dates) await ingestEvents(pg.writer, simulator.simulateDay(date));
    sqlite = await serve(seeded.store);
    postgres = await serve(pg);
  });

  afterAll(async () => {
    for (const served of [sqlite, postgres]) {
      await served?.app.close();
      await served?.store.close();
    }
    await schemas.dropAll();
  });

  it('answers every operation and code form with the same status, type and bytes, in JSON and CSV', async () => {
    const list = await everyOperation(sqlite.store.reader, dates);
    expect(list.length).toBeGreaterThan(300);
    let answered = 0;
    for (const url of list) {
      for (const format of FORMATS) {
        const request = {
          method: 'GET' as const,
          url: `${url}${format}`,
          headers: { authorization: `Bearer ${key.key}` },
        };
        const [a, b] = await Promise.all([sqlite.app.inject(request), postgres.app.inject(request)]);
        expect(b.statusCode, request.url).toBe(a.statusCode);
        expect(b.headers['content-type'], request.url).toBe(a.headers['content-type']);
        expect(b.headers.etag, request.url).toBe(a.headers.etag);
        expect(b.body, request.url).toBe(a.body);
        if (a.statusCode === 200) answered += 1;
      }
    }
    // most requests find data: the comparison is not one of empty answers
    expect(answered).toBeGreaterThan(list.length);
  });

  it('exports the same lines, and SQLite export -> PostgreSQL ingest -> export is identical', async () => {
    const lines = await collect(sqlite.store.events.lines());
    expect(await collect(postgres.store.events.lines())).toEqual(lines);
    for (const date of dates) {
      expect(await collect(postgres.store.events.lines({ date }))).toEqual(
        await collect(sqlite.store.events.lines({ date })),
      );
    }
    const copy = await schemas.open();
    try {
      async function* groups() {
        for (let start = 0; start < lines.length; start += 1000) yield lines.slice(start, start + 1000);
      }
      await ingestLines(copy.writer, groups(), { chunkSize: 4096 });
      expect(await collect(copy.events.lines())).toEqual(lines);
      expect(await copy.reader.version()).toBe(lines.length);
    } finally {
      await copy.close();
    }
  });
});
