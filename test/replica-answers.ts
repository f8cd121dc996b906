import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { FeedEvent } from '../src/feed/events.js';
import { buildApp } from '../src/http/app.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openSqliteStore } from '../src/store/sqlite/open-sqlite-store.js';
import type { ApiKeyRecord } from '../src/store/store.js';

/**
 * What a client sees of an answer, to compare servers byte for byte: status, the headers that
 * name the representation, and the body. Fault tests ask real `gridquote serve` processes and
 * a reference: the same events in a SQLite store, served in process. Uncompressed
 * (Accept-Encoding: identity), so that the bytes compared are the bytes sent.
 */

const headersFor = (key: string) => ({ authorization: `Bearer ${key}`, 'accept-encoding': 'identity' });
export interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly etag: string | undefined;
  readonly retryAfter: string | undefined;
  readonly body: string;
}

export async function fetchAnswer(base: string, url: string, key: string): Promise<Answer> {
  const response = await fetch(`${base}${url}`, { headers: headersFor(key) });
  const header = (name: string) => response.headers.get(name) ?? undefined;
  return {
    status: response.status,
    type: header('content-type'),
    etag: header('etag'),
    retryAfter: header('retry-after'),
    body: await response.text(),
  };
}

export interface ReferenceServer {
  readonly app: FastifyInstance;
  answer(url: string, key: string): Promise<Answer>;
  close(): Promise<void>;
}

/** The events, ingested into an in-memory SQLite store, served in process with the wall clock. */
export async function referenceServer(
  events: readonly FeedEvent[],
  keys: readonly ApiKeyRecord[],
): Promise<ReferenceServer> {
  const store = openSqliteStore(':memory:');
  await ingestEvents(store.writer, [...events]);
  for (const key of keys) await store.keys.insertKey(key);
  const app = buildApp({
    reader: store.reader,
    keys: store.keys,
    onAppend: (listener) => store.onAppend(listener),
    logger: false,
  });
  await app.ready();
  return {
    app,
    async answer(url, key) {
      const response = await app.inject({ method: 'GET', url, headers: headersFor(key) });
      const header = (name: string) => {
        const value = response.headers[name];
        return value === undefined ? undefined : String(value);
      };
      return {
        status: response.statusCode,
        type: header('content-type'),
        etag: header('etag'),
        retryAfter: header('retry-after'),
        body: response.body,
      };
    },
    async close() {
      await app.close();
      await store.close();
    },
  };
}

/** Runs `task` over the items, `concurrency` at a time, in order of start; results in item order. */
export async function inParallel<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    for (let index = next++; index < items.length; index = next++) {
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}

/**
 * Asks every request of each server (base URLs) and of the reference, and expects the same
 * status, content type, ETag and bytes from all; returns the reference's statuses.
 */
export async function expectSameAnswers(
  bases: readonly string[],
  reference: ReferenceServer,
  requests: readonly string[],
  key: string,
): Promise<number[]> {
  return inParallel(requests, 8, async (url) => {
    const expected = await reference.answer(url, key);
    for (const answer of await Promise.all(bases.map((base) => fetchAnswer(base, url, key)))) {
      expect(answer.status, url).toBe(expected.status);
      expect(answer.type, url).toBe(expected.type);
      expect(answer.etag, url).toBe(expected.etag);
      expect(answer.body, url).toBe(expected.body);
    }
    return expected.status;
  });
}
