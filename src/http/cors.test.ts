import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectProblem, type Harness } from '../../test/api-harness.js';
import { CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS } from './cors.js';

const DASHBOARD = 'https://dash.example.com';
const STRANGER = 'https://evil.example.net';

function preflight(api: Harness, url: string, origin: string) {
  return api.app.inject({
    method: 'OPTIONS',
    url,
    headers: {
      origin,
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'authorization',
    },
  });
}

function exposed(header: unknown): string[] {
  return String(header ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase());
}

describe('CORS with allowed origins', () => {
  let api: Harness;
  beforeAll(async () => {
    api = await createHarness({
      app: {
        corsOrigins: [DASHBOARD, 'http://localhost:8888'],
        rateLimits: {
          historical: { perSecond: 0, perMinute: 1000 },
          end_of_day: { perSecond: 0, perMinute: 0 },
        },
      },
    });
  });
  afterAll(() => api?.close());

  it('never adds CORS headers to /metrics or the probes, which are no page’s business', async () => {
    for (const url of ['/metrics', '/healthz', '/readyz']) {
      const answer = await api.app.inject({
        url,
        remoteAddress: '127.0.0.1',
        headers: { origin: DASHBOARD },
      });
      expect(answer.statusCode, url).toBe(200);
      expect(answer.headers['access-control-allow-origin'], url).toBeUndefined();
    }
    const operation = await api.get('/api/epi', { headers: { origin: DASHBOARD } });
    expect(operation.headers['access-control-allow-origin']).toBe(DASHBOARD);
  });

  it('answers a preflight from an allowed origin without a key: methods, Authorization, max age', async () => {
    const response = await preflight(api, '/api/tradelog?market=au_gas', DASHBOARD);
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(response.headers['access-control-allow-methods']).toBe('GET, HEAD');
    expect(exposed(response.headers['access-control-allow-headers'])).toContain('authorization');
    expect(response.headers['access-control-max-age']).toBe(String(CORS_MAX_AGE_SECONDS));
    expect(response.headers['access-control-allow-credentials']).toBeUndefined();
    expect(response.body).toBe('');
  });

  it('lets a page of an allowed origin read answers and errors, and the headers it needs', async () => {
    const response = await api.get('/api/tradelog?market=au_gas', { headers: { origin: DASHBOARD } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(DASHBOARD);
    expect(exposed(response.headers['access-control-expose-headers'])).toEqual(
      CORS_EXPOSED_HEADERS.map((name) => name.toLowerCase()),
    );
    // The answer differs by Origin: caches must keep them apart.
    expect(String(response.headers.vary)).toMatch(/Origin/);
    expect(String(response.headers.vary)).toMatch(/Accept-Encoding/);
    for (const name of ['ratelimit', 'ratelimit-policy', 'etag', 'x-request-id', 'api-version']) {
      expect(response.headers[name], name).toBeDefined();
    }
    const unauthorized = await api.get('/api/epi', { key: null, headers: { origin: DASHBOARD } });
    expectProblem(unauthorized, 401);
    expect(unauthorized.headers['access-control-allow-origin']).toBe(DASHBOARD);
  });

  it('sends no CORS header to another origin, so its browser refuses the answer', async () => {
    const refused = await preflight(api, '/api/tradelog?market=au_gas', STRANGER);
    expect(refused.statusCode).toBe(204);
    expect(refused.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
    expect(refused.headers['access-control-allow-methods']).toBeUndefined();
    expect(refused.headers['access-control-allow-headers']).toBeUndefined();
    const answer = await api.get('/api/epi', { headers: { origin: STRANGER } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers['access-control-expose-headers']).toBeUndefined();
    // An origin differing only in scheme or port is another origin.
    const other = await api.get('/api/epi', { headers: { origin: 'http://dash.example.com' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('counts preflights in the metrics under their own operation', async () => {
    await preflight(api, '/api/data?futures=BNH', DASHBOARD);
    const metrics = await api.get('/metrics', { key: null });
    expect(metrics.body).toMatch(/gridquote_http_requests_total\{operation="preflight",status="204"\} [1-9]/);
  });

  it('does not count preflights against any key', async () => {
    const before = await api.get('/api/epi');
    const left = Number(/r=(\d+)/.exec(String(before.headers.ratelimit))?.[1]);
    for (let i = 0; i < 3; i++) await preflight(api, '/api/epi', DASHBOARD);
    const after = await api.get('/api/epi');
    expect(Number(/r=(\d+)/.exec(String(after.headers.ratelimit))?.[1])).toBe(left - 1);
  });
});

describe('CORS open to any origin', () => {
  it('answers Access-Control-Allow-Origin: * to every origin', async () => {
    const api = await createHarness({ app: { corsOrigins: ['*'] } });
    try {
      const response = await api.get('/api/epi', { headers: { origin: STRANGER } });
      expect(response.headers['access-control-allow-origin']).toBe('*');
      expect((await preflight(api, '/api/epi', STRANGER)).statusCode).toBe(204);
    } finally {
      await api.close();
    }
  });
});

describe('without CORS (the default)', () => {
  let api: Harness;
  beforeAll(async () => {
    api = await createHarness();
  });
  afterAll(() => api?.close());

  it('answers OPTIONS with the methods a path takes, and no CORS header', async () => {
    const response = await preflight(api, '/api/epi', DASHBOARD);
    expect(response.statusCode).toBe(204);
    expect(response.headers.allow).toBe('GET, HEAD, OPTIONS');
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
    const answer = await api.get('/api/epi', { headers: { origin: DASHBOARD } });
    expect(answer.headers['access-control-allow-origin']).toBeUndefined();
    expect(answer.headers.vary).toBe('Accept, Accept-Encoding, Authorization');
  });

  it('still refuses OPTIONS of an unknown path with a 404', async () => {
    expectProblem(await api.app.inject({ method: 'OPTIONS', url: '/api/nope' }), 404);
  });
});
