import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastTradingDays } from '../src/domain/calendar.js';
import type { TradeEvent } from '../src/feed/events.js';
import { formatFeedEvent } from '../src/feed/ndjson.js';
import { createSimulator } from '../src/feed/simulator/simulator.js';
import { createApiKey } from '../src/http/api-keys.js';
import { buildApp } from '../src/http/app.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { openStore } from '../src/store/open-store.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from '../src/store/postgres/test-schemas.js';
import type { ApiKeyRecord, MarketStore } from '../src/store/store.js';
import { DEFAULT_NOW } from './api-harness.js';
import { seededStore } from './fixtures.js';
import { waitFor } from './wait-for.js';

/**
 * A late correction (docs/feed-format.md: a past day may receive events at any time) reaches
 * every operation about its day at once, with a new ETag, whether it is ingested by the
 * serving process or by another process writing to the same store (a SQLite file, or a
 * PostgreSQL database). History: 20250226,
 * 20250227 (the past day corrected), 20250228 (the current day, corrected too).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOADER = new URL('./typescript-loader.mjs', import.meta.url).href;
const PAST = '20250227';
const CURRENT = '20250228';

/** Every operation that answers about the corrected days. */
const URLS = [
  `/api/tradelog?market=au_electricity&date=${PAST}`,
  `/api/tradelog?futures=BNH2026&date=${PAST}&format=csv`,
  `/api/data?futures=BNH2026&date=${PAST}`,
  `/api/datamine?type=au-volume&from=20250226&to=${PAST}`,
  `/api/ticker?futures=BNH2026&date=${PAST}&type=trade`,
  '/api/trades?futures=BNH2026',
  '/api/intraday?futures=BNH2026',
];

function lateTrade(date: string, seq: number, volume: number): TradeEvent {
  return {
    type: 'trade',
    date,
    seq,
    time: '101500',
    code: 'BNH2026',
    price: '123.45',
    volume,
    trade_type: 'N',
    block: false,
  };
}

interface Server {
  readonly store: MarketStore;
  readonly app: FastifyInstance;
  readonly key: string;
  get(url: string, etag?: string): Promise<LightMyRequestResponse>;
  /** Every URL answered now: status, ETag, body. */
  snapshot(): Promise<Map<string, LightMyRequestResponse>>;
}

async function serve(store: MarketStore, key: string): Promise<Server> {
  const app = buildApp({
    reader: store.reader,
    keys: store.keys,
    onAppend: (listener) => store.onAppend(listener),
    clock: () => DEFAULT_NOW,
    rateLimits: { historical: { perSecond: 0, perMinute: 0 } },
  });
  await app.ready();
  const get = (url: string, etag?: string) =>
    app.inject({
      url,
      headers: { authorization: `Bearer ${key}`, ...(etag === undefined ? {} : { 'if-none-match': etag }) },
    });
  return {
    store,
    app,
    key,
    get,
    async snapshot() {
      const answers = new Map<string, LightMyRequestResponse>();
      for (const url of URLS) {
        const response = await get(url);
        expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
        answers.set(url, response);
      }
      return answers;
    },
  };
}

/** Every operation of the corrected days answers anew: new bytes, new ETag, no 304 for the old tag. */
async function expectCorrected(server: Server, before: Map<string, LightMyRequestResponse>): Promise<void> {
  for (const [url, old] of before) {
    const etag = String(old.headers.etag);
    const now = await server.get(url, etag);
    expect(now.statusCode, url).toBe(200);
    expect(now.headers.etag, url).not.toBe(etag);
    expect(now.body, url).not.toBe(old.body);
  }
}

describe('a late correction in the serving process', () => {
  let server: Server;
  beforeAll(async () => {
    const { store } = seededStore();
    const created = createApiKey({ level: 'historical', now: DEFAULT_NOW, perSecond: 0, perMinute: 0 });
    await store.keys.insertKey(created.record);
    server = await serve(store, created.key);
  });
  afterAll(async () => {
    await server?.app.close();
    await server?.store.close();
  });

  it('is visible at once in every operation of its day, with a new ETag', async () => {
    const before = await server.snapshot();
    // Cached, and revalidated with a 304 while nothing changed.
    for (const [url, answer] of before) {
      expect((await server.get(url, String(answer.headers.etag))).statusCode, url).toBe(304);
    }
    await ingestEvents(server.store.writer, [
      lateTrade(PAST, 999_901, 777),
      lateTrade(CURRENT, 999_902, 555),
    ]);
    await expectCorrected(server, before);
    const log = (await server.get(URLS[0] ?? '')).json() as { data: { volume: string }[] };
    expect(log.data.some((trade) => trade.volume === '777')).toBe(true);
  });

  it('leaves the answers of untouched days and their ETags alone', async () => {
    const url = '/api/tradelog?market=au_electricity&date=20250226';
    const before = await server.get(url);
    await ingestEvents(server.store.writer, [lateTrade(PAST, 999_903, 3)]);
    expect((await server.get(url, String(before.headers.etag))).statusCode).toBe(304);
  });
});

/**
 * A store another process can write to: a SQLite file, or a PostgreSQL schema (when
 * GRIDQUOTE_TEST_PG_URL is set), seeded with the default history and the key.
 */
interface SharedStore {
  readonly location: string;
  remove(): Promise<void>;
}

async function sqliteFile(key: ApiKeyRecord): Promise<SharedStore> {
  const directory = mkdtempSync(join(tmpdir(), 'gridquote-late-'));
  const path = join(directory, 'market.db');
  const seeded = seededStore({ path });
  await seeded.store.keys.insertKey(key);
  await seeded.store.close();
  return { location: path, remove: async () => rmSync(directory, { recursive: true, force: true }) };
}

async function postgresSchema(key: ApiKeyRecord): Promise<SharedStore> {
  const schemas = testSchemas();
  const location = await schemas.url();
  const store = await openStore(location, { access: 'write', create: true });
  const simulator = createSimulator({ seed: 7 });
  for (const date of lastTradingDays(3, '20250228'))
    await ingestEvents(store.writer, simulator.simulateDay(date));
  await store.keys.insertKey(key);
  await store.close();
  return { location, remove: () => schemas.dropAll() };
}

reportSkipped('a late correction by another process beside a PostgreSQL server');

for (const [kind, shared] of [
  ['SQLite', sqliteFile],
  ['PostgreSQL', postgresSchema],
] as const) {
  describe.skipIf(kind === 'PostgreSQL' && TEST_PG_URL === undefined)(
    `a late correction ingested by another process beside the server (${kind})`,
    () => {
      let store: SharedStore;
      let server: Server;
      beforeAll(async () => {
        const created = createApiKey({ level: 'historical', now: DEFAULT_NOW, perSecond: 0, perMinute: 0 });
        store = await shared(created.record);
        // As gridquote serve opens it: read-only.
        server = await serve(
          await openStore(store.location, { access: 'read', purpose: 'for serving' }),
          created.key,
        );
      });
      afterAll(async () => {
        await server?.app.close();
        await server?.store.close();
        await store?.remove();
      });

      it('reaches every operation of its day as soon as the server sees the commit', async () => {
        const before = await server.snapshot();
        const feed = [lateTrade(PAST, 999_901, 777), lateTrade(CURRENT, 999_902, 555)]
          .map((event) => `${formatFeedEvent(event)}\n`)
          .join('');
        // `gridquote ingest --db <store> -` in its own process, straight from the sources.
        await new Promise<void>((resolve, reject) => {
          const child = execFile(
            process.execPath,
            ['--import', LOADER, join(ROOT, 'src', 'cli', 'main.ts'), 'ingest', '--db', store.location, '-'],
            { env: { PATH: process.env.PATH ?? '' } },
            (error, _stdout, stderr) =>
              error ? reject(new Error(`${error.message}: ${stderr}`)) : resolve(),
          );
          child.stdin?.end(feed);
        });
        const first = URLS[0] ?? '';
        const oldTag = String(before.get(first)?.headers.etag);
        // The server learns of the commit on its next look at the store (SQLite: every 250 ms;
        // PostgreSQL: the commit's NOTIFY).
        await waitFor(
          'the late trade in the cached trade log',
          async () => (await server.get(first, oldTag)).statusCode === 200,
        );
        await expectCorrected(server, before);
      });
    },
  );
}
