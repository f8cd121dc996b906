import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_NOW } from '../../test/api-harness.js';
import { type SeededStore, seededTestStore } from '../../test/fixtures.js';
import { waitFor } from '../../test/wait-for.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import type { MarketReader } from '../store/store.js';
import { createApiKey } from './api-keys.js';
import { buildApp } from './app.js';

/**
 * Single flight in the answer cache (response-cache.ts fill): when a commit drops a popular
 * current-day answer, the requests that miss it at once share one computation. The reader here
 * counts the calls of the operation's query and can hold them (a gate) until every request is
 * waiting, so the test sees the requests truly concurrent.
 */

const URL = '/api/trades?market=au_electricity';
const REQUESTS = 25;

let seeded: SeededStore;
let app: FastifyInstance;
let key: string;
/** Calls of reader.trades: the query of URL. */
let queries = 0;
let gate: Promise<void> | undefined;
let failNext = false;

function countingReader(reader: MarketReader): MarketReader {
  return new Proxy(reader, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property);
      if (property !== 'trades' || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        queries += 1;
        await gate;
        if (failNext) {
          failNext = false;
          throw new Error('the disk is gone (test)');
        }
        return value.apply(target, args);
      };
    },
  });
}

beforeAll(async () => {
  seeded = await seededTestStore({ days: 2, until: '20250227' });
  const created = createApiKey({
    level: 'historical',
    name: 'flight',
    perSecond: 0,
    perMinute: 0,
    now: DEFAULT_NOW,
  });
  await seeded.store.keys.insertKey(created.record);
  key = created.key;
  app = buildApp({
    reader: countingReader(seeded.store.reader),
    keys: seeded.store.keys,
    onAppend: (listener) => seeded.store.onAppend(listener),
    clock: () => DEFAULT_NOW,
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await seeded?.store.close();
});

function get() {
  return app.inject({ url: URL, headers: { authorization: `Bearer ${key}` } });
}

/** The next half hour of the next trading day: a commit that drops every current-day answer. */
const HALF_HOURS = ['100000', '103000', '110000', '113000', '120000', '123000', '130000'];
let nextDay: ReturnType<SeededStore['simulator']['simulateDay']> | undefined;
let halfHour = 0;
async function commitMore(): Promise<void> {
  nextDay ??= seeded.simulator.simulateDay('20250228');
  const from = HALF_HOURS[halfHour] ?? '';
  const until = HALF_HOURS[halfHour + 1] ?? '';
  halfHour += 1;
  const before = await seeded.store.reader.version();
  await ingestEvents(
    seeded.store.writer,
    nextDay.filter((event) => event.time >= from && event.time < until),
  );
  expect(await seeded.store.reader.version()).toBeGreaterThan(before);
}

/** Fires REQUESTS requests while the query is held, releases it once all of them wait. */
async function concurrently() {
  let open = () => {};
  gate = new Promise((resolve) => {
    open = resolve;
  });
  const start = queries;
  const answers = Promise.all(Array.from({ length: REQUESTS }, () => get()));
  await waitFor('the first request to reach the query', async () => queries > start);
  // In process, every request reaches the cache within a few turns of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 100));
  open();
  gate = undefined;
  return { responses: await answers, queries: queries - start };
}

describe('single flight of a dropped answer', () => {
  it('computes it once for every request waiting on it, and all get the same correct bytes', async () => {
    await commitMore();
    // What one request alone costs in queries, on a dropped answer.
    const alone = queries;
    const single = await get();
    expect(single.statusCode).toBe(200);
    const perAnswer = queries - alone;
    expect(perAnswer).toBeGreaterThan(0);

    await commitMore();
    const { responses, queries: made } = await concurrently();
    expect(made).toBe(perAnswer);
    const uncached = buildApp({
      reader: seeded.store.reader,
      keys: seeded.store.keys,
      clock: () => DEFAULT_NOW,
      cacheBytes: 0,
    });
    const fresh = await uncached.inject({ url: URL, headers: { authorization: `Bearer ${key}` } });
    await uncached.close();
    expect(fresh.statusCode).toBe(200);
    for (const response of responses) {
      expect(response.statusCode).toBe(200);
      expect(response.rawPayload.equals(fresh.rawPayload)).toBe(true);
      expect(response.headers.etag).toBe(fresh.headers.etag);
    }
    expect(single.rawPayload.equals(fresh.rawPayload)).toBe(false);
  });

  it('hands a failure to every waiting request and keeps nothing: the next request computes again', async () => {
    await commitMore();
    failNext = true;
    const { responses, queries: made } = await concurrently();
    expect(made).toBe(1);
    for (const response of responses) {
      expect(response.statusCode).toBe(503);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const after = queries;
    const retried = await get();
    expect(retried.statusCode).toBe(200);
    expect(queries).toBeGreaterThan(after);
    // Now it is kept: the next request reads no store.
    const kept = queries;
    expect((await get()).rawPayload.equals(retried.rawPayload)).toBe(true);
    expect(queries).toBe(kept);
  });
});
