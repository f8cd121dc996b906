import { afterEach, describe, expect, it } from 'vitest';
import type { FeedEvent } from '../../../src/feed/events.js';
import { createApiKey } from '../../../src/http/api-keys.js';
import { STREAM_SPEC } from '../../../src/http/stream/stream-route.js';
import { ingestEvents } from '../../../src/ingest/ingest-events.js';
import type { MarketStore } from '../../../src/store/store.js';
import { exportedEvents, FUTURES, LIVE, liveDayStore, NOW, serveLive } from '../../../test/live-day.js';
import { GridquoteClient } from './client.js';
import { STREAM_PARAMETERS, type StreamEvent } from './stream-events.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** The live day's store (test/live-day.ts) with a historical key. */
async function liveStore(): Promise<{ store: MarketStore; rest: readonly FeedEvent[]; key: string }> {
  const { store, rest } = await liveDayStore();
  cleanup.push(() => store.close());
  const created = createApiKey({ level: 'historical', now: NOW });
  await store.keys.insertKey(created.record);
  return { store, rest, key: created.key };
}

/** The futures events of the live day in the store, with their data parsed as the client parses it. */
async function exported(
  store: MarketStore,
): Promise<{ id: string | undefined; event: string; data: unknown }[]> {
  return (await exportedEvents(store, LIVE, FUTURES)).map((event) => ({
    ...event,
    data: JSON.parse(event.data),
  }));
}

describe('the client stream against GET /api/stream', () => {
  it('sends only parameters the server defines, with the same exclusive group', () => {
    for (const name of STREAM_PARAMETERS) expect(Object.keys(STREAM_SPEC.params)).toContain(name);
    expect(STREAM_SPEC.exactlyOne).toEqual([['futures', 'options', 'market', 'publications']]);
  });

  it('reassembles the day exactly while the server drops its connections and restarts', async () => {
    const { store, rest, key } = await liveStore();
    let server = await serveLive(store);
    cleanup.push(() => server.app.close());
    // The client's base stays the same; a restarted server listens elsewhere, as behind a proxy.
    const PUBLIC = 'http://gridquote.invalid';
    const toCurrent: typeof fetch = (input, init) => fetch(String(input).replace(PUBLIC, server.base), init);
    const client = new GridquoteClient({ baseUrl: PUBLIC, key, fetch: toCurrent });
    let reconnects = 0;
    const events = client
      .stream({ futures: 'au_electricity' }, { reconnectDelayMs: 10, onReconnect: () => reconnects++ })
      [Symbol.asyncIterator]();
    const received: StreamEvent[] = [];
    const readUntil = async (count: number) => {
      while (received.length < count) {
        const next = await events.next();
        if (next.done) throw new Error('the stream ended');
        received.push(next.value);
        // Cut every connection now and then (it may already hold the next events, or not).
        if (received.length % 37 === 0) server.app.server.closeAllConnections();
      }
    };

    const morning = await exported(store);
    expect(morning.length).toBeGreaterThan(100);
    await readUntil(morning.length);
    // Surely a drop: the stream is idle, live, and the next events are committed while it is down.
    server.app.server.closeAllConnections();

    // Live: the rest of the day arrives in commits, across a restart of the server.
    await ingestEvents(store.writer, rest.slice(0, rest.length / 2));
    const half = await exported(store);
    await readUntil(half.length - 20);
    const old = server;
    server = await serveLive(store);
    await old.app.close();
    await ingestEvents(store.writer, rest.slice(rest.length / 2));
    const day = await exported(store);
    await readUntil(day.length);
    await events.return?.(undefined);

    expect(received.map(({ id, event, data }) => ({ id, event, data }))).toEqual(day);
    expect(new Set(received.map((event) => event.id)).size).toBe(received.length);
    // At least the idle drop and the restart were resumed from.
    expect(reconnects).toBeGreaterThanOrEqual(2);
  });

  it('opens a browser stream URL with a token, never with the key', async () => {
    const { store, key } = await liveStore();
    const server = await serveLive(store);
    cleanup.push(() => server.app.close());
    const client = new GridquoteClient({ baseUrl: server.base, key });
    const { token, expires_in } = await client.streamToken();
    expect(Number(expires_in)).toBeGreaterThan(0);
    const url = client.eventSourceUrl({ market: 'au_gas', messages: 'message_board' }, token);
    expect(url).not.toContain(key);
    const response = await fetch(url, { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await response.body?.cancel();
  });
});
