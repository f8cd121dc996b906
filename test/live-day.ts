import type { FastifyInstance } from 'fastify';
import type { FeedEvent } from '../src/feed/events.js';
import { type AppOptions, buildApp } from '../src/http/app.js';
import { isSelected, type MarketSelection, StreamItem } from '../src/http/stream/stream-items.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import type { MarketStore } from '../src/store/store.js';
import { seededTestStore } from './fixtures.js';
import type { ReceivedEvent } from './sse-client.js';

/**
 * A live trading day for the event stream tests (GET /api/stream, and the client's stream over
 * it): the seeded history ends on PREVIOUS, the live day LIVE has its morning (until
 * MORNING_END) in the store, and the exchange clock stands at NOW, during that day.
 */
export const PREVIOUS = '20250227';
export const LIVE = '20250228';
export const MORNING_END = '103000';
export const NOW = new Date('2025-02-28T05:00:00Z');
export const UNLIMITED = { perSecond: 0, perMinute: 0 };

/** What `?futures=au_electricity` selects. */
export const FUTURES: MarketSelection = {
  market: 'au_electricity',
  contracts: { instrument: 'future', market: 'au_electricity' },
  ticker: new Set(['book', 'trade', 'settle']),
  messages: new Set(),
};

export interface LiveDayStore {
  /** Of the suites' store kind (fixtures.ts, seededTestStore); the caller closes it. */
  readonly store: MarketStore;
  /** The whole live day, as the simulator made it. */
  readonly live: readonly FeedEvent[];
  /** The events of the live day not yet in the store: what a test ingests while clients listen. */
  readonly rest: readonly FeedEvent[];
}

/** Two seeded days until PREVIOUS, then the morning of LIVE ingested. */
export async function liveDayStore(): Promise<LiveDayStore> {
  const { store, simulator } = await seededTestStore({ days: 2, until: PREVIOUS });
  const live = simulator.simulateDay(LIVE);
  await ingestEvents(
    store.writer,
    live.filter((event) => event.time < MORNING_END),
  );
  return { store, live, rest: live.filter((event) => event.time >= MORNING_END) };
}

/** The app over a store with its event stream (commits reach it), at NOW, without rate limits. */
export function liveApp(store: MarketStore, options: Partial<AppOptions> = {}): FastifyInstance {
  return buildApp({
    reader: store.reader,
    keys: store.keys,
    events: store.events,
    onAppend: (listener) => store.onAppend(listener),
    clock: () => NOW,
    rateLimits: { historical: UNLIMITED, end_of_day: UNLIMITED },
    ...options,
  });
}

/** liveApp listening on a free loopback port; the caller closes the app. */
export async function serveLive(
  store: MarketStore,
  options: Partial<AppOptions> = {},
): Promise<{ app: FastifyInstance; base: string }> {
  const app = liveApp(store, options);
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, base };
}

/** What the store's export holds for a selection on a date: the events a stream must deliver, in order. */
export async function exportedEvents(
  store: MarketStore,
  date: string,
  selection: MarketSelection,
): Promise<ReceivedEvent[]> {
  const expected: ReceivedEvent[] = [];
  for await (const line of store.events.lines({ date })) {
    const seq = (JSON.parse(line) as { seq: number }).seq;
    const item = StreamItem.fromStored(date, { seq, line });
    if (!isSelected(selection, item.event)) continue;
    const frame = item.frame() ?? '';
    expected.push({
      id: item.id,
      event: /event: (.*)\n/.exec(frame)?.[1] ?? '',
      data: /\ndata: (.*)\n/.exec(frame)?.[1] ?? '',
    });
  }
  return expected;
}
