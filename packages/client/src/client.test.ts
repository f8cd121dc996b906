import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { createHarness, type Harness, type HarnessAppOptions } from '../../../test/api-harness.js';
import { refusingRateLimitStore } from '../../../test/scripted-rate-limit.js';
import { GridquoteClient, type RetryInfo } from './client.js';
import { parseCsv } from './csv.js';
import { GridquoteError } from './errors.js';

const UNLIMITED = { perSecond: 0, perMinute: 0 };

/** The harness's app listening on a free loopback port, and a client of it. */
async function listening(app?: HarnessAppOptions): Promise<{ harness: Harness; baseUrl: string }> {
  const harness = await createHarness(app ? { app } : {});
  const baseUrl = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  return { harness, baseUrl };
}

describe('GridquoteClient against a real server', () => {
  let harness: Harness;
  let client: GridquoteClient;
  let baseUrl: string;

  beforeAll(async () => {
    const server = await listening();
    harness = server.harness;
    baseUrl = server.baseUrl;
    client = new GridquoteClient({ baseUrl, key: harness.keys.historical });
  });
  afterAll(() => harness.close());

  it('answers each operation with the JSON the server sends for the same request', async () => {
    const cases: [() => Promise<unknown>, string][] = [
      [() => client.ticker({ futures: 'BNH', date: '20250227' }), '/api/ticker?futures=BNH&date=20250227'],
      [() => client.epi(), '/api/epi'],
      [() => client.npi({ date: '20250228' }), '/api/npi?date=20250228'],
      [
        () => client.tradelog({ market: 'au_gas', date: '20250227' }),
        '/api/tradelog?market=au_gas&date=20250227',
      ],
      [
        () => client.messages({ market: 'au_electricity', type: 'message_board' }),
        '/api/messages?market=au_electricity&type=message_board',
      ],
      [() => client.trades({ futures: 'BNH', from: '120000' }), '/api/trades?futures=BNH&from=120000'],
      [() => client.data({ options: 'au_electricity' }), '/api/data?options=au_electricity'],
      [() => client.intraday({ futures: 'au_gas' }), '/api/intraday?futures=au_gas'],
      [() => client.datamine({ type: 'au-oi' }), '/api/datamine?type=au-oi'],
      [
        () => client.datamine({ type: 'nz-volume', from: '20250226', to: '20250228' }),
        '/api/datamine?type=nz-volume&from=20250226&to=20250228',
      ],
    ];
    for (const [call, url] of cases) {
      const expected = (await harness.get(url)).json();
      expect(await call(), url).toEqual(expected);
    }
  });

  it("types each answer as that operation's own shape", async () => {
    const data = await client.data({ futures: 'BNH', date: '20250227' });
    expectTypeOf(data.data).toBeArray();
    expectTypeOf(data.data[0]).toEqualTypeOf<(typeof data.data)[number] | undefined>();
    expectTypeOf(data).not.toHaveProperty('options');
    expect(Array.isArray(data.data)).toBe(true);
    const options = await client.data({ options: 'BNH2026' });
    expectTypeOf(options.data.put).toBeArray();
    expect(Object.keys(options.data)).toEqual(['put', 'call']);
    const volume = await client.datamine({ type: 'au-volume', to: '20250228' });
    expectTypeOf(volume.tradingDays).toEqualTypeOf<number>();
    expectTypeOf(volume.data.count.nsw.average).toEqualTypeOf<string>();
    expect(volume.tradingDays).toBeGreaterThan(0);
    const custom = await client.messages({ market: 'au_electricity', type: 'custom_market' });
    expectTypeOf(custom).not.toHaveProperty('date');
    expect(custom).not.toHaveProperty('date');
    const trades = await client.trades({ market: 'au_gas' });
    expectTypeOf(trades.market).toEqualTypeOf<string>();
    expectTypeOf(trades.trades[0]).toEqualTypeOf<
      { time: string; code: string; volume: string; price: string; block: boolean } | undefined
    >();
    // @ts-expect-error: a parameter the operation does not define is a type error (and a 400)
    await expect(client.data({ futures: 'BNH', dat: '20250227' })).rejects.toMatchObject({ status: 400 });
    // @ts-expect-error: the exclusive parameters cannot be sent together
    await expect(client.tradelog({ market: 'au_gas', futures: 'GZH' })).rejects.toMatchObject({
      status: 400,
    });
  });

  it('returns CSV as the server wrote it, as text or as rows', async () => {
    const url = '/api/tradelog?market=au_electricity&date=20250227';
    const served = (await harness.get(url, { accept: 'text/csv' })).body;
    const text = await client.csv('tradelog', { market: 'au_electricity', date: '20250227' });
    expect(text).toBe(served);
    const rows = await client.csvRows('tradelog', { market: 'au_electricity', date: '20250227' });
    expect(rows).toEqual(parseCsv(served, ',', { strict: true }));
    expect(rows[0]).toEqual(['date', 'time', 'code', 'trade_type', 'volume', 'price', 'hours', 'face_value']);
    const messages = await client.csvRows('messages', { market: 'au_electricity', type: 'message_board' });
    expect(messages[0]).toEqual(['time', 'message']);
  });

  it('rejects with the problem details of a refusal', async () => {
    const error = await client.data({ futures: 'BNH', date: '20250301' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GridquoteError);
    const refusal = error as GridquoteError;
    expect(refusal.status).toBe(404);
    expect(refusal.code).toBe('no-data');
    expect(refusal.problem?.nearestDate).toBe('20250228');
    expect(refusal.requestId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const anonymous = new GridquoteClient({ baseUrl, key: 'gq_000000000000_nope' });
    await expect(anonymous.epi()).rejects.toMatchObject({ status: 401, code: 'unauthorized' });
  });

  it('sends If-None-Match and gets a 304 for an unchanged answer', async () => {
    const first = await client.request('tradelog', { market: 'au_gas', date: '20250227' });
    expect(first.status).toBe(200);
    expect(first.etag).toBeDefined();
    const again = await client.request(
      'tradelog',
      { market: 'au_gas', date: '20250227' },
      { ifNoneMatch: first.etag },
    );
    expect(again).toMatchObject({ status: 304, body: '', etag: first.etag });
  });
});

describe('retries against a rate-limited server', () => {
  it('waits Retry-After after a 429 and then succeeds; without retries it rejects', async () => {
    // The server's own limiter refuses the 1st and 3rd requests with 429 and Retry-After: 1.
    const { harness, baseUrl } = await listening({
      rateLimits: { historical: { perSecond: 5, perMinute: 0 }, end_of_day: UNLIMITED },
      rateLimitStore: refusingRateLimitStore([1, 3]),
    });
    try {
      const retries: RetryInfo[] = [];
      const client = new GridquoteClient({
        baseUrl,
        key: harness.keys.historical,
        onRetry: (info) => retries.push(info),
      });
      const expected = (await harness.get('/api/epi', { key: 'end_of_day' })).json();
      const started = Date.now();
      expect(await client.epi()).toEqual(expected);
      expect(retries).toEqual([{ operation: 'epi', status: 429, attempt: 1, delayMs: 1000 }]);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);

      const impatient = new GridquoteClient({ baseUrl, key: harness.keys.historical, retries: 0 });
      await expect(impatient.epi()).rejects.toMatchObject({ status: 429, code: 'rate-limited' });
      expect(await impatient.epi()).toEqual(expected);
    } finally {
      await harness.close();
    }
  });

  it('paces itself by the RateLimit header instead of sending into a 429', async () => {
    const { harness, baseUrl } = await listening({
      rateLimits: { historical: { perSecond: 2, perMinute: 0 } },
    });
    try {
      const retries: RetryInfo[] = [];
      const client = new GridquoteClient({
        baseUrl,
        key: harness.keys.historical,
        onRetry: (info) => retries.push(info),
      });
      for (let i = 0; i < 6; i++) await client.epi();
      expect(retries).toEqual([]);
    } finally {
      await harness.close();
    }
  });
});

describe('retries of a store outage (503)', () => {
  const problem = (status: number, retryAfter: string) =>
    new Response(
      JSON.stringify({
        type: 'tag:gridquote,2025:problems/store-unavailable',
        title: 'x',
        status,
        detail: 'down',
      }),
      {
        status,
        headers: { 'content-type': 'application/problem+json', 'retry-after': retryAfter },
      },
    );

  it('retries a 503 after its Retry-After, and not beyond the longest wait it accepts', async () => {
    const answers = [problem(503, '0'), new Response('{"date":"20250228","data":[]}', { status: 200 })];
    const sent: string[] = [];
    const retries: RetryInfo[] = [];
    const client = new GridquoteClient({
      baseUrl: 'http://gridquote.invalid/',
      key: 'gq_000000000000_k',
      fetch: async (input) => {
        sent.push(String(input));
        return answers.shift() ?? problem(500, '0');
      },
      onRetry: (info) => retries.push(info),
    });
    expect(await client.epi({ date: '20250228' })).toEqual({ date: '20250228', data: [] });
    expect(sent).toEqual([
      'http://gridquote.invalid/api/epi?date=20250228',
      'http://gridquote.invalid/api/epi?date=20250228',
    ]);
    expect(retries).toEqual([{ operation: 'epi', status: 503, attempt: 1, delayMs: 0 }]);

    const patient = new GridquoteClient({
      baseUrl: 'http://gridquote.invalid',
      key: 'gq_000000000000_k',
      maxRetryDelayMs: 5000,
      fetch: async () => problem(503, '3600'),
    });
    const started = Date.now();
    await expect(patient.npi()).rejects.toMatchObject({ status: 503, code: 'store-unavailable' });
    expect(Date.now() - started).toBeLessThan(5000);

    let calls = 0;
    const bounded = new GridquoteClient({
      baseUrl: 'http://gridquote.invalid',
      key: 'gq_000000000000_k',
      retries: 2,
      fetch: async () => {
        calls++;
        return problem(503, '0');
      },
    });
    await expect(bounded.npi()).rejects.toMatchObject({ status: 503 });
    expect(calls).toBe(3);
  });
});
