import { afterAll, describe, expect, it } from 'vitest';
import { lastTradingDays } from '../src/domain/calendar.js';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { buildApp } from '../src/http/app.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../src/store/postgres/test-schemas.js';
import { expectProblem, OPERATION_URLS } from './api-harness.js';
import { proxyInFrontOf } from './tcp-proxy.js';
import { waitFor } from './wait-for.js';

reportSkipped('serving while PostgreSQL goes away');
const schemas = testSchemas();

afterAll(async () => {
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

/**
 * Asked before the cut, so that its answer is cached. OPERATION_URLS (one request of each
 * operation the app registers) are first asked after it: no cached answers.
 */
const CACHED = '/api/epi?date=20250226';

describe.skipIf(TEST_PG_URL === undefined)('serving from PostgreSQL while the server goes away', () => {
  it('answers 503 with Retry-After and fails /readyz, cached answers too once their key is due a recheck, then serves again by itself', async () => {
    const { proxy, url: viaProxy } = await proxyInFrontOf(TEST_PG_URL ?? 'postgres://localhost', 5432);
    const store = await openPostgresStore(viaProxy, {
      schema: schemas.name(),
      migrate: true,
      connectTimeoutMs: 1000,
    });
    const simulator = createSimulator({ seed: 5 });
    for (const date of lastTradingDays(3, '20250228')) {
      await ingestEvents(store.writer, simulator.simulateDay(date));
    }
    const created = createApiKey({ level: 'historical', now: new Date('2025-03-01T00:00:00Z') });
    await store.keys.insertKey(created.record);
    const unlimited = { perSecond: 0, perMinute: 0 };
    const app = buildApp({
      reader: store.reader,
      keys: store.keys,
      onAppend: (listener) => store.onAppend(listener),
      clock: () => new Date('2025-03-07T01:00:00Z'),
      rateLimits: { historical: unlimited, end_of_day: unlimited },
    });
    const get = (url: string) =>
      app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${created.key}` } });
    try {
      expect((await get('/readyz')).statusCode).toBe(200);
      const cached = await get(CACHED);
      expect(cached.statusCode).toBe(200);
      await proxy.cut();
      expect((await get('/readyz')).statusCode).toBe(503);
      expect((await get('/healthz')).statusCode).toBe(200);
      for (const url of OPERATION_URLS) {
        const response = await get(url);
        expectProblem(response, 503);
        expect(response.headers['retry-after'], url).toMatch(/^\d+$/);
      }
      // A cached answer needs its key too, read again from the store a second after it was last
      // read (postgres-keys.ts, recheckMs: a key revoked by another process stops working).
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expectProblem(await get(CACHED), 503);
      await proxy.restore();
      await waitFor('/readyz to recover', async () => (await get('/readyz')).statusCode === 200, {
        intervalMs: 50,
      });
      for (const url of OPERATION_URLS) expect((await get(url)).statusCode, url).toBe(200);
      const again = await get(CACHED);
      expect(again.statusCode).toBe(200);
      expect(again.body).toBe(cached.body);
    } finally {
      await app.close();
      await store.close();
      await proxy.close();
    }
  });
});
