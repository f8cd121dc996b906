import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { lastTradingDays } from '../src/domain/calendar.js';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { buildApp } from '../src/http/app.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.js';
import { noticesSessionName } from '../src/store/postgres/postgres-notices.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../src/store/postgres/test-schemas.js';
import { expectProblem } from './api-harness.js';
import { waitFor } from './wait-for.js';

reportSkipped('readiness while the change notices are lost');
const schemas = testSchemas();

afterAll(async () => {
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

/** Each wait: the re-listen comes after 1 s, the rest within milliseconds on an idle machine. */
const BOUND = { timeoutMs: 5_000 };

/** An answer of the latest day: it changes when a later day's commit reaches the app. */
const LATEST_TRADES = '/api/trades?market=au_electricity';

/**
 * Ends the notices session of this schema's channel only (the name RemoteNotices gives its
 * connection): other sessions on the shared server are never touched. Returns how many
 * backends it ended.
 */
async function terminateListener(client: pg.Client, schema: string): Promise<number> {
  const result = await client.query<{ ended: boolean }>(
    `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
      WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [noticesSessionName(`gridquote ${schema}`)],
  );
  return result.rows.filter((row) => row.ended).length;
}

describe.skipIf(TEST_PG_URL === undefined)('readiness of a PostgreSQL replica and its LISTEN', () => {
  it('fails /readyz while the LISTEN connection is lost, and sees commits again once it is back', async () => {
    const schema = schemas.name();
    const url = TEST_PG_URL ?? '';
    // The ingest side (another store handle) and the replica, as `serve --db postgres://` opens it.
    const writer = await openPostgresStore(url, { schema, migrate: true });
    const replica = await openPostgresStore(url, { schema, access: 'read', purpose: 'for serving' });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const simulator = createSimulator({ seed: 7 });
    const [first, second] = lastTradingDays(2, '20250228');
    await ingestEvents(writer.writer, simulator.simulateDay(first ?? ''));
    const created = createApiKey({ level: 'historical', now: new Date('2025-03-01T00:00:00Z') });
    await writer.keys.insertKey(created.record);
    const unlimited = { perSecond: 0, perMinute: 0 };
    const app = buildApp({
      reader: replica.reader,
      keys: replica.keys,
      onAppend: (listener) => replica.onAppend(listener),
      changeNotices: () => replica.changeNotices(),
      clock: () => new Date('2025-03-03T01:00:00Z'),
      rateLimits: { historical: unlimited, end_of_day: unlimited },
    });
    const get = (path: string) =>
      app.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${created.key}` } });
    try {
      // A store no one listens to (a CLI command's) has nothing to lose.
      expect(writer.changeNotices()).toBe('idle');
      await app.ready();
      const ready = await waitFor(
        'the replica to listen',
        async () => {
          const response = await get('/readyz');
          return response.statusCode === 200 && response;
        },
        BOUND,
      );
      expect(ready.json()).toEqual({
        status: 'ready',
        latestDate: first,
        version: await writer.reader.version(),
        notices: 'listening',
      });
      const before = await get(LATEST_TRADES);
      expect(before.statusCode).toBe(200);

      expect(await terminateListener(admin, schema)).toBe(1);
      const lost = await waitFor(
        '/readyz to fail',
        async () => {
          const response = await get('/readyz');
          return response.statusCode === 503 && response;
        },
        BOUND,
      );
      const problem = expectProblem(lost, 503);
      expect(problem.type).toBe('tag:gridquote,2025:problems/store-unavailable');
      expect(problem.detail).toContain('change notices');
      expect(lost.headers['retry-after']).toBe('1');
      expect(replica.changeNotices()).toBe('lost');
      expect((await get('/healthz')).statusCode).toBe(200);

      // It listens again by itself (after 1 s) and is ready again.
      const again = await waitFor(
        '/readyz to pass again',
        async () => {
          const response = await get('/readyz');
          return response.statusCode === 200 && response;
        },
        BOUND,
      );
      expect(again.json()).toMatchObject({ notices: 'listening' });

      // A commit of the other handle after the re-listen reaches the replica's answers.
      await ingestEvents(writer.writer, simulator.simulateDay(second ?? ''));
      const version = await writer.reader.version();
      await waitFor(
        'the commit to reach the replica',
        async () => {
          const response = await get('/readyz');
          const body = response.json() as { latestDate?: string; version?: number };
          return body.latestDate === second && body.version === version;
        },
        BOUND,
      );
      const served = await waitFor(
        'the answer to change',
        async () => {
          const response = await get(LATEST_TRADES);
          return response.body !== before.body && response;
        },
        BOUND,
      );
      expect(served.statusCode).toBe(200);
      // the same as an app over the writer's store, which committed it, answers
      const fresh = buildApp({
        reader: writer.reader,
        keys: writer.keys,
        clock: () => new Date('2025-03-03T01:00:00Z'),
        rateLimits: { historical: unlimited, end_of_day: unlimited },
      });
      try {
        const expected = await fresh.inject({
          method: 'GET',
          url: LATEST_TRADES,
          headers: { authorization: `Bearer ${created.key}` },
        });
        expect(served.body).toBe(expected.body);
      } finally {
        await fresh.close();
      }
    } finally {
      await app.close();
      await admin.end();
      await replica.close();
      await writer.close();
    }
  }, 20_000);
});
