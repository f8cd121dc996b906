import { mkdtempSync, rmSync } from 'node:fs';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { seededStore } from '../../../test/fixtures.js';
import {
  exportedEvents,
  FUTURES,
  LIVE,
  liveApp,
  liveDayStore,
  NOW,
  PREVIOUS,
} from '../../../test/live-day.js';
import { logInto, parsedLines } from '../../../test/log-lines.js';
import { type ReceivedEvent, SseClient } from '../../../test/sse-client.js';
import { waitFor } from '../../../test/wait-for.js';
import { MARKET_CODES } from '../../domain/markets.js';
import type { FeedEvent } from '../../feed/events.js';
import { ingestEvents } from '../../ingest/ingest-events.js';
import { openSqliteStore } from '../../store/sqlite/open-sqlite-store.js';
import type { EventLog, MarketStore } from '../../store/store.js';
import { createApiKey } from '../api-keys.js';
import type { AppOptions } from '../app.js';
import { DEFAULT_HTTP_LIMITS } from '../limits.js';
import type { MarketSelection } from './stream-items.js';
import { STREAM_SPEC } from './stream-route.js';

/**
 * GET /api/stream over a listening server (over SQLite, and over PostgreSQL in the `postgres`
 * project: vitest.config.ts). Each fixture is the live day of test/live-day.ts: a store whose
 * seeded history ends on 20250227, with the morning of the live day 20250228 in; tests ingest
 * the rest while clients listen.
 */
interface Fixture {
  readonly store: MarketStore;
  readonly live: readonly FeedEvent[];
  /** The live day after the morning: not yet in the store. */
  readonly rest: readonly FeedEvent[];
  readonly keys: { readonly historical: string; readonly end_of_day: string; readonly historicalId: string };
  serve(options?: Partial<AppOptions>): Promise<{ app: FastifyInstance; base: string }>;
  connect(url: string, headers?: Record<string, string>, key?: string | null): SseClient;
  /** The rest of the live day in `parts` commits. */
  ingestRest(parts?: number): Promise<void>;
  close(): Promise<void>;
}

const open: Fixture[] = [];
afterEach(async () => {
  for (const fixture of open.splice(0)) await fixture.close();
});

async function fixture(): Promise<Fixture> {
  const { store, live, rest } = await liveDayStore();
  const historical = createApiKey({ level: 'historical', now: NOW });
  const endOfDay = createApiKey({ level: 'end_of_day', now: NOW });
  await store.keys.insertKey(historical.record);
  await store.keys.insertKey(endOfDay.record);
  const keys = { historical: historical.key, end_of_day: endOfDay.key, historicalId: historical.record.id };
  const apps: FastifyInstance[] = [];
  const clients: SseClient[] = [];
  const made: Fixture = {
    store,
    live,
    rest,
    keys,
    async serve(options = {}) {
      const app = liveApp(store, options);
      apps.push(app);
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      return { app, base };
    },
    connect(url, headers = {}, key = keys.historical) {
      const client = new SseClient(
        url,
        key === null ? headers : { authorization: `Bearer ${key}`, ...headers },
      );
      clients.push(client);
      return client;
    },
    async ingestRest(parts = 1) {
      const size = Math.ceil(rest.length / parts);
      for (let i = 0; i < rest.length; i += size) await ingestEvents(store.writer, rest.slice(i, i + size));
    },
    async close() {
      for (const client of clients) client.destroy();
      for (const app of apps) await app.close();
      await store.close();
    },
  };
  open.push(made);
  return made;
}

/** A small seeded generator (mulberry32): the same run every time, different points within it. */
function seeded(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4_294_967_296) * below);
  };
}

async function metric(app: FastifyInstance, name: string): Promise<number> {
  const text = (await app.inject({ url: '/metrics', remoteAddress: '127.0.0.1' })).body;
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

describe('GET /api/stream: refusals before the stream starts', () => {
  it('answers problem+json: no key, bad parameters, unknown code, end_of_day market data, Accept', async () => {
    const f = await fixture();
    const { base } = await f.serve();
    const cases: [string, Record<string, string>, string | null, number][] = [
      ['/api/stream?futures=au_electricity', {}, null, 401],
      ['/api/stream?futures=au_electricity&market=au_gas', {}, f.keys.historical, 400],
      ['/api/stream?futures=au_electricity&type=quote', {}, f.keys.historical, 400],
      ['/api/stream?publications=1&type=book', {}, f.keys.historical, 400],
      ['/api/stream?futures=au_electricity&from=2500', {}, f.keys.historical, 400],
      ['/api/stream?futures=au_electricity&format=json', {}, f.keys.historical, 406],
      ['/api/stream?futures=ZZH', {}, f.keys.historical, 404],
      // well-formed, but no listed contract: the ticker's 404, not a stream that stays silent
      ['/api/stream?futures=BNZ2031', {}, f.keys.historical, 404],
      ['/api/stream?futures=au_electricity', {}, f.keys.end_of_day, 403],
      ['/api/stream?futures=au_electricity', { accept: 'application/json' }, f.keys.historical, 406],
    ];
    for (const [url, headers, key, status] of cases) {
      const client = await f.connect(`${base}${url}`, headers, key).started();
      await client.until(`the answer to ${url}`, (c) => c.ended);
      expect(client.status, url).toBe(status);
      expect(client.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect((JSON.parse(client.body) as { status: number }).status).toBe(status);
    }
  });

  it('answers HEAD with the headers of the stream and no body', async () => {
    const f = await fixture();
    const { app } = await f.serve();
    const head = await app.inject({
      method: 'HEAD',
      url: '/api/stream?futures=au_electricity',
      headers: { authorization: `Bearer ${f.keys.historical}` },
    });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(head.body).toBe('');
    expect(await metric(app, 'gridquote_streams_open')).toBe(0);
  });

  it('holds at most the per-key cap of streams open; a closed one frees its slot', async () => {
    const f = await fixture();
    const { base } = await f.serve({ streams: { perKey: 2 } });
    const url = `${base}/api/stream?futures=au_electricity&type=trade`;
    const first = await f.connect(url).started();
    const second = await f.connect(url).started();
    expect([first.status, second.status]).toEqual([200, 200]);
    const third = await f.connect(url).started();
    await third.until('the refusal', (c) => c.ended);
    expect(third.status).toBe(429);
    expect(third.body).toContain('rate-limited');
    // the streams' own reconnection hint (2 s by default), as every 429 carries one
    expect(third.headers['retry-after']).toBe('2');
    // Another key is not affected.
    const other = await f.connect(`${base}/api/stream?publications=1`, {}, f.keys.end_of_day).started();
    expect(other.status).toBe(200);
    first.destroy();
    await waitFor('a freed slot', async () => {
      const again = await f.connect(url).started();
      if (again.status === 200) return true;
      again.destroy();
      return false;
    });
  });
});

describe('GET /api/stream: content', () => {
  it('sends the day so far, then live events, each the record the ticker and messages return', async () => {
    const f = await fixture();
    const { app, base } = await f.serve();
    const selection: MarketSelection = {
      market: 'au_electricity',
      ticker: new Set(['book', 'trade', 'settle']),
      messages: new Set(['message_board', 'custom_market']),
    };
    const client = await f
      .connect(
        `${base}/api/stream?market=au_electricity&type=book,trade,settle&messages=message_board,custom_market`,
      )
      .started();
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(client.headers['cache-control']).toBe('no-store');
    const morning = await exportedEvents(f.store, LIVE, selection);
    await client.until('the morning', (c) => c.events.length >= morning.length);
    expect(client.events).toEqual(morning);

    await f.ingestRest(3);
    const day = await exportedEvents(f.store, LIVE, selection);
    expect(day.length).toBeGreaterThan(morning.length);
    await client.until('the whole day', (c) => c.events.length >= day.length);
    expect(client.events).toEqual(day);
    expect(client.retries[0]).toBeGreaterThan(0);

    // The same records as the operations: the day's ticker and the messages, as multisets.
    const auth = { authorization: `Bearer ${f.keys.historical}` };
    const ticker: unknown[] = [];
    for (const kind of ['futures', 'options']) {
      const answer = await app.inject({
        url: `/api/ticker?${kind}=au_electricity&date=${LIVE}`,
        headers: auth,
      });
      ticker.push(...(answer.json() as { data: unknown[] }).data);
    }
    const streamed = (kinds: string[]) =>
      client.events
        .filter((event) => kinds.includes(event.event))
        .map((event) => event.data)
        .sort();
    expect(ticker.length).toBeGreaterThan(100);
    expect(streamed(['book', 'trade', 'settle'])).toEqual(
      ticker.map((record) => JSON.stringify(record)).sort(),
    );
    for (const type of ['message_board', 'custom_market']) {
      const answer = await app.inject({
        url: `/api/messages?market=au_electricity&type=${type}`,
        headers: auth,
      });
      const records = (answer.json() as { data: unknown[] }).data.map((record) => JSON.stringify(record));
      expect(records.length).toBeGreaterThan(0);
      expect(streamed([type])).toEqual(records.sort());
    }
    const ids = client.events.map((event) => event.id ?? '');
    expect(ids.every((id, i) => i === 0 || (ids[i - 1] ?? '') < id)).toBe(true);
    expect(ids[0]).toMatch(/^20250228-\d{6}$/);
    expect(await metric(app, 'gridquote_streams_open')).toBe(1);
    expect(await metric(app, 'gridquote_stream_events_sent_total')).toBe(day.length);
  });

  it('starts from a time with from=, and narrows by code and type', async () => {
    const f = await fixture();
    const { base } = await f.serve();
    const times = new Map(
      f.live.map((event) => [`${event.date}-${String(event.seq).padStart(6, '0')}`, event.time]),
    );
    const since = (events: ReceivedEvent[]) =>
      events.filter((event) => (times.get(event.id ?? '') ?? '') >= '101500');
    const trades: MarketSelection = { ...FUTURES, ticker: new Set(['trade']) };
    const expected = since(await exportedEvents(f.store, LIVE, trades));
    expect(expected.length).toBeGreaterThan(0);
    const client = await f
      .connect(`${base}/api/stream?futures=au_electricity&type=trade&from=101500`)
      .started();
    await client.until('the trades since 10:15', (c) => c.events.length >= expected.length);
    expect(client.events).toEqual(expected);

    // An initial code (product and month, any year) narrows like the ticker's.
    const code = (JSON.parse(expected[0]?.data ?? '{}') as { code: string }).code;
    const initial = code.slice(0, 3);
    const narrowed = expected.filter((event) => event.data.includes(`"code":"${initial}`));
    const byCode = await f.connect(`${base}/api/stream?futures=${initial}&type=trade&from=101500`).started();
    await byCode.until('the trades of one initial code', (c) => c.events.length >= narrowed.length);
    expect(byCode.events).toEqual(narrowed);
    expect(narrowed.length).toBeLessThan(expected.length);
  });
});

describe('GET /api/stream: the request log and metrics', () => {
  it('writes one request line and counts one request when a stream ends, as for any operation', async () => {
    const f = await fixture();
    const output: string[] = [];
    const { app, base } = await f.serve({ logger: { level: 'info', stream: logInto(output) } });
    const counted = () => metric(app, 'gridquote_http_requests_total{operation="stream",status="200"}');
    const before = await counted();
    const client = await f.connect(`${base}/api/stream?futures=au_electricity&type=trade`).started();
    await client.until('an event', (c) => c.events.length > 0);
    const lines = () =>
      parsedLines<{
        msg: string;
        operation: string;
        status: number;
        keyId: string;
        durationMs: number;
        bytes: null;
      }>(output).filter((line) => line.msg === 'request' && line.operation === 'stream');
    expect(lines()).toEqual([]);
    client.destroy();
    await waitFor("the stream's request line", async () => lines().length === 1);
    expect(lines()[0]).toMatchObject({ status: 200, keyId: f.keys.historicalId, bytes: null });
    expect(lines()[0]?.durationMs).toBeGreaterThan(0);
    expect((await counted()) - (Number.isNaN(before) ? 0 : before)).toBe(1);
  });
});

describe('GET /api/stream: resume', () => {
  it('reassembles the day exactly when a client drops at random points, across server restarts', async () => {
    const f = await fixture();
    const random = seeded(20250228);
    let server = await f.serve();
    const received: ReceivedEvent[] = [];
    let lastId: string | undefined;
    let parts = 8;
    const { rest } = f;
    const size = Math.ceil(rest.length / parts);
    let restarts = 0;
    for (let round = 0; round < 60 && (parts > 0 || round < 4); round++) {
      const headers: Record<string, string> = lastId === undefined ? {} : { 'last-event-id': lastId };
      const client = await f.connect(`${server.base}/api/stream?futures=au_electricity`, headers).started();
      expect(client.status).toBe(200);
      const want = 1 + random(400);
      const expectedNow = (await exportedEvents(f.store, LIVE, FUTURES)).length;
      await client.until(
        'some events',
        (c) => c.events.length >= Math.min(want, expectedNow - received.length),
      );
      if (random(2) === 0 && parts > 0) {
        // Commit while the client is still connected: it gets some of it live before the cut.
        await ingestEvents(f.store.writer, rest.slice((8 - parts) * size, (9 - parts) * size));
        parts -= 1;
      }
      client.destroy();
      received.push(...client.events);
      lastId = client.lastId ?? lastId;
      if (random(6) === 0) {
        await server.app.close();
        server = await f.serve();
        restarts += 1;
      }
      if (random(3) === 0 && parts > 0) {
        await ingestEvents(f.store.writer, rest.slice((8 - parts) * size, (9 - parts) * size));
        parts -= 1;
      }
    }
    while (parts > 0) {
      await ingestEvents(f.store.writer, rest.slice((8 - parts) * size, (9 - parts) * size));
      parts -= 1;
    }
    const day = await exportedEvents(f.store, LIVE, FUTURES);
    const last = await f.connect(
      `${server.base}/api/stream?futures=au_electricity`,
      lastId === undefined ? {} : { 'last-event-id': lastId },
    );
    await last.until('the rest of the day', (c) => received.length + c.events.length >= day.length);
    received.push(...last.events);
    expect(restarts).toBeGreaterThan(0);
    expect(received.length).toBe(day.length);
    expect(received).toEqual(day);
  });

  it('resumes from an event of the previous trading day: the rest of that day, then the current one', async () => {
    const f = await fixture();
    const { base } = await f.serve();
    const previous = await exportedEvents(f.store, PREVIOUS, FUTURES);
    const today = await exportedEvents(f.store, LIVE, FUTURES);
    const from = previous.at(-4)?.id ?? '';
    const client = await f
      .connect(`${base}/api/stream?futures=au_electricity`, { 'last-event-id': from })
      .started();
    await client.until('the rest and today', (c) => c.events.length >= 3 + today.length);
    expect(client.events).toEqual([...previous.slice(-3), ...today]);
  });

  it('ends with an error event, not silence, for an id it cannot resume from', async () => {
    const f = await fixture();
    const { base } = await f.serve();
    const older = (await exportedEvents(f.store, '20250226', FUTURES))[0]?.id ?? '';
    const cases: [string, string][] = [
      ['not-an-id', 'bad-request'],
      [older.replace('-', '-0'), 'bad-request'],
      ['20250228-999999', 'event-id-unavailable'],
      ['20250303-000001', 'event-id-unavailable'],
      [older, 'event-id-unavailable'],
    ];
    for (const [id, code] of cases) {
      const client = await f
        .connect(`${base}/api/stream?futures=au_electricity`, { 'last-event-id': id })
        .started();
      await client.until(`the end after ${id}`, (c) => c.ended);
      expect(client.status).toBe(200);
      expect(client.events.map((event) => event.event)).toEqual(['error']);
      const problem = JSON.parse(client.events[0]?.data ?? '{}') as { type: string; detail: string };
      expect(problem.type, id).toBe(`tag:gridquote,2025:problems/${code}`);
      expect(problem.detail).toContain('resume');
    }
    // A non-ASCII id (its UTF-8 bytes on the wire) is quoted as it was sent.
    const sent = 'événement-7';
    const odd = await f
      .connect(`${base}/api/stream?futures=au_electricity`, {
        'last-event-id': Buffer.from(sent).toString('latin1'),
      })
      .started();
    await odd.until('the end', (c) => c.ended);
    expect(JSON.parse(odd.events[0]?.data ?? '{}').detail).toMatch(/^cannot resume after "événement-7": /);
    // The query parameter does the same for clients that cannot send the header.
    const client = await f
      .connect(`${base}/api/stream?futures=au_electricity&last_event_id=20250228-999999`)
      .started();
    await client.until('the end', (c) => c.ended);
    expect(client.events.map((event) => event.event)).toEqual(['error']);
  });
});

describe('GET /api/stream: when the store fails', () => {
  it('is a 503 before the stream starts, and an error event with a retry hint after', async () => {
    const f = await fixture();
    let failing = false;
    const events: EventLog = {
      lines: (query) => f.store.events.lines(query),
      after: async (query) => {
        if (failing) throw new Error('disk I/O error');
        return f.store.events.after(query);
      },
    };
    const { base } = await f.serve({ events, streams: { retryMs: 4_321 } });
    const client = await f.connect(`${base}/api/stream?futures=au_electricity&type=trade`).started();
    const morning = (await exportedEvents(f.store, LIVE, { ...FUTURES, ticker: new Set(['trade']) })).length;
    await client.until('the morning', (c) => c.events.length >= morning);
    failing = true;
    await f.ingestRest();
    await client.until('the end', (c) => c.ended);
    const last = client.events.at(-1);
    expect(last?.event).toBe('error');
    expect(JSON.parse(last?.data ?? '{}')).toMatchObject({
      type: 'tag:gridquote,2025:problems/store-unavailable',
    });
    expect(client.retries.at(-1)).toBe(4_321);

    const refused = await f
      .connect(`${base}/api/stream?futures=au_electricity&last_event_id=20250228-000001`)
      .started();
    await refused.until('the refusal', (c) => c.ended);
    expect(refused.status).toBe(503);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('GET /api/stream: another process commits', () => {
  it('pushes what another connection to the same SQLite file commits', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'gridquote-stream-'));
    const path = join(directory, 'market.db');
    const seededFile = seededStore({ days: 1, until: PREVIOUS, path });
    const live = seededFile.simulator.simulateDay(LIVE);
    const key = createApiKey({ level: 'historical', now: NOW });
    await seededFile.store.keys.insertKey(key.record);
    await seededFile.store.close();
    const served = openSqliteStore(path);
    const writer = openSqliteStore(path);
    const app = liveApp(served);
    try {
      const base = await app.listen({ port: 0, host: '127.0.0.1' });
      const client = new SseClient(`${base}/api/stream?futures=au_electricity&type=trade`, {
        authorization: `Bearer ${key.key}`,
      });
      await client.started();
      expect(client.status).toBe(200);
      await ingestEvents(writer.writer, live.slice(0, 400));
      await ingestEvents(writer.writer, live.slice(400));
      const expected = await exportedEvents(writer, LIVE, { ...FUTURES, ticker: new Set(['trade']) });
      expect(expected.length).toBeGreaterThan(0);
      await client.until('the trades of the other connection', (c) => c.events.length >= expected.length);
      expect(client.events.filter((event) => event.id?.startsWith(LIVE))).toEqual(expected);
      client.destroy();
    } finally {
      await app.close();
      await served.close();
      await writer.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

describe('GET /api/stream?publications=1', () => {
  it('announces each end-of-day product once, to any access level, and resumes without repeating', async () => {
    const f = await fixture();
    const { base } = await f.serve();
    const client = await f.connect(`${base}/api/stream?publications=1`, {}, f.keys.end_of_day).started();
    expect(client.status).toBe(200);
    const expected = new Map<string, string>();
    for (const event of f.live) {
      let key: string | undefined;
      if (event.type === 'settle' || event.type === 'open_interest') key = event.type;
      if (event.type === 'index') key = event.index;
      if (key !== undefined && !expected.has(key))
        expected.set(key, `${event.date}-${String(event.seq).padStart(6, '0')}`);
    }
    await f.ingestRest(4);
    await client.until('the publications', (c) =>
      c.events.some((event) => event.data.includes('"published":"npi"')),
    );
    const published = client.events.map((event) => JSON.parse(event.data) as Record<string, unknown>);
    expect(client.events.every((event) => event.event === 'publication')).toBe(true);
    expect(new Set(published.map((record) => record.published))).toEqual(
      new Set(['settlement', 'open_interest', 'epi', 'npi']),
    );
    // Once per (date, market, product), every one of the live day.
    const keysSeen = published.map((record) => `${record.date} ${record.market ?? ''} ${record.published}`);
    expect(new Set(keysSeen).size).toBe(keysSeen.length);
    expect(published.every((record) => record.date === LIVE)).toBe(true);
    const electricity = published.find(
      (record) => record.market === 'au_electricity' && record.published === 'settlement',
    );
    expect(electricity?.operations).toEqual(['data', 'tradelog', 'datamine']);
    // The first settlement's announcement carries the id of the day's first settle event.
    expect(client.events.find((event) => event.data.includes('"settlement"'))?.id).toBe(
      expected.get('settle'),
    );

    // The same rule as the operations' default days: a market's day counts as published exactly
    // when the store says so (publishedDates), for every market and both close publications.
    for (const market of MARKET_CODES) {
      for (const publication of ['settlement', 'open_interest'] as const) {
        const announced = published.some(
          (record) => record.market === market && record.published === publication,
        );
        const dates = await f.store.reader.publishedDates({ market, publication });
        expect(dates.includes(LIVE), `${market} ${publication}`).toBe(announced);
      }
    }

    const first = client.events[0]?.id ?? '';
    const resumed = await f
      .connect(`${base}/api/stream?publications=1`, { 'last-event-id': first }, f.keys.end_of_day)
      .started();
    await resumed.until('the rest', (c) => c.events.length >= client.events.length - 1);
    expect(resumed.events).toEqual(client.events.slice(1));
  });
});

/**
 * Commits batches of 4,000-character message_board messages of au_electricity until the app
 * has dropped a slow stream (or the batches run out); how many messages that took.
 */
async function flood(
  store: MarketStore,
  app: FastifyInstance,
  { batches, perBatch }: { batches: number; perBatch: number },
): Promise<number> {
  const text = 'x'.repeat(4_000);
  let seq = 900_000;
  for (let batch = 0; batch < batches; batch++) {
    const events: FeedEvent[] = Array.from({ length: perBatch }, () => ({
      type: 'message',
      date: LIVE,
      seq: seq++,
      time: '235900',
      market: 'au_electricity',
      board: 'message_board',
      text,
    }));
    await ingestEvents(store.writer, events);
    if ((await metric(app, 'gridquote_streams_dropped_slow_total')) === 1) break;
  }
  return seq - 900_000;
}

describe('GET /api/stream: bounds', () => {
  it('lets go of a client that stops reading, with bounded queued bytes', async () => {
    const f = await fixture();
    const queueBytes = 65_536;
    const { app, base } = await f.serve({ streams: { queueBytes } });
    const selection: MarketSelection = {
      market: 'au_electricity',
      ticker: new Set(),
      messages: new Set(['message_board']),
    };
    const morning = await exportedEvents(f.store, LIVE, selection);
    const client = await f
      .connect(`${base}/api/stream?market=au_electricity&messages=message_board`)
      .started();
    await client.until('the morning', (c) => c.events.length >= morning.length);
    // messages without type: the messages only, no ticker events.
    expect(client.events).toEqual(morning);
    client.pause();
    const ingested = await flood(f.store, app, { batches: 80, perBatch: 250 });
    await waitFor(
      'the dropped stream',
      async () => (await metric(app, 'gridquote_streams_dropped_slow_total')) === 1,
    );
    await waitFor('the closed stream', async () => (await metric(app, 'gridquote_streams_open')) === 0);
    // Let go long before the 80 MB the loop could ingest: what the socket buffers hold plus the
    // bound, not what the feed produces (on loopback it is the first 1 MB batch).
    expect(ingested).toBeLessThanOrEqual(20 * 250);
  });

  it("ends a slow reader's stream with its error event right behind what the socket holds, not after its backlog", async () => {
    const f = await fixture();
    const queueBytes = 1_048_576;
    const { app, base } = await f.serve({ streams: { queueBytes } });
    const sockets: Socket[] = [];
    app.server.on('connection', (socket: Socket) => sockets.push(socket));
    const client = await f
      .connect(`${base}/api/stream?market=au_electricity&messages=message_board`)
      .started();
    await client.until('live', (c) => c.events.length > 0);
    client.pause();
    await flood(f.store, app, { batches: 400, perBatch: 25 });
    expect(await metric(app, 'gridquote_streams_dropped_slow_total')).toBe(1);
    // In the server's own buffers ahead of the final event: the write-ahead (64 KiB) and one batch
    // (25 messages, about 100 KB), not the 1 MiB backlog that was dropped.
    const buffered = Math.max(...sockets.map((socket) => socket.writableLength));
    expect(buffered).toBeLessThan(64 * 1024 + 110_000 + 1_000);
    client.resume();
    await client.until('the end', (c) => c.ended);
    const last = client.events.at(-1);
    expect(last?.event).toBe('error');
    expect(JSON.parse(last?.data ?? '{}')).toMatchObject({ status: 503 });
    expect(last?.data).toContain('slow-consumer');
  });

  it('closes streams at shutdown with a retry hint, without waiting for them', async () => {
    const f = await fixture();
    const { app, base } = await f.serve({ streams: { retryMs: 1_234 } });
    const client = await f.connect(`${base}/api/stream?futures=au_electricity&type=trade`).started();
    await client.until('some events', (c) => c.events.length > 0);
    // Without a grace cut, close() would wait for the stream forever: it returns because the stream ended.
    await app.close();
    await client.until('the end', (c) => c.ended);
    expect(client.retries.at(-1)).toBe(1_234);
    expect(client.comments).toContain('server shutting down');
  });

  it('sends heartbeat comments while nothing happens, which keep it past the idle and request timeouts', async () => {
    const f = await fixture();
    const limits = { ...DEFAULT_HTTP_LIMITS, requestTimeoutMs: 150, idleTimeoutMs: 150 };
    const { base } = await f.serve({ limits, streams: { heartbeatMs: 20 } });
    const client = await f.connect(`${base}/api/stream?futures=au_electricity&type=settle`).started();
    const started = Date.now();
    await client.until(
      'heartbeats for longer than both timeouts',
      (c) => Date.now() - started > 600 && c.comments.length >= 10,
    );
    expect(client.ended).toBe(false);
    expect(client.comments.every((comment) => comment === 'heartbeat')).toBe(true);
  });
});

describe('GET /api/stream/token', () => {
  it('sends no heartbeat while events flow, and heartbeats again once they stop', async () => {
    const f = await fixture();
    const { base } = await f.serve({ streams: { heartbeatMs: 400 } });
    const client = await f.connect(`${base}/api/stream?market=au_electricity`).started();
    await client.until('the morning', (c) => c.events.length > 0);
    const quiet = client.comments.length;
    const morning = client.events.length;
    // Commits of the market every few ms for about three heartbeat periods.
    const started = Date.now();
    const size = Math.ceil(f.rest.length / 100);
    for (let i = 0; i < f.rest.length && Date.now() - started < 1_200; i += size) {
      await ingestEvents(f.store.writer, f.rest.slice(i, i + size));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(client.events.length).toBeGreaterThan(morning);
    expect(client.comments.length).toBe(quiet);
    await client.until('a heartbeat after the events stop', (c) => c.comments.length > quiet);
    expect(client.comments.slice(quiet).every((comment) => comment === 'heartbeat')).toBe(true);
  });

  it('opens a stream without the Authorization header, and never logs the token', async () => {
    const f = await fixture();
    const lines: string[] = [];
    const { app, base } = await f.serve({
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
    });
    const issued = await app.inject({
      url: '/api/stream/token',
      headers: { authorization: `Bearer ${f.keys.historical}` },
    });
    expect(issued.statusCode).toBe(200);
    expect(issued.headers['cache-control']).toBe('no-store');
    const { token, expires_in } = issued.json() as { token: string; expires_in: string };
    expect(expires_in).toBe('600');
    expect(token).toMatch(/^gqs_/);
    expect((await app.inject({ url: '/api/stream/token' })).statusCode).toBe(401);

    const client = await f
      .connect(`${base}/api/stream?futures=au_electricity&type=trade&token=${token}`, {}, null)
      .started();
    expect(client.status).toBe(200);
    await client.until('some events', (c) => c.events.length > 0);
    // One character of the MAC changed: never the token itself.
    const forged = `${token.slice(0, -2)}${token.at(-2) === 'A' ? 'B' : 'A'}${token.at(-1)}`;
    for (const bad of [forged, 'gqs_nothing', `gqs_${f.keys.historicalId}_0000000001_${token.slice(-22)}`]) {
      const refused = await f
        .connect(`${base}/api/stream?futures=au_electricity&token=${bad}`, {}, null)
        .started();
      await refused.until('the refusal', (c) => c.ended);
      expect(refused.status, bad).toBe(401);
    }
    await f.store.keys.revokeKey(f.keys.historicalId, NOW.toISOString());
    const revoked = await f
      .connect(`${base}/api/stream?futures=au_electricity&token=${token}`, {}, null)
      .started();
    await revoked.until('the refusal', (c) => c.ended);
    expect(revoked.status).toBe(401);

    await app.close();
    await waitFor('the stream log line', () =>
      lines.some((line) => line.includes('"operation":"stream"') && line.includes('"status":200')),
    );
    const logged = lines.join('\n');
    expect(logged).toContain('token=[redacted]');
    expect(logged).not.toContain(token);
    expect(logged).not.toContain(token.slice(-22));
  });
});

describe('GET /api/stream: a key that may no longer stream', () => {
  const refusalOf = (client: SseClient) => {
    const last = client.events.at(-1);
    return { event: last?.event, ...(JSON.parse(last?.data ?? '{}') as { type?: string; detail?: string }) };
  };

  it('ends every stream of a key revoked while it streams, header or token, within seconds; other keys stream on', async () => {
    const f = await fixture();
    const { app, base } = await f.serve();
    const url = `${base}/api/stream?futures=au_electricity`;
    const issued = await app.inject({
      url: '/api/stream/token',
      headers: { authorization: `Bearer ${f.keys.historical}` },
    });
    const { token } = issued.json() as { token: string };
    const byHeader = await f.connect(url).started();
    const byToken = await f.connect(`${url}&token=${token}`, {}, null).started();
    const other = await f.connect(`${base}/api/stream?publications=1`, {}, f.keys.end_of_day).started();
    for (const client of [byHeader, byToken])
      await client.until('the day so far', (c) => c.events.length > 0);

    await f.store.keys.revokeKey(f.keys.historicalId, NOW.toISOString());
    const revokedAt = Date.now();
    for (const client of [byHeader, byToken]) {
      await client.until('the end of the stream', (c) => c.ended);
      expect(refusalOf(client)).toMatchObject({
        event: 'error',
        type: 'tag:gridquote,2025:problems/unauthorized',
        detail: 'the API key has been revoked',
      });
    }
    // The key store's own recheck (within a second) and the registry's look (every second).
    expect(Date.now() - revokedAt).toBeLessThan(4_000);
    expect(other.ended).toBe(false);
  });

  it('ends the stream of a key that expires while it streams', async () => {
    const f = await fixture();
    const expiring = createApiKey({ level: 'historical', now: NOW, expiresOn: '20250228' });
    await f.store.keys.insertKey(expiring.record);
    let now = NOW;
    const { base } = await f.serve({ clock: () => now });
    const client = await f.connect(`${base}/api/stream?futures=au_electricity`, {}, expiring.key).started();
    await client.until('the day so far', (c) => c.events.length > 0);
    expect(client.ended).toBe(false);
    // Midnight in Sydney: the key's last day is over.
    now = new Date('2025-02-28T13:00:01Z');
    await client.until('the end of the stream', (c) => c.ended);
    expect(refusalOf(client)).toMatchObject({ event: 'error', detail: 'the API key expired after 20250228' });
  });
});

describe('the stream in the OpenAPI document', () => {
  it('is described, with the parameters its spec validates, in a valid document', async () => {
    const f = await fixture();
    const { app } = await f.serve();
    const document = (await app.inject({ url: '/api/openapi.json' })).json() as {
      paths: Record<string, { get: { parameters?: { name: string }[]; security?: unknown[] } }>;
      components: { securitySchemes: Record<string, unknown> };
    };
    const stream = document.paths['/api/stream']?.get;
    expect(stream?.parameters?.map((parameter) => parameter.name)).toEqual([
      ...Object.keys(STREAM_SPEC.params),
      'Last-Event-ID',
    ]);
    expect(stream?.security).toEqual([{ apiKey: [] }, { streamToken: [] }]);
    expect(document.paths['/api/stream/token']).toBeDefined();
    expect(document.paths['/api/ticker']).toBeDefined();
    expect(document.components.securitySchemes.streamToken).toMatchObject({
      type: 'apiKey',
      in: 'query',
      name: 'token',
    });
    const result = await new Validator().validate(document as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
  });
});
