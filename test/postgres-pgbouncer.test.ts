import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeedEvent } from '../src/feed/events.js';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.js';
import type { MarketStore } from '../src/store/store.js';
import { PROCESS_TEST_TIMEOUT_MS, type ServeProcess, startServe } from './cli-process.js';
import { everyOperation, FORMATS } from './every-operation.js';
import { type PrivatePgBouncer, startPrivatePgBouncer, whyNoPgBouncer } from './private-pgbouncer.js';
import { type PrivatePostgres, startPrivatePostgres, whyNoPrivatePostgres } from './private-postgres.js';
import { expectSameAnswers, fetchAnswer, referenceServer } from './replica-answers.js';
import { waitFor } from './wait-for.js';

/**
 * gridquote behind a connection pooler pooling by session (docs/operations.md, "Sizing the
 * pool"): PgBouncer refuses connection parameters it does not know, so the store's timeouts are
 * set with SET on each new connection. Through it, a writer ingests, `serve` (two workers)
 * answers every operation as a SQLite store of the same events does, and a commit made through
 * it reaches the cached answers (LISTEN holds on a session-pooled connection).
 */

const NO_SERVER = whyNoPrivatePostgres() ?? whyNoPgBouncer();
if (NO_SERVER !== undefined) console.log(`postgres-pgbouncer.test.ts: skipped, ${NO_SERVER}`);

const DATES = ['20260302', '20260303'];
const LATER = '20260304';

describe.skipIf(NO_SERVER !== undefined)('PostgreSQL through PgBouncer, pooling by session', () => {
  const key = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
  const simulator = createSimulator({ seed: 11 });
  const events: FeedEvent[] = DATES.flatMap((date) => simulator.simulateDay(date));
  let server: PrivatePostgres | undefined;
  let bouncer: PrivatePgBouncer | undefined;
  let store: MarketStore | undefined;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    server = await startPrivatePostgres();
    bouncer = await startPrivatePgBouncer(Number(new URL(server.url).port));
    const url = bouncer.url('postgres');
    store = await openPostgresStore(url, { migrate: true, connectTimeoutMs: 2000 });
    await ingestEvents(store.writer, events);
    await store.keys.insertKey(key.record);
    serve = await startServe(['--db', url, '--workers', '2']);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await serve?.kill();
    await store?.close();
    await bouncer?.close();
    await server?.close();
  });

  it(
    'ingests, answers every operation as SQLite does, and sees a later commit',
    async () => {
      if (store === undefined || serve === undefined) throw new Error('not set up');
      const base = serve.base;
      const ready = await waitFor('serve to be ready', async () => {
        const response = await fetch(`${base}/readyz`);
        return response.status === 200 && ((await response.json()) as { notices: string });
      });
      expect(ready.notices).toBe('listening');
      const reference = await referenceServer(events, [key.record]);
      try {
        const requests = (await everyOperation(store.reader, DATES))
          .filter((_, index) => index % 4 === 0)
          .flatMap((url) => FORMATS.map((format) => `${url}${format}`));
        const statuses = await expectSameAnswers([base], reference, requests, key.key);
        expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(requests.length / 2);
      } finally {
        await reference.close();
      }

      const latest = '/api/trades?market=au_electricity';
      expect((await fetchAnswer(base, latest, key.key)).status).toBe(200);
      const later = simulator.simulateDay(LATER);
      await ingestEvents(store.writer, later);
      const laterReference = await referenceServer([...events, ...later], [key.record]);
      try {
        const expected = await laterReference.answer(latest, key.key);
        await waitFor('the later commit to reach the cached answer', async () => {
          const answer = await fetchAnswer(base, latest, key.key);
          return answer.body === expected.body;
        });
      } finally {
        await laterReference.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
