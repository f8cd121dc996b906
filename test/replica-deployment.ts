import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import { testNatsUrl, testRedisUrl } from '../src/config.js';
import type { FeedEvent } from '../src/feed/events.js';
import { publishFeed } from '../src/feed/nats/publish-feed.js';
import { validateFeedEvent } from '../src/feed/validate.js';
import type { NewKey } from '../src/http/api-keys.js';
import { openStore } from '../src/store/open-store.js';
import { TEST_PG_URL, testSchemas } from '../src/store/postgres/test-schemas.js';
import type { MarketStore } from '../src/store/store.js';
import { type ServeProcess, spawnCli, startServes } from './cli-process.js';
import { consumerDrained } from './jetstream-consumer.js';
import { waitFor } from './wait-for.js';

/**
 * The deployment of docs/operations.md on the test servers, each part isolated: the feed
 * published to a stream of its own on NATS JetStream, ingested by `gridquote ingest --from
 * nats://` (a real process) into a PostgreSQL schema of its own, served by two `gridquote
 * serve --db postgres://` processes sharing rate-limit counters in Redis under a key prefix
 * of their own (when GRIDQUOTE_TEST_REDIS_URL is set). close() stops it and removes all of it.
 */

export const NATS_URL = testNatsUrl();
export const REDIS_URL = testRedisUrl();

/** Why the deployment cannot be set up here (the variables missing), or undefined. */
export function whyNoDeployment(): string | undefined {
  const missing = [
    TEST_PG_URL === undefined ? 'GRIDQUOTE_TEST_PG_URL' : undefined,
    NATS_URL === undefined ? 'GRIDQUOTE_TEST_NATS_URL' : undefined,
  ].filter((name) => name !== undefined);
  return missing.length === 0 ? undefined : `${missing.join(' and ')} not set`;
}

export interface ReplicaDeployment {
  readonly replicas: readonly ServeProcess[];
  /** The store the worker wrote (keys go in here). */
  readonly store: MarketStore;
  readonly redis: boolean;
  close(): Promise<void>;
}

export async function startReplicaDeployment(
  events: readonly FeedEvent[],
  keys: readonly NewKey[],
): Promise<ReplicaDeployment> {
  const url = NATS_URL ?? '';
  const stream = `gqtest_replicas_${randomBytes(6).toString('hex')}`;
  const prefix = `gqtest-${randomBytes(6).toString('hex')}`;
  const schemas = testSchemas();
  const nc = await connect({ servers: url });
  const replicas: ServeProcess[] = [];
  let store: MarketStore | undefined;
  const close = async () => {
    for (const replica of replicas) await replica.kill();
    await store?.close();
    await schemas.dropAll();
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
    if (REDIS_URL !== undefined) {
      const admin = new Redis(REDIS_URL);
      const stale = await admin.keys(`${prefix}*`);
      if (stale.length > 0) await admin.del(...stale);
      admin.disconnect();
    }
  };
  try {
    await publishFeed(
      { url, stream },
      events.map((event) => {
        const result = validateFeedEvent(event);
        if (!result.ok) throw new Error(result.reason);
        return result;
      }),
    );
    const db = await schemas.url();
    const worker = spawnCli(['ingest', '--db', db, '--from', url, '--stream', stream, '--durable', 'worker']);
    const jsm = await jetstreamManager(nc);
    const ingested = await waitFor(
      'the worker to ingest the feed',
      async () => {
        if (!worker.running()) throw new Error(`the worker exited: ${worker.stderr()}`);
        return consumerDrained(jsm, stream, 'worker');
      },
      { timeoutMs: 30_000, intervalMs: 25 },
    ).catch((error: unknown) => error);
    const code = await worker.stop();
    if (ingested !== true) throw ingested;
    if (code !== 0) throw new Error(`the worker exited with ${code}: ${worker.stderr()}`);
    store = await openStore(db, { access: 'write' });
    for (const key of keys) await store.keys.insertKey(key.record);
    const redis =
      REDIS_URL === undefined
        ? []
        : ['--redis', REDIS_URL, '--redis-key-prefix', prefix, '--redis-unavailable', 'refuse'];
    replicas.push(...(await startServes(2, ['--db', db, ...redis])));
    return { replicas, store, redis: REDIS_URL !== undefined, close };
  } catch (error) {
    await close();
    throw error;
  }
}
