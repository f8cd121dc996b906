import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectProblem, type Harness } from '../../test/api-harness.js';
import { seededStore } from '../../test/fixtures.js';
import { MEMORY, openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import { buildApp } from './app.js';

let api: Harness;

beforeAll(async () => {
  api = await createHarness({ days: 1 });
});
afterAll(() => api?.close());

describe('GET /healthz', () => {
  it('answers ok without an API key', async () => {
    const response = await api.get('/healthz', { key: null });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /readyz', () => {
  it('is ready when the store holds data, without an API key', async () => {
    const response = await api.get('/readyz', { key: null });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      status: 'ready',
      latestDate: '20250228',
      version: await api.store.reader.version(),
    });
  });

  it('is not ready (503 problem) over an empty store, while /healthz stays ok', async () => {
    const store = openSqliteStore(MEMORY);
    const app = buildApp({ reader: store.reader, keys: store.keys });
    try {
      const body = expectProblem(await app.inject('/readyz'), 503);
      expect(body.type).toBe('tag:gridquote,2025:problems/store-unavailable');
      expect(body.detail).toContain('no data');
      expect((await app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await app.close();
      await store.close();
    }
  });

  it("reports the store's change notices, and is not ready while they are lost", async () => {
    const { store } = seededStore({ days: 1 });
    let notices: 'local' | 'lost' = store.changeNotices() === 'local' ? 'local' : 'lost';
    const app = buildApp({ reader: store.reader, keys: store.keys, changeNotices: () => notices });
    try {
      // SQLite watches its own file: nothing to lose
      const ready = await app.inject('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toMatchObject({ status: 'ready', notices: 'local' });
      notices = 'lost';
      const lost = await app.inject('/readyz');
      const body = expectProblem(lost, 503);
      expect(body.type).toBe('tag:gridquote,2025:problems/store-unavailable');
      expect(body.detail).toContain('change notices are lost');
      expect(lost.headers['retry-after']).toBe('1');
      expect((await app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await app.close();
      await store.close();
    }
  });

  it('is not ready when the store fails, while /healthz stays ok', async () => {
    const { store } = seededStore({ days: 1 });
    const app = buildApp({ reader: store.reader, keys: store.keys });
    try {
      expect((await app.inject('/readyz')).statusCode).toBe(200);
      await store.close();
      expectProblem(await app.inject('/readyz'), 503);
      expect((await app.inject('/healthz')).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('is not ready when the store does not answer within a second (a hung server), and ready once it does', async () => {
    const { store } = seededStore({ days: 1 });
    let hung = true;
    const reader = new Proxy(store.reader, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (property !== 'latestDate' || typeof value !== 'function') return value;
        return (...args: unknown[]) => (hung ? new Promise(() => undefined) : value.apply(target, args));
      },
    });
    const app = buildApp({ reader, keys: store.keys });
    try {
      const started = performance.now();
      const response = await app.inject('/readyz');
      const elapsedMs = performance.now() - started;
      const body = expectProblem(response, 503);
      expect(body.detail).toContain('did not answer within 1000 ms');
      expect(response.headers['retry-after']).toBe('5');
      expect(elapsedMs).toBeGreaterThanOrEqual(990);
      expect(elapsedMs).toBeLessThan(5_000);
      hung = false;
      expect((await app.inject('/readyz')).statusCode).toBe(200);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
