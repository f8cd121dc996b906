import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectProblem, type Harness } from '../../test/api-harness.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { CURRENT_CACHE_CONTROL, PAST_DAY_CACHE_CONTROL } from './answer.js';
import { buildApp, ROUTES } from './app.js';

/** History 20250226..20250228: the 28th is the current day, the 26th and 27th are past days. */
let api: Harness;
beforeAll(async () => {
  api = await createHarness();
});
afterAll(() => api?.close());

const PAST = '/api/tradelog?market=au_electricity&date=20250227';
const SMALL_PAST = '/api/epi?date=20250227';

/** Every operation, about a past day where it takes a date, in both representations. */
const URLS = [
  '/api/ticker?futures=BNH2026&date=20250227',
  '/api/ticker?futures=BNH2026',
  '/api/epi?date=20250226',
  '/api/npi',
  PAST,
  '/api/tradelog?options=BNH',
  '/api/messages?market=au_electricity&type=message_board',
  '/api/messages?market=au_electricity&type=custom_market',
  '/api/trades?futures=BNH',
  '/api/data?futures=BNH&date=20250227',
  '/api/data?options=EAH2026',
  '/api/intraday?futures=BNH',
  '/api/datamine?type=nz-volume&from=20250226&to=20250227',
  '/api/datamine?type=au-oi',
].flatMap((url) => [url, `${url}${url.includes('?') ? '&' : '?'}format=csv`]);

function get(url: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  return api.get(url, { headers, method });
}

function ok(response: LightMyRequestResponse): LightMyRequestResponse {
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

describe('caching', () => {
  it('asks every operation the app registers', () => {
    const asked = new Set(URLS.map((url) => url.split('?')[0]));
    expect([...asked].sort()).toEqual(ROUTES.map((route) => route.path).sort());
  });

  it('answers from the cache with the very bytes a fresh query gives', async () => {
    const uncached = buildApp({
      reader: api.store.reader,
      keys: api.store.keys,
      clock: () => api.now,
      cacheBytes: 0,
      rateLimits: { historical: { perSecond: 0, perMinute: 0 } },
    });
    try {
      for (const url of URLS) {
        const first = ok(await get(url));
        const second = ok(await get(url));
        const fresh = ok(
          await uncached.inject({ url, headers: { authorization: `Bearer ${api.keys.historical}` } }),
        );
        expect(second.rawPayload.equals(first.rawPayload), url).toBe(true);
        expect(fresh.rawPayload.equals(first.rawPayload), url).toBe(true);
        expect(second.headers.etag, url).toBe(first.headers.etag);
        expect(fresh.headers.etag, url).toBe(first.headers.etag);
        expect(second.headers['content-type'], url).toBe(first.headers['content-type']);
      }
    } finally {
      await uncached.close();
    }
  });

  it('keeps the representations of one query apart when Accept alternates (one parsed query, two cached answers)', async () => {
    const kinds: string[] = [];
    for (const accept of ['application/json', 'text/csv', 'application/json', 'text/csv']) {
      const response = ok(await get(SMALL_PAST, { accept }));
      kinds.push(
        `${response.headers['content-type']} ${response.body.trimStart().startsWith('{') ? 'json' : 'text'}`,
      );
    }
    expect(kinds[0]).toMatch(/^application\/json.* json$/);
    expect(kinds[1]).toMatch(/^text\/csv.* text$/);
    expect(kinds.slice(2)).toEqual(kinds.slice(0, 2));
  });

  it("gives a past day a stable strong ETag carrying the day's revision, revalidated on each use", async () => {
    const first = ok(await get(PAST));
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{16}-r\d+"$/);
    expect(first.headers['cache-control']).toBe(PAST_DAY_CACHE_CONTROL);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const again = ok(await get(PAST));
    expect(again.headers.etag).toBe(first.headers.etag);
    const csv = ok(await get(`${PAST}&format=csv`));
    expect(csv.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers 304 without a body to If-None-Match naming the tag, in a list, weak, or *', async () => {
    const etag = String(ok(await get(PAST)).headers.etag);
    for (const header of [etag, `"nope", ${etag}`, `W/${etag}`, `"a",W/${etag} , "b"`, '*']) {
      const response = await get(PAST, { 'if-none-match': header });
      expect(response.statusCode, header).toBe(304);
      expect(response.rawPayload.length).toBe(0);
      expect(response.headers.etag).toBe(etag);
      expect(response.headers['cache-control']).toBe(PAST_DAY_CACHE_CONTROL);
      expect(response.headers['content-length']).toBeUndefined();
      expect(response.headers.vary).toBe('Accept, Accept-Encoding, Authorization');
    }
    for (const header of ['"nope"', `"${etag}"`, etag.slice(1, -1), 'W/"x", "y"']) {
      expect((await get(PAST, { 'if-none-match': header })).statusCode, header).toBe(200);
    }
  });

  it('never answers 304 to a request it refuses', async () => {
    expectProblem(await get('/api/epi?dat=20250227', { 'if-none-match': '*' }), 400, 'dat');
    expectProblem(await api.get(PAST, { key: null, headers: { 'if-none-match': '*' } }), 401);
  });

  it('answers HEAD with the headers of GET, Content-Length included, and no body', async () => {
    for (const encoding of ['identity', 'gzip', 'br']) {
      const headers = { 'accept-encoding': encoding };
      const full = ok(await get(PAST, headers));
      const head = ok(await get(PAST, headers, 'HEAD'));
      expect(head.rawPayload.length).toBe(0);
      for (const name of ['etag', 'cache-control', 'content-type', 'content-length', 'content-encoding']) {
        expect(head.headers[name], `${encoding} ${name}`).toBe(full.headers[name]);
      }
      expect(Number(full.headers['content-length'])).toBe(full.rawPayload.length);
      const notModified = await get(PAST, { ...headers, 'if-none-match': String(full.headers.etag) }, 'HEAD');
      expect(notModified.statusCode).toBe(304);
      expect(notModified.headers['content-length']).toBeUndefined();
    }
  });

  it('treats current-day answers and undated past-day answers as changing', async () => {
    for (const url of [
      '/api/trades?futures=BNH',
      '/api/intraday?futures=BNH',
      '/api/ticker?futures=BNH2026',
      '/api/epi?date=20250228',
      '/api/data?futures=BNH',
      '/api/datamine?type=au-volume&from=20250226',
      '/api/datamine?type=au-volume&from=20250226&to=20250305',
    ]) {
      const response = ok(await get(url));
      expect(response.headers['cache-control'], url).toBe(CURRENT_CACHE_CONTROL);
      expect(response.headers.etag, url).toMatch(/^"[A-Za-z0-9_-]{16}-v\d+"$/);
    }
    // end_of_day access ignores the date: the answer moves on with the data.
    const endOfDay = ok(await api.get(PAST, { key: 'end_of_day' }));
    expect(endOfDay.headers['cache-control']).toBe(CURRENT_CACHE_CONTROL);
    // A range that ends on a past day changes only with a late event for one of its days.
    const range = ok(await get('/api/datamine?type=au-volume&from=20250201&to=20250227'));
    expect(range.headers['cache-control']).toBe(PAST_DAY_CACHE_CONTROL);
  });

  it('keys the cache by access level: the two levels never share an answer', async () => {
    const historical = ok(await get('/api/tradelog?market=au_gas&date=20250226'));
    const endOfDay = ok(await api.get('/api/tradelog?market=au_gas&date=20250226', { key: 'end_of_day' }));
    expect(endOfDay.headers['ignored-parameters']).toBe('date');
    expect(endOfDay.json()).toMatchObject({ date: '20250228' });
    expect(historical.json()).toMatchObject({ date: '20250226' });
  });

  it('keeps the undated ticker window on the exchange clock while the day is live', async () => {
    const saved = api.now;
    try {
      api.now = new Date('2025-02-28T01:00:00Z'); // 12:00 in Sydney
      const noon = ok(await get('/api/ticker?futures=BNH2026')).json() as { to: string };
      expect(noon.to).toBe('120000');
      api.now = new Date('2025-02-28T02:30:00Z');
      const later = ok(await get('/api/ticker?futures=BNH2026')).json() as { to: string };
      expect(later.to).toBe('133000');
    } finally {
      api.now = saved;
    }
  });

  it('works within a tiny byte budget, evicting rather than growing', async () => {
    const tiny = await createHarness({ app: { cacheBytes: 16 * 1024 } });
    try {
      for (const url of URLS.slice(0, 8)) {
        const first = ok(await tiny.get(url));
        const second = ok(await tiny.get(url));
        expect(second.rawPayload.equals(first.rawPayload), url).toBe(true);
      }
    } finally {
      await tiny.close();
    }
  });
});

describe('caching of the current day', () => {
  let live: Harness;
  beforeAll(async () => {
    live = await createHarness({ days: 2, until: '20250227' });
  });
  afterAll(() => live?.close());

  it('changes the ETag when events are ingested, and keeps a past day\u2019s', async () => {
    const url = '/api/trades?market=au_electricity';
    const before = ok(await live.get(url));
    const pastBefore = ok(await live.get('/api/tradelog?market=au_gas&date=20250226'));
    expect(
      (await live.get(url, { headers: { 'if-none-match': String(before.headers.etag) } })).statusCode,
    ).toBe(304);

    const day = live.simulator.simulateDay('20250228');
    await ingestEvents(
      live.store.writer,
      day.filter((event) => event.time < '110000'),
    );
    const after = ok(await live.get(url, { headers: { 'if-none-match': String(before.headers.etag) } }));
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.json()).toMatchObject({ date: '20250228' });
    const pastAfter = ok(await live.get('/api/tradelog?market=au_gas&date=20250226'));
    expect(pastAfter.headers.etag).toBe(pastBefore.headers.etag);
    // The 27th was the current day; now it is a past day, revalidated by its revision.
    const yesterday = ok(await live.get('/api/tradelog?market=au_gas&date=20250227'));
    expect(yesterday.headers['cache-control']).toBe(PAST_DAY_CACHE_CONTROL);

    await ingestEvents(
      live.store.writer,
      day.filter((event) => event.time >= '110000'),
    );
    const later = ok(await live.get(url));
    expect(later.headers.etag).not.toBe(after.headers.etag);
    expect((later.json() as { trades: unknown[] }).trades.length).toBeGreaterThan(
      (after.json() as { trades: unknown[] }).trades.length,
    );
  });
});

describe('compression', () => {
  it('gzips and brotli-compresses to the identical bytes, once per cached answer', async () => {
    const identity = ok(await get(PAST));
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.rawPayload.length).toBeGreaterThan(1024);
    for (const [encoding, decode] of [
      ['gzip', gunzipSync],
      ['br', brotliDecompressSync],
    ] as const) {
      const first = ok(await get(PAST, { 'accept-encoding': encoding }));
      expect(first.headers['content-encoding']).toBe(encoding);
      expect(first.headers.vary).toBe('Accept, Accept-Encoding, Authorization');
      expect(Number(first.headers['content-length'])).toBe(first.rawPayload.length);
      expect(first.rawPayload.length).toBeLessThan(identity.rawPayload.length / 3);
      expect(decode(first.rawPayload).equals(identity.rawPayload)).toBe(true);
      const second = ok(await get(PAST, { 'accept-encoding': encoding }));
      expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
      // Each coding is its own representation: its own strong tag, and 304 on it.
      expect(first.headers.etag).not.toBe(identity.headers.etag);
      const notModified = await get(PAST, {
        'accept-encoding': encoding,
        'if-none-match': String(first.headers.etag),
      });
      expect(notModified.statusCode).toBe(304);
    }
  });

  it('compresses CSV and current-day answers too', async () => {
    for (const url of [`${PAST}&format=csv`, '/api/trades?market=au_electricity']) {
      const identity = ok(await get(url));
      const coded = ok(await get(url, { 'accept-encoding': 'gzip, deflate, br' }));
      expect(coded.headers['content-encoding'], url).toBe('br');
      expect(brotliDecompressSync(coded.rawPayload).equals(identity.rawPayload), url).toBe(true);
    }
  });

  it('leaves an answer under 1 KiB as it is', async () => {
    const response = ok(await get(SMALL_PAST, { 'accept-encoding': 'gzip, br' }));
    expect(response.rawPayload.length).toBeLessThan(1024);
    expect(response.headers['content-encoding']).toBeUndefined();
    expect(response.headers.vary).toBe('Accept, Accept-Encoding, Authorization');
    expect(response.json()).toMatchObject({ date: '20250227' });
  });

  it('honours q-values, q=0 and identity', async () => {
    const cases: [string, string | undefined][] = [
      ['gzip;q=0, br;q=0', undefined],
      ['br;q=0, gzip', 'gzip'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['gzip;q=0.5, br;q=0.8', 'br'],
      ['*', 'br'],
      ['*;q=0.5, br;q=0', 'gzip'],
      ['identity', undefined],
      ['identity;q=1, gzip;q=0.5', undefined],
      ['deflate', undefined],
      ['x-gzip', 'gzip'],
      ['GZIP', 'gzip'],
    ];
    for (const [header, expected] of cases) {
      const response = ok(await get(PAST, { 'accept-encoding': header }));
      expect(response.headers['content-encoding'], header).toBe(expected);
    }
    // Identity refused: even a small answer is coded.
    const small = ok(await get(SMALL_PAST, { 'accept-encoding': 'identity;q=0, gzip' }));
    expect(small.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(small.rawPayload).toString()).toContain('"date":"20250227"');
  });

  it('never compresses a problem', async () => {
    const response = await get('/api/data?futures=BNH2031', { 'accept-encoding': 'identity;q=0, gzip' });
    expectProblem(response, 404, 'futures');
    expect(response.headers['content-encoding']).toBeUndefined();
  });
});
