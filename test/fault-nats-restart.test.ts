import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openStore } from '../src/store/open-store.js';
import { openSqliteStore } from '../src/store/sqlite/open-sqlite-store.js';
import { collect } from '../src/store/store-contract.js';
import { PROCESS_TEST_TIMEOUT_MS, spawnCli } from './cli-process.js';
import { consumerDrained } from './jetstream-consumer.js';
import { hasNatsServer, NATS_SERVER, type PrivateNats, startPrivateNats } from './private-nats.js';
import { waitFor } from './wait-for.js';

/**
 * Issue 11, proof under faults: NATS killed (SIGKILL) and restarted while `gridquote feed
 * publish --nats` publishes a day and `gridquote ingest --from nats://` consumes it, both real
 * processes. The server is a private one (the shared server on 4222 is never restarted),
 * restarted on the same port and JetStream store. Once it is back nothing is lost or doubled:
 * the stream holds each event once, and the store exports what a clean ingest of the day does.
 */

if (!hasNatsServer()) console.log(`fault-nats-restart.test.ts: skipped, ${NATS_SERVER} is not installed`);

const DATE = '20260302';
const SEED = 3;
/** Exchange seconds per real second: the day's 6.5 hours take about 5 s, so the restart falls mid-publish. */
const SPEED = 5000;

describe.skipIf(!hasNatsServer())('NATS restarted while the feed is published and ingested', () => {
  // Made in beforeAll: a skipped suite's body still runs, but its afterAll does not.
  let dir = '';
  let nats: PrivateNats | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gq-nats-restart-'));
  });
  afterAll(async () => {
    await nats?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'loses and doubles nothing once the server is back',
    async () => {
      const day = createSimulator({ seed: SEED }).simulateDay(DATE);
      const clean = openSqliteStore(':memory:');
      await ingestEvents(clean.writer, day);
      const expected = await collect(clean.events.lines());
      await clean.close();

      nats = await startPrivateNats();
      const stream = 'gqtest_restart';
      const db = join(dir, 'store.db');
      const worker = spawnCli([
        ...['ingest', '--db', db, '--from', nats.url, '--stream', stream, '--durable', 'worker'],
        ...['--batch-size', '256', '--ack-wait-ms', '2000'],
      ]);
      const publisher = spawnCli([
        ...['feed', 'publish', '--nats', nats.url, '--stream', stream, '--simulate'],
        ...['--from', DATE, '--days', '1', '--seed', String(SEED), '--speed', String(SPEED)],
      ]);
      // The test's own view of the stream, reconnecting through the restart like the commands.
      const nc = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
      try {
        const jsm = await jetstreamManager(nc);
        const stored = async () =>
          (await jsm.streams.info(stream).catch(() => undefined))?.state.messages ?? 0;
        await waitFor('a quarter of the day in the stream', async () => (await stored()) >= day.length / 4, {
          timeoutMs: 30_000,
        });
        await nats.kill();
        const atKill = publisher.running();
        await waitFor('both commands to notice', () =>
          [publisher, worker].every((process) => process.stderr().includes('NATS connection lost')),
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
        await nats.start();

        expect(await publisher.exited, publisher.stderr()).toBe(0);
        expect(atKill, 'the publisher was still publishing when NATS was killed').toBe(true);
        expect(publisher.stderr()).toContain('NATS connection back');
        // One line per outage, not one per publish that was in flight.
        expect(publisher.stderr().match(/failed .*retrying/g)?.length ?? 0).toBeLessThan(4);
        expect(publisher.stderr()).toMatch(new RegExp(`published ${day.length} simulated events`));
        await waitFor('the worker to consume the day', () => consumerDrained(jsm, stream, 'worker'), {
          timeoutMs: 30_000,
          intervalMs: 25,
        });
        expect(worker.stderr()).toContain('NATS connection back');
        // JetStream deduplicated the retried publishes by their ids, also across its restart.
        expect(await stored()).toBe(day.length);
      } finally {
        await nc.close();
        await publisher.kill();
        expect(await worker.stop(), worker.stderr()).toBe(0);
      }

      const store = await openStore(db, { access: 'read' });
      try {
        expect(await collect(store.events.lines())).toEqual(expected);
      } finally {
        await store.close();
      }
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
