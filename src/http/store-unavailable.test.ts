import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { expectProblem, OPERATION_URLS } from '../../test/api-harness.js';
import { seededStore } from '../../test/fixtures.js';
import { logInto, parsedLines } from '../../test/log-lines.js';
import type { KeyStore, MarketReader, MarketStore } from '../store/store.js';
import { createApiKey } from './api-keys.js';
import { buildApp } from './app.js';

/**
 * Makes every method of a store interface throw while `broken.now` is set, like a store whose
 * disk fails or whose lock is held past the busy timeout.
 */
function breakable<T extends object>(target: T, broken: { now: boolean }): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (broken.now) throw new Error('SQLITE_IOERR: disk I/O error');
        return value.apply(object, args);
      };
    },
  });
}

let store: MarketStore | undefined;
let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  try {
    store?.close();
  } catch {
    // already closed by the test
  }
});

async function setUp(wrap: <T extends object>(target: T) => T = (target) => target, logLines?: string[]) {
  ({ store } = seededStore());
  const created = createApiKey({ level: 'historical', now: new Date('2025-03-01T00:00:00Z') });
  await store.keys.insertKey(created.record);
  const unlimited = { perSecond: 0, perMinute: 0 };
  app = buildApp({
    reader: wrap<MarketReader>(store.reader),
    keys: wrap<KeyStore>(store.keys),
    clock: () => new Date('2025-03-07T01:00:00Z'),
    rateLimits: { historical: unlimited, end_of_day: unlimited },
    ...(logLines ? { logger: { level: 'info', stream: logInto(logLines) } } : {}),
  });
  const running = app;
  const get = (url: string, key: string | null = created.key): Promise<LightMyRequestResponse> =>
    running.inject({ url, headers: key === null ? {} : { authorization: `Bearer ${key}` } });
  return { get };
}

function expectUnavailable(response: LightMyRequestResponse): void {
  const body = expectProblem(response, 503);
  expect(body.type).toBe('tag:gridquote,2025:problems/store-unavailable');
  expect(response.headers['retry-after']).toBe('5');
}

describe('a failing store', () => {
  it('answers 503 with Retry-After for every operation, then answers again once it recovers', async () => {
    const broken = { now: false };
    const { get } = await setUp((target) => breakable(target, broken));
    for (const url of OPERATION_URLS) expect((await get(url)).statusCode, url).toBe(200);

    broken.now = true;
    for (const url of OPERATION_URLS)
      expectUnavailable(await get(`${url}${url.includes('?') ? '&' : '?'}format=csv`));
    expectUnavailable(await get('/readyz', null));
    // What needs no store still answers: the process is up, only the data is not.
    expect((await get('/healthz', null)).statusCode).toBe(200);
    expectProblem(await get('/api/epi', null), 401);
    expectProblem(await get('/api/nope'), 404);
    // The contract stays readable: the documentation falls back to the examples of docs/api.md.
    for (const url of ['/api/openapi.json', '/api']) expect((await get(url, null)).statusCode, url).toBe(200);

    broken.now = false;
    for (const url of OPERATION_URLS) expect((await get(url)).statusCode, url).toBe(200);
    expect((await get('/readyz', null)).statusCode).toBe(200);
  });

  it('answers 503 when the store is closed under the running app, and keeps serving', async () => {
    const { get } = await setUp();
    for (const url of OPERATION_URLS) expect((await get(url)).statusCode, url).toBe(200);
    store?.close();
    for (const url of OPERATION_URLS) expectUnavailable(await get(url));
    expectUnavailable(await get('/readyz', null));
    expect((await get('/healthz', null)).statusCode).toBe(200);
  });

  it('logs every failed request, but the cause of an outage once a second, not once per request', async () => {
    const broken = { now: false };
    const output: string[] = [];
    const { get } = await setUp((target) => breakable(target, broken), output);
    broken.now = true;
    const started = performance.now();
    for (let request = 0; request < 40; request += 1) expectUnavailable(await get('/api/epi?date=20250306'));
    const elapsedMs = performance.now() - started;
    await new Promise((resolve) => setImmediate(resolve));
    const lines = parsedLines<{ level: number; msg: string; status?: number; [field: string]: unknown }>(
      output,
    );
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests.map((line) => [line.level, line.status])).toEqual(Array(40).fill([50, 503]));
    const causes = lines.filter((line) => line.msg === 'store unavailable');
    expect(causes.length).toBeGreaterThanOrEqual(1);
    expect(causes.length).toBeLessThanOrEqual(1 + Math.floor(elapsedMs / 1000));
    expect(causes[0]).toMatchObject({
      level: 50,
      failuresNotLogged: 0,
      err: { message: 'SQLITE_IOERR: disk I/O error' },
    });
  });
});
