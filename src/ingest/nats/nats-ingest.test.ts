import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnCli } from '../../../test/cli-process.js';
import { ackFloor, consumerDrained, deleteConsumer } from '../../../test/jetstream-consumer.js';
import { startTcpProxy } from '../../../test/tcp-proxy.js';
import { waitFor } from '../../../test/wait-for.js';
import { testNatsUrl } from '../../config.js';
import type { FeedEvent } from '../../feed/events.js';
import { publishFeed } from '../../feed/nats/publish-feed.js';
import { formatFeedEvent } from '../../feed/ndjson.js';
import { createSimulator } from '../../feed/simulator/simulator.js';
import { validateFeedEvent } from '../../feed/validate.js';
import { openStore } from '../../store/open-store.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../../store/postgres/test-schemas.js';
import { openSqliteStore } from '../../store/sqlite/open-sqlite-store.js';
import type { MarketStore, MarketWriter } from '../../store/store.js';
import { ingestEvents } from '../ingest-events.js';
import { type IngestTotals, type NatsIngestOptions, runNatsIngest } from './nats-ingest.js';

const NATS_URL = testNatsUrl();
if (!NATS_URL) console.log('nats-ingest.test.ts: skipped, GRIDQUOTE_TEST_NATS_URL is not set');
reportSkipped('nats-ingest.test.ts, its PostgreSQL cases');

const DATE = '20260302';
const SEED = 7;

/** One simulated trading day, canonical and validated, and its export when ingested directly. */
const DAY: readonly FeedEvent[] = createSimulator({ seed: SEED }).simulateDay(DATE);
const publishable = () =>
  DAY.map((event) => {
    const result = validateFeedEvent(event);
    if (!result.ok) throw new Error(result.reason);
    return result;
  });

async function exportOf(store: MarketStore): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of store.events.lines()) lines.push(line);
  return lines;
}

/** Waits for a condition (test/wait-for.ts), with this file's argument order. */
const until = (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) =>
  waitFor(what, check, { timeoutMs, intervalMs: 25 });

describe.skipIf(!NATS_URL)('the feed through NATS JetStream into a store', () => {
  const url = NATS_URL ?? '';
  // Made in beforeAll: a skipped suite's body still runs, but its afterAll does not.
  let dir: string;
  const streams: string[] = [];
  let nc: NatsConnection;
  let clean: string[];
  const schemas = testSchemas();

  const newStream = () => {
    const name = `gqtest_${randomBytes(6).toString('hex')}`;
    streams.push(name);
    return name;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gq-nats-'));
    nc = await connect({ servers: url });
    const direct = openSqliteStore(':memory:');
    await ingestEvents(direct.writer, [...DAY]);
    clean = await exportOf(direct);
    await direct.close();
  });

  afterAll(async () => {
    await schemas.dropAll();
    const jsm = await jetstreamManager(nc);
    for (const stream of streams) await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const drained = async (stream: string, durable: string) =>
    consumerDrained(await jetstreamManager(nc), stream, durable);

  /** Runs the worker in process until its durable has consumed the whole stream. */
  async function ingestAll(
    store: MarketStore,
    stream: string,
    extra: Partial<NatsIngestOptions> = {},
  ): Promise<{ totals: IngestTotals; log: string[] }> {
    const log: string[] = [];
    const controller = new AbortController();
    const durable = extra.durable ?? 'worker';
    const run = runNatsIngest(store.writer, {
      url,
      stream,
      durable,
      log: (line) => log.push(line),
      signal: controller.signal,
      ...extra,
    });
    let failed: unknown;
    run.catch((error: unknown) => {
      failed = error;
    });
    await until(
      async () => failed !== undefined || (await drained(stream, durable)),
      'the stream to be consumed',
    );
    controller.abort();
    return { totals: await run, log };
  }

  it('publishes a simulated day; the store built from the stream exports what a direct ingest does', async () => {
    const stream = newStream();
    const result = await publishFeed({ url, stream }, publishable());
    expect(result).toEqual({ published: DAY.length, duplicates: 0 });

    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(stream);
    expect(info.state.messages).toBe(DAY.length);
    const subjects = info.config.subjects ?? [];
    expect(subjects).toEqual([`${stream}.>`]);
    const first = await jsm.streams.getMessage(stream, { seq: 1 });
    expect(first?.subject).toMatch(new RegExp(`^${stream}\\.(events\\.[a-z_]+|index)$`));
    expect(first?.header.get('Nats-Msg-Id')).toBe(`${DAY[0]?.date}-${DAY[0]?.seq}`);

    const store = openSqliteStore(join(dir, 'from-stream.db'));
    try {
      const { totals } = await ingestAll(store, stream, { batchSize: 500 });
      expect(totals).toEqual({ added: DAY.length, skipped: 0, refused: 0 });
      expect(await exportOf(store)).toEqual(clean);

      // Published again: JetStream's duplicate window drops every event, the stream does not grow.
      const again = await publishFeed({ url, stream }, publishable());
      expect(again).toEqual({ published: 0, duplicates: DAY.length });
      expect((await jsm.streams.info(stream)).state.messages).toBe(DAY.length);

      // Replayed from the start by a new durable: the store's idempotent append adds nothing.
      const replay = await ingestAll(store, stream, { durable: 'replayer' });
      expect(replay.totals).toEqual({ added: 0, skipped: DAY.length, refused: 0 });
      expect(await exportOf(store)).toEqual(clean);
    } finally {
      await store.close();
    }
  });

  it.skipIf(TEST_PG_URL === undefined)(
    'ingests from the stream into a PostgreSQL store: the export equals a direct ingest',
    async () => {
      const stream = newStream();
      await publishFeed({ url, stream }, publishable());
      const store = await schemas.open();
      try {
        const { totals } = await ingestAll(store, stream);
        expect(totals).toEqual({ added: DAY.length, skipped: 0, refused: 0 });
        expect(await exportOf(store)).toEqual(clean);
        const replay = await ingestAll(store, stream, { durable: 'replayer' });
        expect(replay.totals).toEqual({ added: 0, skipped: DAY.length, refused: 0 });
      } finally {
        await store.close();
      }
    },
  );

  it('stores each event once when the stream holds it twice (published without ids), even within one batch', async () => {
    const stream = newStream();
    await publishFeed({ url, stream }, publishable());
    const js = jetstream(nc);
    // The second copies bypass deduplication: no message id.
    for (const event of DAY.slice(0, 300))
      await js.publish(`${stream}.events.au_electricity`, formatFeedEvent(event));
    const store = openSqliteStore(':memory:');
    try {
      const { totals } = await ingestAll(store, stream, { batchSize: 20_000, batchWaitMs: 200 });
      expect(totals.added + totals.skipped).toBe(DAY.length + 300);
      expect(totals.added).toBe(DAY.length);
      expect(await exportOf(store)).toEqual(clean);
    } finally {
      await store.close();
    }
  });

  it('creates its durable again when it is deleted while it runs, and goes on storing', async () => {
    const stream = newStream();
    const events = publishable();
    const half = Math.floor(events.length / 2);
    await publishFeed({ url, stream }, events.slice(0, half));
    const store = openSqliteStore(':memory:');
    const log: string[] = [];
    const controller = new AbortController();
    const run = runNatsIngest(store.writer, {
      url,
      stream,
      durable: 'worker',
      log: (line) => log.push(line),
      signal: controller.signal,
    });
    try {
      await until(async () => (await exportOf(store)).length === half, 'the first half stored');
      const jsm = await jetstreamManager(nc);
      await deleteConsumer(jsm, stream, 'worker');
      await publishFeed({ url, stream }, events.slice(half));
      await until(async () => (await exportOf(store)).length === DAY.length, 'the second half stored');
      expect(await exportOf(store)).toEqual(clean);
      expect(log.filter((line) => line.startsWith('durable consumer worker lost'))).toHaveLength(1);
    } finally {
      controller.abort();
      await run;
      await store.close();
    }
  });

  it('terminates an invalid message and one contradicting a stored event, each with one log line, and stores the rest', async () => {
    const stream = newStream();
    const js = jetstream(nc);
    await publishFeed({ url, stream }, publishable().slice(0, 100));
    await js.publish(`${stream}.events.au_gas`, '{"type":"book","date":"20260302"');
    // A message whose text's bytes are not UTF-8: never stored with U+FFFD in their place.
    const board = DAY.find((event) => event.type === 'message');
    if (board?.type !== 'message') throw new Error('no message event in the day');
    const notUtf8 = Buffer.from(formatFeedEvent({ ...board, seq: 999_999, text: 'price \u00ff' }), 'latin1');
    await js.publish(`${stream}.events.au_gas`, notUtf8);
    const original = DAY.slice(0, 100).find((event) => event.type === 'trade');
    if (original?.type !== 'trade') throw new Error('no trade among the first 100 events');
    const contradicting = formatFeedEvent({ ...original, volume: original.volume + 1 });
    await js.publish(`${stream}.events.au_gas`, contradicting);
    await publishFeed({ url, stream }, publishable().slice(100));

    const store = openSqliteStore(':memory:');
    try {
      const { totals, log } = await ingestAll(store, stream, { batchWaitMs: 100 });
      expect(totals).toEqual({ added: DAY.length, skipped: 0, refused: 3 });
      const refusals = log.filter((line) => line.startsWith('refused stream message'));
      expect(refusals).toHaveLength(3);
      expect(refusals[0]).toMatch(/invalid JSON/);
      expect(refusals[1]).toMatch(/the message is not valid UTF-8/);
      expect(refusals[2]).toMatch(new RegExp(`conflicts with stored event ${original.date}/${original.seq}`));
      expect(await exportOf(store)).toEqual(clean);
      // Terminated, not redelivered: the durable is done with them.
      expect(await drained(stream, 'worker')).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('acknowledges nothing of a batch the store fails to take, and stores it when the store is back', async () => {
    const stream = newStream();
    await publishFeed({ url, stream }, publishable());
    const store = openSqliteStore(':memory:');
    try {
      let failures = 3;
      const writer: MarketWriter = {
        append: (events) => {
          if (failures > 0) {
            failures -= 1;
            return Promise.reject(new Error('disk I/O error'));
          }
          return store.writer.append(events);
        },
        begin: () => store.writer.begin(),
      };
      const log: string[] = [];
      const controller = new AbortController();
      const run = runNatsIngest(writer, {
        url,
        stream,
        durable: 'worker',
        log: (line) => log.push(line),
        signal: controller.signal,
      });
      await until(() => drained(stream, 'worker'), 'the stream to be consumed');
      controller.abort();
      expect((await run).added).toBe(DAY.length);
      expect(await exportOf(store)).toEqual(clean);
      expect(log.filter((line) => line.includes('could not store a batch'))).toHaveLength(1);
      expect(log.filter((line) => line.includes('disk I/O error'))).toHaveLength(1);
      expect(log.filter((line) => line.includes('store reachable again'))).toHaveLength(1);
    } finally {
      await store.close();
    }
  });

  it('loses and doubles nothing when the connection to NATS is cut while publishing and while ingesting', async () => {
    const stream = newStream();
    const server = new globalThis.URL(url.replace(/^nats:/, 'http:'));
    const proxy = await startTcpProxy({ host: server.hostname, port: Number(server.port || 4222) });
    const viaProxy = `nats://127.0.0.1:${proxy.port}`;
    try {
      // Cut after a third of the day is acked; restored once the publisher has seen a publish fail.
      const publishLog: string[] = [];
      let cut: Promise<void> | undefined;
      let restored: Promise<void> | undefined;
      const result = await publishFeed(
        {
          url: viaProxy,
          stream,
          log: (line) => {
            publishLog.push(line);
            if (cut !== undefined && restored === undefined && /failed .*retrying/.test(line)) {
              restored = cut.then(() => proxy.restore());
            }
          },
          onPublished: (count) => {
            if (count >= DAY.length / 3 && cut === undefined) cut = proxy.cut();
          },
        },
        publishable(),
      );
      await restored;
      expect(publishLog.some((line) => /failed .*retrying/.test(line))).toBe(true);
      expect(publishLog).toContain('NATS connection lost; reconnecting');
      expect(result.published + result.duplicates).toBe(DAY.length);
      const jsm = await jetstreamManager(nc);
      expect((await jsm.streams.info(stream)).state.messages).toBe(DAY.length);

      // The worker: cut after half the day is stored, restored once it noticed.
      const store = openSqliteStore(':memory:');
      try {
        const log: string[] = [];
        const controller = new AbortController();
        let stored = 0;
        let workerCut: Promise<void> | undefined;
        let workerRestored: Promise<void> | undefined;
        const run = runNatsIngest(store.writer, {
          url: viaProxy,
          stream,
          durable: 'worker',
          batchSize: 256,
          ackWaitMs: 2000,
          log: (line) => {
            log.push(line);
            if (
              workerCut !== undefined &&
              workerRestored === undefined &&
              line.startsWith('NATS connection lost')
            ) {
              workerRestored = workerCut.then(() => proxy.restore());
            }
          },
          onBatch: (batch) => {
            stored += batch.messages;
            if (stored >= DAY.length / 2 && workerCut === undefined) workerCut = proxy.cut();
          },
          signal: controller.signal,
        });
        await until(
          async () => workerRestored !== undefined && (await drained(stream, 'worker')),
          'the stream to be consumed',
          90_000,
        );
        controller.abort();
        const totals = await run;
        expect(log).toContain('NATS connection back');
        expect(totals.added).toBe(DAY.length);
        expect(await exportOf(store)).toEqual(clean);
      } finally {
        await store.close();
      }
    } finally {
      await proxy.close();
    }
  }, 180_000);

  const storeKinds = TEST_PG_URL === undefined ? (['sqlite'] as const) : (['sqlite', 'postgres'] as const);
  it.each(storeKinds)(
    'survives kill -9 of the worker process at three random points: the export equals a clean ingest (%s)',
    async (kind) => {
      const stream = newStream();
      // The day goes out in a part per worker: however quickly a worker stores, each kill falls
      // within what has been published, and the last worker always has events left to store.
      const feed = publishable();
      const share = Math.floor(feed.length / 4);
      const db = kind === 'sqlite' ? join(dir, 'killed.db') : await schemas.url();
      const args = [
        ...['ingest', '--db', db, '--from', url, '--stream', stream, '--durable', 'worker'],
        // Small batches: many commits to land between; a short ack wait: quick redelivery after a kill.
        ...['--batch-size', '64', '--ack-wait-ms', '1000'],
      ];
      const jsm = await jetstreamManager(nc);
      const acked = () => ackFloor(jsm, stream, 'worker');

      let killedAt = 0;
      for (let kill = 1; kill <= 3; kill += 1) {
        await publishFeed({ url, stream }, feed.slice((kill - 1) * share, kill * share));
        // A random point in what is published, past what the previous run had acked.
        const target = killedAt + 1 + Math.floor(Math.random() * (kill * share - killedAt));
        const worker = spawnCli(args);
        try {
          await until(async () => (await acked()) >= target, `the worker to ack message ${target}`);
        } catch (error) {
          await worker.kill();
          throw new Error(`${String(error)}; worker said: ${worker.stderr()}`);
        }
        await worker.kill();
        killedAt = await acked();
      }
      expect(killedAt).toBeLessThan(DAY.length);

      await publishFeed({ url, stream }, feed.slice(3 * share));
      const last = spawnCli(args);
      await until(() => drained(stream, 'worker'), 'the restarted worker to finish the day', 90_000);
      await last.stop();
      expect(last.stderr()).toMatch(/stopped: \d+ events added/);

      const store = await openStore(db, { access: 'read' });
      try {
        const lines = await exportOf(store);
        expect(new Set(lines).size).toBe(lines.length);
        expect(lines).toEqual(clean);
      } finally {
        await store.close();
      }
    },
    180_000,
  );
});
