import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectProblem, type Harness, OPERATION_URLS } from '../../test/api-harness.js';

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 2 });
});
afterAll(() => api?.close());

const OPERATIONS = OPERATION_URLS;

describe('every response', () => {
  it('carries API-Version, X-Request-Id and Vary: Accept, Accept-Encoding, Authorization, errors included', async () => {
    const ids = new Set<string>();
    for (const [url, key] of [
      ['/api/epi', 'historical'],
      ['/api/epi', null],
      ['/nowhere', null],
      ['/api/epi?dat=1', 'historical'],
    ] as const) {
      const response = await api.get(url, { key });
      expect(response.headers['api-version']).toBe('1');
      expect(response.headers.vary).toBe('Accept, Accept-Encoding, Authorization');
      const id = String(response.headers['x-request-id']);
      expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(4);
  });
});

describe('authentication', () => {
  it.each(OPERATIONS)('is required by %s', async (url) => {
    const response = await api.get(url, { key: null });
    expectProblem(response, 401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="gridquote"');
  });

  it('is decided before any parameter is validated', async () => {
    for (const url of [
      '/api/ticker?dat=1&futures=%%%',
      '/api/datamine?type=nope&from=2&from=3',
      '/api/data',
    ]) {
      expectProblem(await api.get(url, { key: null }), 401);
      expectProblem(
        await api.get(url, { key: 'gq_000000000000_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }),
        401,
      );
    }
  });

  it('refuses a revoked key at once', async () => {
    const { createApiKey } = await import('./api-keys.js');
    const { key, record } = createApiKey({ level: 'historical', now: api.now });
    await api.store.keys.insertKey(record);
    expect((await api.get('/api/epi', { key })).statusCode).toBe(200);
    await api.store.keys.revokeKey(record.id, api.now.toISOString());
    const response = await api.get('/api/epi', { key });
    expectProblem(response, 401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('refuses a key after its expiry day (Sydney time)', async () => {
    const { createApiKey } = await import('./api-keys.js');
    const { key, record } = createApiKey({ level: 'historical', now: api.now, expiresOn: '20250307' });
    await api.store.keys.insertKey(record);
    expect((await api.get('/api/epi', { key })).statusCode).toBe(200);
    const saved = api.now;
    // 2025-03-07 13:00 UTC is 2025-03-08 00:00 in Sydney.
    api.now = new Date('2025-03-07T13:00:00Z');
    try {
      expect(expectProblem(await api.get('/api/epi', { key }), 401).detail).toContain('expired');
    } finally {
      api.now = saved;
    }
  });
});

describe('paths and methods', () => {
  it('answers an unknown path with a 404 problem', async () => {
    const body = expectProblem(await api.get('/api/nope'), 404);
    expect(body.detail).toContain('/api/ticker');
    expectProblem(await api.get('/'), 404);
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'] as const)('answers %s with 405 and Allow', async (method) => {
    const response = await api.app.inject({
      method,
      url: '/api/ticker?futures=BNH',
      payload: '{"not":"parsed"',
      headers: { 'content-type': 'application/json' },
    });
    expectProblem(response, 405);
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  it('answers HEAD like GET without a body', async () => {
    const response = await api.get('/api/epi', { method: 'HEAD' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.body).toBe('');
  });

  it('answers a badly encoded path with a 400 problem', async () => {
    expectProblem(await api.get('/api/%E0%A4%A'), 400);
  });

  it('accepts a trailing slash', async () => {
    expect((await api.get('/api/epi/')).statusCode).toBe(200);
  });
});

describe('negotiation', () => {
  it.each(OPERATIONS)('%s: 406 when neither JSON nor CSV is acceptable, as problem+json', async (url) => {
    const body = expectProblem(await api.get(url, { accept: 'application/xml' }), 406);
    expect(body.title).toBe('Not acceptable');
  });

  it('lets ?format= override the Accept header', async () => {
    const csv = await api.get('/api/epi?format=csv', { accept: 'application/json' });
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const json = await api.get('/api/epi?format=json', { accept: 'application/xml' });
    expect(json.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('answers errors as problem+json even when CSV was asked for', async () => {
    expectProblem(await api.get('/api/data?futures=BNH&date=20251131', { accept: 'text/csv' }), 400, 'date');
    expectProblem(await api.get('/api/data?futures=BNH&date=20251131&format=csv'), 400, 'date');
  });
});

describe('parameters common to every operation', () => {
  it.each(OPERATIONS)('%s: an unknown parameter is a 400 naming it', async (url) => {
    const body = expectProblem(
      await api.get(`${url}${url.includes('?') ? '&' : '?'}dat=20250227`),
      400,
      'dat',
    );
    expect(body.errors?.find((error) => error.parameter === 'dat')?.message).toContain('unknown parameter');
  });

  it.each(OPERATIONS.filter((url) => url.includes('?')))(
    '%s: a repeated parameter is a 400 naming it',
    async (url) => {
      const [, first = ''] = url.split('?');
      const [name = ''] = first.split('=');
      expectProblem(await api.get(`${url}&${first.split('&')[0]}`), 400, name);
    },
  );

  it('answers a badly encoded query value with a 400 naming the parameter', async () => {
    expectProblem(await api.get('/api/data?futures=%E0%A4'), 400, 'futures');
  });
});

describe('robustness', () => {
  it('never answers 500 whatever the query string', async () => {
    const names = ['futures', 'options', 'market', 'type', 'date', 'from', 'to', 'format', 'x'];
    const values = fc.oneof(
      fc.string({ maxLength: 20 }),
      fc.constantFrom(
        'au_electricity',
        'BNH',
        'BNH2026',
        'HNZ20260012000',
        'au-oi',
        'au-volume',
        'csv',
        '20250227',
      ),
      fc.constantFrom(
        '20250228',
        '20250301',
        '000000',
        '235959',
        '%',
        '%ZZ',
        'EAH20260010000C',
        'custom_market',
      ),
    );
    const paths = fc.constantFrom(...OPERATIONS.map((url) => url.split('?')[0] as string));
    await fc.assert(
      fc.asyncProperty(
        paths,
        fc.array(fc.tuple(fc.constantFrom(...names), values), { maxLength: 5 }),
        async (path, pairs) => {
          const query = pairs.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&');
          const response = await api.get(`${path}?${query}`);
          expect(response.statusCode, `${path}?${query}: ${response.body}`).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers 503 when the store fails, without leaking the cause', async () => {
    const { buildApp } = await import('./app.js');
    const { seededStore } = await import('../../test/fixtures.js');
    const { createApiKey } = await import('./api-keys.js');
    const { store } = seededStore({ days: 1 });
    const { key, record } = createApiKey({ level: 'historical', now: new Date() });
    await store.keys.insertKey(record);
    const app = buildApp({ reader: store.reader, keys: store.keys });
    await store.close();
    const response = await app.inject({ url: '/api/epi', headers: { authorization: `Bearer ${key}` } });
    const body = expectProblem(response, 503);
    expect(body.detail).not.toMatch(/sqlite|database/i);
    await app.close();
  });
});
