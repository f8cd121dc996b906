import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import { logInto, parsedLines } from '../../test/log-lines.js';
import type { MarketStore } from '../store/store.js';
import { createApiKey } from './api-keys.js';
import { buildApp } from './app.js';
import { redactKeys } from './observability.js';

/** The request log as a client of the server's log stream sees it. */
let store: MarketStore;
let app: FastifyInstance;
let key: string;
let keyId: string;
const output: string[] = [];

interface Line {
  level: number;
  msg: string;
  reqId: string;
  keyId: string | null;
  operation: string;
  method: string;
  url: string;
  status: number;
  durationMs: number;
  bytes: number | null;
}

beforeAll(async () => {
  ({ store } = seededStore({ days: 1 }));
  const created = createApiKey({ level: 'historical', now: new Date() });
  await store.keys.insertKey(created.record);
  key = created.key;
  keyId = created.record.id;
  const stream = logInto(output);
  // Rate limits off: the tests send bursts with one key.
  const unlimited = { perSecond: 0, perMinute: 0 };
  app = buildApp({
    reader: store.reader,
    keys: store.keys,
    logger: { level: 'info', stream },
    rateLimits: { historical: unlimited, end_of_day: unlimited },
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  store?.close();
});
beforeEach(() => {
  output.length = 0;
});

/** The request lines written so far (the response may finish a moment after inject resolves). */
async function requestLines(): Promise<Line[]> {
  await new Promise((resolve) => setImmediate(resolve));
  return parsedLines<Line>(output).filter((line) => line.msg === 'request');
}

describe('the request log', () => {
  it('writes one line per request: request id, key id, operation, status, duration, bytes', async () => {
    const response = await app.inject({ url: '/api/epi', headers: { authorization: `Bearer ${key}` } });
    expect(response.statusCode).toBe(200);
    const lines = await requestLines();
    expect(lines).toHaveLength(1);
    const [line] = lines;
    expect(line).toMatchObject({
      level: 30,
      reqId: response.headers['x-request-id'],
      keyId,
      operation: 'epi',
      method: 'GET',
      url: '/api/epi',
      status: 200,
      bytes: response.rawPayload.length,
    });
    expect(line?.durationMs).toBeGreaterThan(0);
    expect(line?.durationMs).toBeLessThan(60_000);
  });

  it('logs refusals, unmatched paths, HEAD and the public endpoints too', async () => {
    const refused = await app.inject({
      url: '/api/data?futures=BNH',
      headers: { authorization: 'Bearer nope' },
    });
    const unmatched = await app.inject({ url: '/api/nothing' });
    const head = await app.inject({
      method: 'HEAD',
      url: '/api/npi',
      headers: { authorization: `Bearer ${key}` },
    });
    const health = await app.inject({ url: '/healthz' });
    const lines = await requestLines();
    expect(lines.map((line) => [line.operation, line.status, line.keyId])).toEqual([
      ['data', 401, null],
      ['unmatched', 404, null],
      ['npi', 200, keyId],
      ['healthz', 200, null],
    ]);
    expect(lines.map((line) => line.reqId)).toEqual(
      [refused, unmatched, head, health].map((response) => response.headers['x-request-id']),
    );
    expect(lines[2]?.bytes).toBe(0);
    expect(lines[3]?.bytes).toBe(health.rawPayload.length);
  });

  it('logs a malformed URL, which Fastify answers outside any route', async () => {
    const response = await app.inject({ url: '/api/epi%zz' });
    expect(response.statusCode).toBe(400);
    const lines = await requestLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      reqId: response.headers['x-request-id'],
      operation: 'unmatched',
      status: 400,
      bytes: response.rawPayload.length,
    });
    const metrics = await app.inject({ url: '/metrics' });
    expect(metrics.body).toContain('gridquote_http_requests_total{operation="unmatched",status="400"} 1');
  });

  it('logs a failure of the store at error level', async () => {
    const { store: failing } = seededStore({ days: 1 });
    const created = createApiKey({ level: 'historical', now: new Date() });
    await failing.keys.insertKey(created.record);
    const stream = logInto(output);
    const broken = buildApp({
      reader: failing.reader,
      keys: failing.keys,
      logger: { level: 'info', stream },
    });
    try {
      await broken.ready();
      failing.close();
      expect((await broken.inject({ url: '/readyz' })).statusCode).toBe(503);
      const [line] = await requestLines();
      expect(line).toMatchObject({ level: 50, operation: 'readyz', status: 503 });
    } finally {
      await broken.close();
    }
  });

  it('never writes a key: not from the header, not from a URL it was pasted into', async () => {
    const wrong = `${key.slice(0, -4)}AAAA`;
    await app.inject({ url: '/api/epi', headers: { authorization: `Bearer ${key}` } });
    await app.inject({ url: '/api/epi', headers: { authorization: `Bearer ${wrong}` } });
    await app.inject({ url: `/api/epi?key=${key}`, headers: { authorization: `Bearer ${key}` } });
    await app.inject({ url: `/api/epi?key=${encodeURIComponent(key).replaceAll('_', '%5F')}` });
    await app.inject({ url: '/api/nope', headers: { authorization: `Bearer ${key}` } });
    const lines = await requestLines();
    expect(lines).toHaveLength(5);
    const text = output.join('');
    const secret = key.slice(`gq_${keyId}_`.length);
    expect(text).toContain(keyId);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(wrong.slice(`gq_${keyId}_`.length));
    expect(text).not.toContain(key);
    expect(lines[2]?.url).toBe('/api/epi?key=[redacted]');
  });

  it('redacts key-like text only', async () => {
    expect(redactKeys('/api/epi?date=20250228')).toBe('/api/epi?date=20250228');
    expect(redactKeys('/api/data?futures=gq_x')).toBe('/api/data?futures=gq_x');
    expect(redactKeys(`/x?a=gq%5F0123456789ab%5Fsecret-part_1&b=2`)).toBe('/x?a=[redacted]&b=2');
    expect(redactKeys('/api/messages?market=au_environmental&type=registered_trades&from=100000')).toBe(
      '/api/messages?market=au_environmental&type=registered_trades&from=100000',
    );
    expect(redactKeys('/docs/swagger-ui-bundle.js')).toBe('/docs/swagger-ui-bundle.js');
  });

  // Keys of other forms: another service's, a bare hex token, a short one under a telling name.
  const FOREIGN = ['sk_live_4eC39HqLyjWDarjtT1zdp7dc', 'a3f9c2e81b7d4f60a3f9c2e81b7d4f60', 'tok-9f3k2'];

  it('never writes a key of another form: header, bearer token, query, path', async () => {
    const [stripe = '', hex = '', short = ''] = FOREIGN;
    await app.inject({ url: '/api/epi', headers: { authorization: `Bearer ${stripe}` } });
    await app.inject({ url: '/api/epi', headers: { authorization: `Token ${hex}`, 'x-api-key': stripe } });
    await app.inject({ url: `/api/epi?api_key=${stripe}` });
    await app.inject({ url: `/api/epi?token=${short}&access_token=${short}` });
    await app.inject({ url: `/api/data?futures=${hex}` });
    await app.inject({ url: `/api/epi?Bearer%20${stripe}` });
    await app.inject({ url: `/api/${hex}/epi` });
    await app.inject({ url: `/api/epi?auth=${encodeURIComponent(`Bearer ${short}`)}` });
    const lines = await requestLines();
    expect(lines).toHaveLength(8);
    const text = output.join('');
    for (const secret of FOREIGN) expect(text).not.toContain(secret);
    expect(lines.map((line) => line.url)).toEqual([
      '/api/epi',
      '/api/epi',
      '/api/epi?api_key=[redacted]',
      '/api/epi?token=[redacted]&access_token=[redacted]',
      '/api/data?futures=[redacted]',
      '/api/epi?[redacted]',
      '/api/[redacted]/epi',
      '/api/epi?auth=[redacted]',
    ]);
  });

  it('redacts credential headers in any log call that includes them', async () => {
    const [stripe = '', hex = ''] = FOREIGN;
    app.log.info(
      { headers: { authorization: `Bearer ${stripe}`, 'x-api-key': hex, cookie: `s=${hex}` } },
      'x',
    );
    app.log.info({ req: { headers: { 'proxy-authorization': `Basic ${stripe}` } } }, 'y');
    await new Promise((resolve) => setImmediate(resolve));
    const text = output.join('');
    for (const secret of FOREIGN) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });
});
