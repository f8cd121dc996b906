import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testNatsUrl } from '../src/config.js';
import { publishFeed } from '../src/feed/nats/publish-feed.js';
import { Rng } from '../src/feed/simulator/prng.js';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { validateFeedEvent } from '../src/feed/validate.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openStore } from '../src/store/open-store.js';
import { TEST_PG_URL, testSchemas } from '../src/store/postgres/test-schemas.js';
import { openSqliteStore } from '../src/store/sqlite/open-sqlite-store.js';
import { collect } from '../src/store/store-contract.js';
import { PROCESS_TEST_TIMEOUT_MS, spawnCli } from './cli-process.js';
import { ackFloor, consumerDrained } from './jetstream-consumer.js';
import { waitFor } from './wait-for.js';

/**
 * Issue 11, proof under faults: the ingest worker (`gridquote ingest --from nats://`, a real
 * process) is killed with SIGKILL at ten random points of a day's feed and started again each
 * time; the store it leaves exports exactly what a clean ingest of the feed does. The points
 * come from a seeded generator whose seed is printed (GRIDQUOTE_TEST_SEED replays a run). The
 * store is PostgreSQL (a schema of its own) when GRIDQUOTE_TEST_PG_URL is set, as in the
 * deployment; a SQLite file otherwise.
 */

const NATS_URL = testNatsUrl();
if (!NATS_URL) console.log('fault-ingest-kill.test.ts: skipped, GRIDQUOTE_TEST_NATS_URL is not set');

const KILLS = 10;
/** The first part of a simulated day: enough batches of 64 for ten kills, small enough for the time bound. */
const EVENTS = 3000;
const SEED = Number(process.env.GRIDQUOTE_TEST_SEED ?? randomBytes(4).readUInt32BE());

describe.skipIf(!NATS_URL)('kill -9 of the ingest worker, ten times', () => {
  const url = NATS_URL ?? '';
  const stream = `gqtest_kill_${randomBytes(6).toString('hex')}`;
  // Made in beforeAll: a skipped suite's body still runs, but its afterAll does not.
  let dir = '';
  const schemas = testSchemas();
  let nc: NatsConnection | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gq-kill-'));
  });
  afterAll(async () => {
    if (nc !== undefined) {
      const jsm = await jetstreamManager(nc);
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    }
    if (TEST_PG_URL !== undefined) await schemas.dropAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'leaves a store whose export equals a clean ingest of the feed: nothing missing, nothing doubled',
    async () => {
      const kind = TEST_PG_URL === undefined ? 'SQLite' : 'PostgreSQL';
      console.log(
        `fault-ingest-kill.test.ts: seed ${SEED} (GRIDQUOTE_TEST_SEED=${SEED} replays it), store ${kind}`,
      );
      const rng = new Rng(SEED);
      const day = createSimulator({ seed: 11 }).simulateDay('20260302').slice(0, EVENTS);
      const clean = openSqliteStore(':memory:');
      await ingestEvents(clean.writer, day);
      const expected = await collect(clean.events.lines());
      await clean.close();

      nc = await connect({ servers: url });
      const jsm = await jetstreamManager(nc);
      const feed = day.map((event) => {
        const result = validateFeedEvent(event);
        if (!result.ok) throw new Error(result.reason);
        return result;
      });
      // The day goes out in a part per worker: however quickly a worker stores, each kill falls
      // within what has been published, and the last worker always has events left to store.
      const share = Math.floor(EVENTS / (KILLS + 1));
      let published = 0;

      const db = TEST_PG_URL === undefined ? join(dir, 'killed.db') : await schemas.url();
      const args = [
        ...['ingest', '--db', db, '--from', url, '--stream', stream, '--durable', 'worker'],
        // Small batches: many commits for a kill to fall between, or in; a short ack wait: the
        // restarted worker gets what the killed one held within a second.
        ...['--batch-size', '64', '--ack-wait-ms', '1000'],
      ];
      const acked = () => ackFloor(jsm, stream, 'worker');
      const points: string[] = [];
      let floor = 0;
      for (let kill = 1; kill <= KILLS; kill += 1) {
        // Past what is acked (the store has at least that), within what is published, then a
        // random moment more: mid-batch, between a commit and its acks, while redelivering.
        await publishFeed({ url, stream }, feed.slice(published, kill * share));
        published = kill * share;
        const target = floor + rng.int(1, published - floor);
        const worker = spawnCli(args);
        try {
          await waitFor(`worker ${kill} to ack stream message ${target}`, async () => {
            if (!worker.running()) throw new Error(`the worker exited: ${worker.stderr()}`);
            return (await acked()) >= target;
          });
          await new Promise((resolve) => setTimeout(resolve, rng.int(0, 40)));
          expect(worker.running(), worker.stderr()).toBe(true);
        } finally {
          await worker.kill();
        }
        floor = await acked();
        points.push(`${target}->${floor}`);
      }
      console.log(`fault-ingest-kill.test.ts: killed at (target->acked) ${points.join(' ')}`);
      expect(floor).toBeLessThan(EVENTS);

      await publishFeed({ url, stream }, feed.slice(published));
      const last = spawnCli(args);
      try {
        await waitFor('the last worker to finish the day', () => consumerDrained(jsm, stream, 'worker'), {
          timeoutMs: 30_000,
          intervalMs: 25,
        });
      } finally {
        expect(await last.stop(), last.stderr()).toBe(0);
      }

      const store = await openStore(db, { access: 'read' });
      try {
        const lines = await collect(store.events.lines());
        expect(lines.length).toBe(EVENTS);
        expect(new Set(lines).size).toBe(lines.length);
        expect(lines).toEqual(expected);
      } finally {
        await store.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
