import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seededStore } from '../../../test/fixtures.js';
import { type ReceivedEvent, SseClient } from '../../../test/sse-client.js';
import { waitFor } from '../../../test/wait-for.js';
import type { FeedEvent } from '../../feed/events.js';
import { ingestEvents } from '../../ingest/ingest-events.js';
import type { MarketStore } from '../../store/store.js';
import { createApiKey } from '../api-keys.js';
import { type AppOptions, buildApp } from '../app.js';
import { isSelected, type MarketSelection, StreamItem } from './stream-items.js';

/**
 * GET /api/stream over a listening server: the seeded history ends on 20250227 and the test
 * ingests the live day 20250228 while clients listen.
 */
const LIVE = '20250228';
const NOW = new Date('2025-02-28T05:00:00Z');

let store: MarketStore;
let live: FeedEvent[];
let keys: { historical: string; end_of_day: string; historicalId: string };
const apps: FastifyInstance[] = [];
const clients: SseClient[] = [];

beforeAll(async () => {
  const seeded = seededStore({ days: 2, until: '20250227' });
  store = seeded.store;
  live = seeded.simulator.simulateDay(LIVE);
  const historical = createApiKey({ level: 'historical', now: NOW });
  const endOfDay = createApiKey({ level: 'end_of_day', now: NOW });
  await store.keys.insertKey(historical.record);
  await store.keys.insertKey(endOfDay.record);
  keys = { historical: historical.key, end_of_day: endOfDay.key, historicalId: historical.record.id };
  // The live day's morning is in before any client connects.
  await ingestEvents(
    store.writer,
    live.filter((event) => event.time < '103000'),
  );
});

afterEach(() => {
  for (const client of clients.splice(0)) client.destroy();
});

afterAll(async () => {
  for (const app of apps.splice(0)) await app.close();
  await store?.close();
});

async function serve(options: Partial<AppOptions> = {}): Promise<{ app: FastifyInstance; base: string }> {
  const app = buildApp({
    reader: store.reader,
    keys: store.keys,
    events: store.events,
    onAppend: (listener) => store.onAppend(listener),
    clock: () => NOW,
    rateLimits: { historical: { perSecond: 0, perMinute: 0 }, end_of_day: { perSecond: 0, perMinute: 0 } },
    ...options,
  });
  apps.push(app);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base };
}

function connect(url: string, headers: Record<string, string> = {}, key: string | null = keys.historical) {
  const client = new SseClient(url, key === null ? headers : { authorization: `Bearer ${key}`, ...headers });
  clients.push(client);
  return client;
}

/** What the store's export holds for a selection on a date: the events a stream must deliver, in order. */
async function exported(date: string, selection: MarketSelection): Promise<ReceivedEvent[]> {
  const expected: ReceivedEvent[] = [];
  for await (const line of store.events.lines({ date })) {
    const seq = (JSON.parse(line) as { seq: number }).seq;
    const item = StreamItem.fromStored(date, { seq, line });
    if (!isSelected(selection, item.event)) continue;
    const frame = item.frame() ?? '';
    const data = /\ndata: (.*)\n/.exec(frame)?.[1] ?? '';
    const event = /event: (.*)\n/.exec(frame)?.[1] ?? '';
    expected.push({ id: item.id, event, data });
  }
  return expected;
}

const ALL_TICKER = new Set(['book', 'trade', 'settle'] as const);
const NO_MESSAGES = new Set<never>();

/** Ingests the rest of the live day in `parts` commits (some tests want it piece by piece). */
async function ingestRest(from: number, parts = 1): Promise<void> {
  const rest = live.filter((event) => event.time >= '103000').slice(from);
  const size = Math.ceil(rest.length / parts);
  for (let i = 0; i < rest.length; i += size) await ingestEvents(store.writer, rest.slice(i, i + size));
}

describe('GET /api/stream', () => {
  it('refuses before the stream starts with problem+json: no key, bad parameters, end_of_day market data, Accept', async () => {
    const { base } = await serve();
    const cases: [string, Record<string, string>, string | null, number][] = [
      ['/api/stream?futures=au_electricity', {}, null, 401],
      ['/api/stream?futures=au_electricity&market=au_gas', {}, keys.historical, 400],
      ['/api/stream?futures=au_electricity&type=quote', {}, keys.historical, 400],
      ['/api/stream?publications=1&type=book', {}, keys.historical, 400],
      ['/api/stream?futures=au_electricity&from=2500', {}, keys.historical, 400],
      ['/api/stream?futures=ZZH', {}, keys.historical, 404],
      ['/api/stream?futures=au_electricity', {}, keys.end_of_day, 403],
      ['/api/stream?futures=au_electricity', { accept: 'application/json' }, keys.historical, 406],
    ];
    for (const [url, headers, key, status] of cases) {
      const client = await connect(`${base}${url}`, headers, key).started();
      await client.until(`the answer to ${url}`, (c) => c.ended);
      expect(client.status, url).toBe(status);
      expect(client.headers['content-type'], url).toMatch(/^application\/problem\+json/);
      expect((JSON.parse(client.body) as { status: number }).status).toBe(status);
    }
  });

  it('sends the day so far, then live events, each the record the ticker and messages return', async () => {
    const { base } = await serve();
    const selection: MarketSelection = {
      market: 'au_electricity',
      ticker: ALL_TICKER,
      messages: new Set(['message_board', 'custom_market'] as const),
    };
    const client = await connect(
      `${base}/api/stream?market=au_electricity&type=book,trade,settle&messages=message_board,custom_market`,
    ).started();
    expect(client.status).toBe(200);
    expect(client.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    const morning = await exported(LIVE, selection);
    await client.until('the morning', (c) => c.events.length >= morning.length);
    expect(client.events).toEqual(morning);

    await ingestRest(0, 3);
    const day = await exported(LIVE, selection);
    expect(day.length).toBeGreaterThan(morning.length);
    await client.until('the whole day', (c) => c.events.length >= day.length);
    expect(client.events).toEqual(day);
    expect(client.retries[0]).toBeGreaterThan(0);

    // The same records as the operations: the ticker of the day and the messages, as multisets.
    const auth = { authorization: `Bearer ${keys.historical}` };
    const app = apps.at(-1) as FastifyInstance;
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
    expect(streamed(['book', 'trade', 'settle'])).toEqual(
      ticker.map((record) => JSON.stringify(record)).sort(),
    );
    expect(ticker.length).toBeGreaterThan(100);
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
  });
});
