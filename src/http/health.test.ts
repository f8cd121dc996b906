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
});
