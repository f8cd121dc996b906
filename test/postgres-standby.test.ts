import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerKeys } from '../src/cli/keys.js';
import { registerMigrate } from '../src/cli/migrate.js';
import type { FeedEvent } from '../src/feed/events.js';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openPostgresStore } from '../src/store/postgres/open-postgres-store.js';
import type { MarketStore } from '../src/store/store.js';
import { expectOneLineError, runGridquote } from './cli-in-process.js';
import { PROCESS_TEST_TIMEOUT_MS, type ServeProcess, startServe } from './cli-process.js';
import {
  type PrivatePostgres,
  type PrivateStandby,
  startPrivatePostgres,
  whyNoPrivatePostgres,
} from './private-postgres.js';
import { expectSameAnswers, fetchAnswer, referenceServer } from './replica-answers.js';
import { waitFor } from './wait-for.js';

/**
 * `gridquote serve` reading a streaming replica (docs/operations.md, "Backups and read
 * replicas"). A hot standby refuses LISTEN and is sent no NOTIFY, so the server polls its
 * version instead: /readyz passes and says `polling`; the answers it has cached follow the
 * primary's commits, equal to a SQLite store of the same events; a key revoked on the primary
 * stops working on it. Once the standby is promoted, the server LISTENs and a commit made on it
 * reaches the answers too. A private primary and its standby (pg_basebackup): the shared server
 * has no replication access.
 */

const NO_SERVER = whyNoPrivatePostgres();
if (NO_SERVER !== undefined) console.log(`postgres-standby.test.ts: skipped, ${NO_SERVER}`);

const [FIRST, SECOND, THIRD] = ['20260302', '20260303', '20260304'];

/** Answers of the latest day (cached once asked): each changes when a later day arrives. */
const LATEST = ['/api/epi', '/api/trades?market=au_electricity', '/api/ticker?futures=au_electricity'];

interface Readiness {
  readonly status: string;
  readonly latestDate: string;
  readonly version: number;
  readonly notices: string;
}

describe.skipIf(NO_SERVER !== undefined)('serving from a PostgreSQL streaming replica', () => {
  const key = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
  const simulator = createSimulator({ seed: 9 });
  const days = new Map<string, FeedEvent[]>();
  const day = (date: string) => {
    const events = days.get(date) ?? simulator.simulateDay(date);
    days.set(date, events);
    return events;
  };
  let primary: PrivatePostgres | undefined;
  let standby: PrivateStandby | undefined;
  let store: MarketStore | undefined;
  let serve: ServeProcess | undefined;

  beforeAll(async () => {
    primary = await startPrivatePostgres();
    store = await openPostgresStore(primary.url, { migrate: true, connectTimeoutMs: 1000 });
    await ingestEvents(store.writer, day(FIRST));
    await store.keys.insertKey(key.record);
    standby = await primary.startStandby();
    serve = await startServe(['--db', standby.url]);
  }, PROCESS_TEST_TIMEOUT_MS);

  afterAll(async () => {
    await serve?.kill();
    await store?.close();
    await standby?.close();
    await primary?.close();
  });

  /** gridquote_store_replication_lag_seconds, as the server's /metrics gives it. */
  const replicationLag = async (): Promise<number | undefined> => {
    const text = await (await fetch(`${serve?.base}/metrics`)).text();
    const value = /^gridquote_store_replication_lag_seconds (\S+)$/m.exec(text)?.[1];
    return value === undefined ? undefined : Number(value);
  };

  const readiness = async (): Promise<Readiness | undefined> => {
    const response = await fetch(`${serve?.base}/readyz`);
    return response.status === 200 ? ((await response.json()) as Readiness) : undefined;
  };

  /**
   * The served answers come to equal a SQLite store's of these days (status, type, ETag and
   * bytes): a commit reaches them at the server's next poll or notice, within a second here.
   */
  const expectAnswersOf = async (dates: readonly string[]) => {
    const reference = await referenceServer(
      dates.flatMap((date) => day(date)),
      [key.record],
    );
    try {
      for (const url of LATEST) {
        const expected = await reference.answer(url, key.key);
        await waitFor(`${url} of ${dates.at(-1)}`, async () => {
          const answer = await fetchAnswer(serve?.base ?? '', url, key.key);
          return answer.body === expected.body;
        });
      }
      const statuses = await expectSameAnswers([serve?.base ?? ''], reference, LATEST, key.key);
      expect(statuses).toEqual(LATEST.map(() => 200));
    } finally {
      await reference.close();
    }
  };

  it(
    'is ready polling the standby, follows the commits of the primary, and listens once promoted',
    async () => {
      if (primary === undefined || standby === undefined || store === undefined || serve === undefined)
        throw new Error('not set up');
      const ready = await waitFor('the server on the standby to be ready', readiness);
      expect(ready).toEqual({
        status: 'ready',
        latestDate: FIRST,
        version: await store.reader.version(),
        notices: 'polling',
      });
      await expectAnswersOf([FIRST]);

      // A command that writes, pointed at the standby, says where writes go.
      for (const command of [['keys', 'create', '--level', 'historical'], ['migrate']]) {
        const refused = await runGridquote([...command, '--db', standby.url], {
          commands: [registerKeys, registerMigrate],
        });
        expectOneLineError(
          refused,
          /is a standby \(a read replica\), which takes no writes: give this command the primary's URL/,
        );
      }

      // A day committed on the primary reaches the standby, and the cached answers follow it.
      await ingestEvents(store.writer, day(SECOND));
      const version = await store.reader.version();
      await waitFor('the standby server to see the second day', async () => {
        const now = await readiness();
        return now?.latestDate === SECOND && now.version === version;
      });
      await expectAnswersOf([FIRST, SECOND]);
      expect(await readiness()).toMatchObject({ notices: 'polling' });

      // A key created on the primary works on the standby's server; revoked there, it stops.
      const other = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
      await store.keys.insertKey(other.record);
      const status = async () => (await fetchAnswer(serve?.base ?? '', '/api/epi', other.key)).status;
      await waitFor('the new key to work on the standby', async () => (await status()) === 200);
      expect(await store.keys.revokeKey(other.record.id, new Date().toISOString())).toBe(true);
      await waitFor('the revoked key to be refused on the standby', async () => (await status()) === 401);

      // Replay paused on the standby: a commit on the primary is received there but not applied,
      // and the lag metric grows; once replay resumes it falls back to 0.
      expect(await replicationLag()).toBe(0);
      const standbyAdmin = new pg.Client({ connectionString: standby.url });
      await standbyAdmin.connect();
      try {
        await standbyAdmin.query('SELECT pg_wal_replay_pause()');
        const third = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 0 });
        await store.keys.insertKey(third.record);
        await waitFor('the lag to show', async () => ((await replicationLag()) ?? 0) >= 0.3);
        await standbyAdmin.query('SELECT pg_wal_replay_resume()');
        await waitFor('the lag to be gone', async () => (await replicationLag()) === 0);
      } finally {
        await standbyAdmin.end();
      }

      // Promoted, the standby takes LISTEN: a commit on it arrives as a notice.
      await store.close();
      store = undefined;
      await standby.promote();
      const listening = await waitFor('the server to listen on the promoted standby', async () => {
        const now = await readiness();
        return now?.notices === 'listening' && now;
      });
      expect(listening.latestDate).toBe(SECOND);
      expect(await replicationLag()).toBe(0);
      store = await openPostgresStore(standby.url, { connectTimeoutMs: 1000 });
      await ingestEvents(store.writer, day(THIRD));
      await expectAnswersOf([FIRST, SECOND, THIRD]);
      expect(serve.running()).toBe(true);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
