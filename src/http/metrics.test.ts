import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectProblem, type Harness } from '../../test/api-harness.js';
import { seededStore } from '../../test/fixtures.js';
import { nextTradingDay } from '../domain/calendar.js';
import { sydneyUnixSeconds } from '../domain/dates.js';
import { wallClock } from '../domain/exchange-clock.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { MEMORY, openSqliteStore } from '../store/sqlite/open-sqlite-store.js';
import type { MarketReader } from '../store/store.js';
import { buildApp } from './app.js';
import { createMetrics, DURATION_BUCKETS } from './metrics.js';

let api: Harness;

beforeAll(async () => {
  api = await createHarness({ days: 2 });
});
afterAll(() => api?.close());

async function scrape(inject: Harness['app']['inject'] = api.app.inject.bind(api.app)): Promise<string> {
  const response = await inject({ url: '/metrics' });
  expect(response.statusCode, response.body).toBe(200);
  return response.body;
}

/** The value of one sample line, e.g. `name{a="b"}`; undefined when absent. */
function sample(exposition: string, series: string): number | undefined {
  const line = exposition.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('GET /metrics', () => {
  it('exposes the service metrics and the default process metrics, without an API key', async () => {
    const response = await api.get('/metrics', { key: null });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    for (const name of [
      'gridquote_http_requests_total',
      'gridquote_http_request_duration_seconds',
      'gridquote_response_cache_hits_total',
      'gridquote_response_cache_misses_total',
      'gridquote_events_ingested_total',
      'gridquote_ingest_lag_seconds',
      'gridquote_store_version',
      'process_cpu_user_seconds_total',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(response.body).toContain(`# TYPE ${name} `);
    }
  });

  it('counts requests by operation and status, and times them by operation', async () => {
    const before = await scrape();
    const ok = 'gridquote_http_requests_total{operation="epi",status="200"}';
    const refused = 'gridquote_http_requests_total{operation="epi",status="401"}';
    const unmatched = 'gridquote_http_requests_total{operation="unmatched",status="404"}';
    const count = 'gridquote_http_request_duration_seconds_count{operation="epi"}';
    await api.get('/api/epi');
    await api.get('/api/epi', { method: 'HEAD' });
    await api.get('/api/epi', { key: null });
    await api.get('/api/nothing-here');
    const after = await scrape();
    expect((sample(after, ok) ?? 0) - (sample(before, ok) ?? 0)).toBe(2);
    expect((sample(after, refused) ?? 0) - (sample(before, refused) ?? 0)).toBe(1);
    expect((sample(after, unmatched) ?? 0) - (sample(before, unmatched) ?? 0)).toBe(1);
    expect((sample(after, count) ?? 0) - (sample(before, count) ?? 0)).toBe(3);
    expect(sample(after, 'gridquote_http_requests_total{operation="metrics",status="200"}')).toBeGreaterThan(
      0,
    );
    const buckets = after
      .split('\n')
      .filter(
        (line) =>
          line.startsWith('gridquote_http_request_duration_seconds_bucket{') && line.includes('"epi"'),
      )
      .map((line) => /le="([^"]+)"/.exec(line)?.[1]);
    expect(buckets).toEqual([...DURATION_BUCKETS.map(String), '+Inf']);
  });

  it('counts response cache hits and misses', async () => {
    const before = await scrape();
    await api.get('/api/npi?date=20250227');
    await api.get('/api/npi?date=20250227');
    const after = await scrape();
    const delta = (name: string) => (sample(after, name) ?? 0) - (sample(before, name) ?? 0);
    expect(delta('gridquote_response_cache_misses_total')).toBe(1);
    expect(delta('gridquote_response_cache_hits_total')).toBe(1);
  });

  it("reads the store's version", async () => {
    expect(sample(await scrape(), 'gridquote_store_version')).toBe(await api.store.reader.version());
  });

  it('counts ingested events from the store notices and measures the lag on the Sydney clock', async () => {
    const seeded = seededStore({ days: 1, until: '20250227' });
    const day = nextTradingDay('20250227');
    // 2025-02-28 18:00 in Sydney (AEDT, UTC+11).
    const now = new Date('2025-02-28T07:00:00Z');
    const app = buildApp({
      reader: seeded.store.reader,
      keys: seeded.store.keys,
      clock: () => now,
      onAppend: (listener) => seeded.store.onAppend(listener),
    });
    try {
      const inject = app.inject.bind(app);
      expect(sample(await scrape(inject), 'gridquote_events_ingested_total')).toBe(0);
      const events = seeded.simulator.simulateDay(day);
      const { added } = await ingestEvents(seeded.store.writer, events);
      const exposition = await scrape(inject);
      expect(sample(exposition, 'gridquote_events_ingested_total')).toBe(added);
      expect(sample(exposition, 'gridquote_store_version')).toBe(await seeded.store.reader.version());
      const last =
        events
          .filter((event) => event.type !== 'index')
          .map((event) => event.time)
          .sort()
          .at(-1) ?? '000000';
      const lag = now.getTime() / 1000 - sydneyUnixSeconds(day, last);
      expect(sample(exposition, 'gridquote_ingest_lag_seconds')).toBeCloseTo(lag, 6);
      expect(lag).toBeGreaterThan(0);
      expect(lag).toBeLessThan(3 * 3600);
    } finally {
      await app.close();
      await seeded.store.close();
    }
  });

  it('reports no lag over an empty store', async () => {
    const store = openSqliteStore(MEMORY);
    const app = buildApp({ reader: store.reader, keys: store.keys });
    try {
      const exposition = await scrape(app.inject.bind(app));
      expect(sample(exposition, 'gridquote_ingest_lag_seconds')).toBeNaN();
      expect(sample(exposition, 'gridquote_store_version')).toBe(0);
    } finally {
      await app.close();
      await store.close();
    }
  });

  it('keeps one registry per app: two apps count apart', async () => {
    const series = 'gridquote_http_requests_total{operation="epi",status="200"}';
    const other = await createHarness({ days: 1 });
    try {
      const mine = sample(await scrape(), series);
      await other.get('/api/epi');
      await other.get('/api/epi');
      expect(sample(await scrape(other.app.inject.bind(other.app)), series)).toBe(2);
      expect(sample(await scrape(), series)).toBe(mine);
    } finally {
      await other.close();
    }
  });
});

describe('notice delay', () => {
  it("times the notices of other processes' commits, not this process's own", async () => {
    const reader = { version: async () => 2, latestDate: async () => undefined } as unknown as MarketReader;
    const metrics = createMetrics({ reader, clock: wallClock });
    metrics.appended({
      version: 1,
      added: 0,
      dates: [],
      revisions: new Map(),
      notifiedAtMs: Date.now() - 40,
    });
    metrics.appended({ version: 2, added: 3, dates: [], revisions: new Map() });
    const text = await metrics.registry.metrics();
    expect(sample(text, 'gridquote_store_notice_delay_seconds_count')).toBe(1);
    const seconds = sample(text, 'gridquote_store_notice_delay_seconds_sum') ?? 0;
    expect(seconds).toBeGreaterThanOrEqual(0.04);
    expect(seconds).toBeLessThan(5);
  });
});

describe('log writer', () => {
  it("adds what the log pipe's waits and losses grew by at each scrape", async () => {
    const reader = { version: async () => 2, latestDate: async () => undefined } as unknown as MarketReader;
    const logWriter = { waitedMs: 1_500, lostLines: 3 };
    const metrics = createMetrics({ reader, clock: wallClock, logWriter });
    let text = await metrics.registry.metrics();
    expect(sample(text, 'gridquote_log_wait_seconds_total')).toBe(1.5);
    expect(sample(text, 'gridquote_log_lines_lost_total')).toBe(3);
    logWriter.waitedMs = 2_000;
    logWriter.lostLines = 10;
    text = await metrics.registry.metrics();
    expect(sample(text, 'gridquote_log_wait_seconds_total')).toBe(2);
    expect(sample(text, 'gridquote_log_lines_lost_total')).toBe(10);
  });

  it('reads zero when the log is not a pipe', async () => {
    const reader = { version: async () => 2, latestDate: async () => undefined } as unknown as MarketReader;
    const text = await createMetrics({ reader, clock: wallClock }).registry.metrics();
    expect(sample(text, 'gridquote_log_wait_seconds_total')).toBe(0);
    expect(sample(text, 'gridquote_log_lines_lost_total')).toBe(0);
  });
});

describe('access to /metrics', () => {
  it('without a token: loopback clients only', async () => {
    expect((await api.app.inject({ url: '/metrics', remoteAddress: '127.0.0.1' })).statusCode).toBe(200);
    expect((await api.app.inject({ url: '/metrics', remoteAddress: '::1' })).statusCode).toBe(200);
    const body = expectProblem(await api.app.inject({ url: '/metrics', remoteAddress: '10.1.2.3' }), 403);
    expect(body.type).toBe('tag:gridquote,2025:problems/forbidden');
  });

  it('without a token: only for a loopback Host, so a page whose name was re-pointed at 127.0.0.1 cannot read it', async () => {
    for (const host of ['127.0.0.1:8080', 'localhost', 'LOCALHOST:80', '[::1]:8080', '127.0.0.2']) {
      const answer = await api.app.inject({ url: '/metrics', remoteAddress: '127.0.0.1', headers: { host } });
      expect(answer.statusCode, host).toBe(200);
    }
    for (const host of [
      'attacker.example:8080',
      'localhost.attacker.example',
      '127.0.0.1.nip.io',
      '10.0.0.1',
    ]) {
      const refused = await api.app.inject({
        url: '/metrics',
        remoteAddress: '127.0.0.1',
        headers: { host },
      });
      expect(expectProblem(refused, 403).detail, host).toContain('asking for a loopback host');
    }
  });

  it('without a token: not through a proxy on the same host, which connects from loopback for any client', async () => {
    for (const headers of [
      { 'x-forwarded-for': '203.0.113.7' },
      { forwarded: 'for=203.0.113.7;proto=https' },
      { 'x-real-ip': '203.0.113.7' },
    ]) {
      const refused = await api.app.inject({ url: '/metrics', remoteAddress: '127.0.0.1', headers });
      const body = expectProblem(refused, 403);
      expect(body.detail, JSON.stringify(headers)).toContain('not through a proxy');
    }
  });

  it('with a token: any client that sends it, and no one else (API keys do not open it)', async () => {
    const { store } = seededStore({ days: 1 });
    const token = 'metrics-token-for-tests';
    const app = buildApp({ reader: store.reader, keys: store.keys, metricsToken: token });
    try {
      const scrapeWith = (authorization?: string) =>
        app.inject({
          url: '/metrics',
          remoteAddress: '10.1.2.3',
          headers: authorization === undefined ? {} : { authorization },
        });
      expect((await scrapeWith(`Bearer ${token}`)).statusCode).toBe(200);
      // through a proxy too, with the token
      const proxied = await app.inject({
        url: '/metrics',
        remoteAddress: '127.0.0.1',
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': '203.0.113.7' },
      });
      expect(proxied.statusCode).toBe(200);
      const missing = await scrapeWith();
      expectProblem(missing, 401);
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="gridquote-metrics"');
      expectProblem(await scrapeWith(`Bearer ${token}x`), 401);
      expectProblem(await scrapeWith(`Bearer ${api.keys.historical}`), 401);
      // The token applies on loopback too.
      expectProblem(await app.inject({ url: '/metrics' }), 401);
    } finally {
      await app.close();
      await store.close();
    }
  });
});
