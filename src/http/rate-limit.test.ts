import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectProblem,
  type Harness,
  type HarnessAppOptions,
} from '../../test/api-harness.js';
import type { AccessLevel } from '../query/context.js';
import { createApiKey } from './api-keys.js';
import { createRateLimiter, integerText, memoryRateLimitStore, type RateLimitWindow } from './rate-limit.js';

const URL = '/api/epi?date=20250227';
const DEFAULT_POLICY = '"per-second";q=10;w=1, "per-minute";q=60;w=60';

let api: Harness | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A harness with the product's rate limits (the shared harness turns them off). */
async function limited(app: HarnessAppOptions = {}): Promise<Harness> {
  api = await createHarness({ days: 2, app: { rateLimits: {}, ...app } });
  return api;
}

async function newKey(
  harness: Harness,
  limits: { perSecond?: number; perMinute?: number } = {},
  level: AccessLevel = 'historical',
): Promise<string> {
  const { key, record } = createApiKey({ level, now: harness.now, ...limits });
  await harness.store.keys.insertKey(record);
  return key;
}

/** Sends n requests at once: they are counted within the same second. */
async function burst(harness: Harness, n: number, key: string, url = URL) {
  return Promise.all(Array.from({ length: n }, () => harness.get(url, { key })));
}

function statuses(responses: readonly { statusCode: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { statusCode } of responses) counts[statusCode] = (counts[statusCode] ?? 0) + 1;
  return counts;
}

describe('rate limits', () => {
  it('refuse a burst over 10 a second with 429, Retry-After and problem+json', async () => {
    const harness = await limited();
    const responses = await burst(harness, 12, harness.keys.historical);
    expect(statuses(responses)).toEqual({ 200: 10, 429: 2 });
    const refused = responses.find((response) => response.statusCode === 429);
    if (refused === undefined) throw new Error('no 429');
    const body = expectProblem(refused, 429);
    expect(body.type).toBe('tag:gridquote,2025:problems/rate-limited');
    expect(body.title).toBe('Too many requests');
    expect(body.detail).toContain('10 requests per second');
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.headers['ratelimit-policy']).toBe(DEFAULT_POLICY);
    expect(refused.headers.ratelimit).toBe('"per-second";r=0;t=1');
  });

  it('report the policy and the remaining budget on 200 and on 4xx answers', async () => {
    const harness = await limited();
    const ok = await harness.get(URL);
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['ratelimit-policy']).toBe(DEFAULT_POLICY);
    expect(ok.headers.ratelimit).toBe('"per-second";r=9;t=1');
    // A minute window, so that a slow machine cannot cross a window's end between the requests.
    const key = await newKey(harness, { perSecond: 0 });
    expectProblem(await harness.get('/api/epi?dat=20250227', { key }), 400, 'dat');
    expectProblem(await harness.get('/api/epi?date=20250301', { key }), 404, 'date');
    expectProblem(await harness.get(URL, { key, accept: 'application/xml' }), 406);
    const last = await harness.get(URL, { key });
    expect(last.statusCode).toBe(200);
    expect(last.headers['ratelimit-policy']).toBe('"per-minute";q=60;w=60');
    expect(last.headers.ratelimit).toMatch(/^"per-minute";r=56;t=(60|59)$/);
  });

  it('put the headers on 4xx answers', async () => {
    const harness = await limited();
    for (const [url, accept, status] of [
      ['/api/epi?dat=20250227', undefined, 400],
      ['/api/epi?date=20250301', undefined, 404],
      [URL, 'application/xml', 406],
    ] as const) {
      const response = await harness.get(url, accept === undefined ? {} : { accept });
      expectProblem(response, status);
      expect(response.headers['ratelimit-policy']).toBe(DEFAULT_POLICY);
      expect(response.headers.ratelimit).toMatch(/^"per-second";r=\d;t=1$/);
    }
  });

  it('count a request before its parameters are validated', async () => {
    const harness = await limited();
    const responses = await burst(harness, 11, harness.keys.historical, '/api/epi?dat=1');
    expect(statuses(responses)).toEqual({ 400: 10, 429: 1 });
  });

  it('do not count unauthenticated requests, even ones naming a real key id', async () => {
    const harness = await limited();
    const key = harness.keys.historical;
    const forged = `${key.slice(0, 16)}${'A'.repeat(43)}`;
    const refused = await burst(harness, 15, forged);
    expect(statuses(refused)).toEqual({ 401: 15 });
    expect(refused[0]?.headers['ratelimit-policy']).toBeUndefined();
    expect(refused[0]?.headers.ratelimit).toBeUndefined();
    expect(statuses(await burst(harness, 10, key))).toEqual({ 200: 10 });
  });

  it('give each key its own budget', async () => {
    const harness = await limited();
    expect(statuses(await burst(harness, 11, harness.keys.historical))).toEqual({ 200: 10, 429: 1 });
    expect(statuses(await burst(harness, 10, harness.keys.end_of_day))).toEqual({ 200: 10 });
    const other = await newKey(harness);
    expect((await harness.get(URL, { key: other })).statusCode).toBe(200);
  });

  it('honour a per-key override of the level default', async () => {
    const harness = await limited();
    const key = await newKey(harness, { perSecond: 2 });
    const responses = await burst(harness, 3, key);
    expect(statuses(responses)).toEqual({ 200: 2, 429: 1 });
    expect(responses[0]?.headers['ratelimit-policy']).toBe('"per-second";q=2;w=1, "per-minute";q=60;w=60');
  });

  it('treat 0 as unlimited and leave its window out of the headers', async () => {
    const harness = await limited();
    const unlimited = await newKey(harness, { perSecond: 0, perMinute: 0 });
    const responses = await burst(harness, 25, unlimited);
    expect(statuses(responses)).toEqual({ 200: 25 });
    expect(responses[0]?.headers['ratelimit-policy']).toBeUndefined();
    expect(responses[0]?.headers.ratelimit).toBeUndefined();

    const perMinuteOnly = await newKey(harness, { perSecond: 0, perMinute: 3 });
    const limitedResponses = await burst(harness, 4, perMinuteOnly);
    expect(statuses(limitedResponses)).toEqual({ 200: 3, 429: 1 });
    const refused = limitedResponses.find((response) => response.statusCode === 429);
    if (refused === undefined) throw new Error('no 429');
    expect(refused.headers['ratelimit-policy']).toBe('"per-minute";q=3;w=60');
    expect(refused.headers.ratelimit).toMatch(/^"per-minute";r=0;t=(\d+)$/);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(refused.headers.ratelimit).toBe(`"per-minute";r=0;t=${retryAfter}`);
    expect(expectProblem(refused, 429).detail).toContain('3 requests per minute');
  });

  it('report the window closest to exhaustion', async () => {
    const harness = await limited();
    const key = await newKey(harness, { perSecond: 10, perMinute: 3 });
    const response = await harness.get(URL, { key });
    expect(response.headers.ratelimit).toMatch(/^"per-minute";r=2;t=(60|59)$/);
  });

  it('take defaults per access level from the app options', async () => {
    const harness = await limited({ rateLimits: { end_of_day: { perSecond: 1 } } });
    expect(statuses(await burst(harness, 2, harness.keys.end_of_day))).toEqual({ 200: 1, 429: 1 });
    expect(statuses(await burst(harness, 10, harness.keys.historical))).toEqual({ 200: 10 });
  });

  it('refuse a negative or fractional limit in the options', async () => {
    expect(() => createRateLimiter({ limits: { historical: { perSecond: -1 } } })).toThrow(/perSecond/);
    expect(() => createRateLimiter({ limits: { end_of_day: { perMinute: 1.5 } } })).toThrow(/perMinute/);
  });

  it('keep its counters in a pluggable store (one counter per window, keyed by key id)', async () => {
    const seen: { window: string; key: string }[] = [];
    const windows: RateLimitWindow[] = [];
    const harness = await limited({
      rateLimitStore: (window) => {
        windows.push(window);
        const inner = memoryRateLimitStore(window);
        return {
          consume(key) {
            seen.push({ window: window.name, key });
            return inner.consume(key);
          },
        };
      },
    });
    expect(windows).toEqual([
      { name: 'per-second', seconds: 1 },
      { name: 'per-minute', seconds: 60 },
    ]);
    await harness.get(URL);
    const id = harness.keys.historical.slice(3, 15);
    expect(seen).toEqual([
      { window: 'per-second', key: id },
      { window: 'per-minute', key: id },
    ]);
  });
});

describe('integerText', () => {
  it('writes any whole number >= 0 as String does', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (n) => {
        expect(integerText(n)).toBe(String(n));
      }),
      { numRuns: 2_000 },
    );
    for (const n of [0, 7, 999, 1000, 1001, 60_000_000, 999_999_999, Number.MAX_SAFE_INTEGER]) {
      expect(integerText(n)).toBe(String(n));
    }
  });

  it('falls back to String for what is not a whole number >= 0', () => {
    for (const n of [-1, 1.5, Number.POSITIVE_INFINITY, Number.NaN]) expect(integerText(n)).toBe(String(n));
  });
});
