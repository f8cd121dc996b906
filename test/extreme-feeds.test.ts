import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { parseContractCode } from '../src/domain/contract.js';
import { MAX_ABS_HUNDREDTHS, MAX_LOTS, MAX_OPEN_INTEREST } from '../src/domain/limits.js';
import type { FeedEvent } from '../src/feed/events.js';
import { createApiKey } from '../src/http/api-keys.js';
import { buildApp } from '../src/http/app.js';
import { ingestEvents } from '../src/ingest/ingest-events.js';
import { MEMORY, openSqliteStore } from '../src/store/sqlite/open-sqlite-store.js';
import type { MarketStore } from '../src/store/store.js';
import { DEFAULT_NOW } from './api-harness.js';

/**
 * No accepted feed may break a query: feeds made of the largest amounts the validator accepts
 * (docs/feed-format.md, "Limits"), each event repeated up to thousands of times so that every
 * sum passes 2^53 (and a day's face value 2^63), are ingested, then every operation is asked
 * about every day and market in JSON and CSV: each answers 2xx or 4xx, never 5xx, and the
 * trade log's summary adds up to its rows exactly.
 */

const DATES = ['20250224', '20250225', '20250226', '20250227', '20250228'];
const MARKETS = ['au_electricity', 'nz_electricity', 'au_gas', 'au_environmental', 'nz_environmental'];
const FUTURES = ['BNZ2028', 'BNH2026', 'HNZ2028', 'PNH2026', 'GNH2026', 'ENF2026', 'EAH2026', 'EBZ2028'];
const OTHER_FUTURES = ['GZJ2025', 'CLZ2026', 'CNZ2026'];
const OPTIONS = ['BNH20260012000C', 'HNZ20280012000P', 'EAH20260010000C'];
const MAX_PRICE = '100000.00';

for (const code of [...FUTURES, ...OTHER_FUTURES, ...OPTIONS]) {
  if (!parseContractCode(code)) throw new Error(`test names an unknown contract ${code}`);
}

const cents = (value: number) => {
  const sign = value < 0 ? '-' : '';
  const magnitude = Math.abs(value);
  return `${sign}${Math.floor(magnitude / 100)}.${String(magnitude % 100).padStart(2, '0')}`;
};

/** Extremes first: fast-check draws constants often, so the bounds are hit in most runs. */
const futuresPrice = fc.oneof(
  fc.constantFrom(MAX_PRICE, `-${MAX_PRICE}`, '0.00'),
  fc.integer({ min: -MAX_ABS_HUNDREDTHS, max: MAX_ABS_HUNDREDTHS }).map(cents),
);
const premium = fc.oneof(
  fc.constantFrom(MAX_PRICE, '0.00'),
  fc.integer({ min: 0, max: MAX_ABS_HUNDREDTHS }).map(cents),
);
const lots = fc.oneof(fc.constantFrom(1, MAX_LOTS), fc.integer({ min: 1, max: MAX_LOTS }));
const text = fc.oneof(
  fc.constantFrom('=1+1', '+SUM(A1)', '-2', '@cmd', '\t=x', '\r=x', 'a,"b"\nc'),
  fc.string({ minLength: 1, maxLength: 60 }),
);

type Template = Omit<FeedEvent, 'date' | 'seq' | 'time'> & { readonly time?: string };

const template: fc.Arbitrary<Template> = fc.oneof(
  fc.record({
    type: fc.constant('trade' as const),
    code: fc.constantFrom(...FUTURES, ...OTHER_FUTURES),
    price: futuresPrice,
    volume: lots,
    trade_type: fc.constantFrom('N' as const, 'Z' as const, 'B' as const, 'E' as const),
    block: fc.boolean(),
  }),
  fc.record({
    type: fc.constant('trade' as const),
    code: fc.constantFrom(...OPTIONS),
    price: premium,
    volume: lots,
    trade_type: fc.constantFrom('N' as const, 'B' as const),
    block: fc.boolean(),
  }),
  fc.record({
    type: fc.constant('open_interest' as const),
    code: fc.constantFrom(...FUTURES, ...OTHER_FUTURES, ...OPTIONS),
    open_interest: fc.oneof(fc.constantFrom(0, MAX_OPEN_INTEREST), fc.nat({ max: MAX_OPEN_INTEREST })),
  }),
  fc.record({
    type: fc.constant('settle' as const),
    code: fc.constantFrom(...FUTURES, ...OTHER_FUTURES),
    settle: futuresPrice,
    published_at: fc.constant(1_740_000_000),
    time: fc.constant('160000'),
  }),
  fc.record({
    type: fc.constant('settle' as const),
    code: fc.constantFrom(...OPTIONS),
    settle: premium,
    published_at: fc.constant(1_740_000_000),
    implied_volatility: fc.constantFrom('0.01', MAX_PRICE),
    time: fc.constant('160000'),
  }),
  fc.record({
    type: fc.constant('book' as const),
    code: fc.constantFrom(...FUTURES),
    bid: futuresPrice,
    bid_size: lots,
    ask: futuresPrice,
    ask_size: lots,
  }),
  fc.record({
    type: fc.constant('message' as const),
    market: fc.constantFrom(...MARKETS),
    board: fc.constantFrom('message_board' as const, 'registered_trades' as const),
    text,
  }),
  fc.record({
    type: fc.constant('custom_market' as const),
    market: fc.constantFrom(...MARKETS),
    contract: text,
    net: futuresPrice,
    size: fc.oneof(fc.constantFrom(0, MAX_LOTS), fc.nat({ max: MAX_LOTS })),
    legs: fc.array(fc.record({ price: futuresPrice, ratio: futuresPrice }), { minLength: 1, maxLength: 6 }),
  }),
  fc.record({
    type: fc.constant('index' as const),
    index: fc.constantFrom('epi' as const, 'npi' as const),
    year: fc.constantFrom(2000, 2026, 2099),
    value: futuresPrice,
  }),
) as fc.Arbitrary<Template>;

/** A template, the day it goes to, and how often it repeats (enough to pass 2^53 in sums). */
const part = fc.record({
  template,
  date: fc.constantFrom(...DATES),
  repeat: fc.oneof(fc.constantFrom(1, 3000), fc.integer({ min: 1, max: 3000 })),
});

function expand(parts: readonly { template: Template; date: string; repeat: number }[]): FeedEvent[] {
  const seqs = new Map<string, number>();
  const events: FeedEvent[] = [];
  for (const {
    template: { time = '110000', ...fields },
    date,
    repeat,
  } of parts) {
    for (let index = 0; index < repeat; index += 1) {
      const seq = (seqs.get(date) ?? 0) + 1;
      seqs.set(date, seq);
      events.push({ ...fields, date, seq, time } as FeedEvent);
    }
  }
  return events;
}

function urls(): string[] {
  const list = ['/api/datamine?type=au-volume', '/api/datamine?type=nz-volume', '/api/datamine?type=au-oi'];
  list.push(`/api/datamine?type=au-volume&from=${DATES[0]}&to=${DATES[4]}`);
  for (const market of MARKETS) {
    list.push(`/api/trades?market=${market}`, `/api/intraday?futures=${market}`);
    for (const type of ['message_board', 'registered_trades', 'custom_market'])
      list.push(`/api/messages?market=${market}&type=${type}`);
    for (const date of DATES) {
      list.push(`/api/tradelog?market=${market}&date=${date}`, `/api/data?futures=${market}&date=${date}`);
      list.push(`/api/ticker?futures=${market}&date=${date}`);
    }
  }
  for (const date of DATES) {
    list.push(`/api/datamine?type=au-oi&date=${date}`, `/api/epi?date=${date}`, `/api/npi?date=${date}`);
    list.push(
      `/api/data?options=au_electricity&date=${date}`,
      `/api/ticker?options=au_electricity&date=${date}`,
    );
    list.push(`/api/tradelog?options=BNH&date=${date}`);
  }
  list.push('/api/intraday?options=au_electricity', '/api/trades?options=au_electricity');
  return list;
}

const toCents = (decimal: string) => BigInt(decimal.replace('.', ''));

async function withApp(
  events: readonly FeedEvent[],
  check: (app: FastifyInstance, key: string) => Promise<void>,
) {
  const store: MarketStore = openSqliteStore(MEMORY);
  const app = buildApp({ reader: store.reader, keys: store.keys, clock: () => DEFAULT_NOW });
  try {
    await ingestEvents(store.writer, events);
    const created = createApiKey({ level: 'historical', now: DEFAULT_NOW, perSecond: 0, perMinute: 0 });
    await store.keys.insertKey(created.record);
    await check(app, created.key);
  } finally {
    await app.close();
    await store.close();
  }
}

async function expectNoServerError(app: FastifyInstance, key: string): Promise<void> {
  for (const url of urls()) {
    for (const accept of ['application/json', 'text/csv']) {
      const response = await app.inject({ url, headers: { authorization: `Bearer ${key}`, accept } });
      expect(response.statusCode, `${url} (${accept}): ${response.body.slice(0, 200)}`).toBeLessThan(500);
      if (response.statusCode !== 200 || accept !== 'application/json') continue;
      const body = response.json() as Record<string, unknown>;
      if (url.startsWith('/api/tradelog?market=')) expectTradeLogAddsUp(body);
    }
  }
}

/** The summary is the exact sum of the rows, whatever their size. */
function expectTradeLogAddsUp(body: Record<string, unknown>): void {
  const rows = body.data as { volume: string; face_value?: string }[];
  const summary = body.summary as { volume: string; face_value: string; trades: string };
  expect(summary.trades).toBe(String(rows.length));
  expect(BigInt(summary.volume)).toBe(rows.reduce((sum, row) => sum + BigInt(row.volume), 0n));
  const face = rows.reduce((sum, row) => sum + (row.face_value ? toCents(row.face_value) : 0n), 0n);
  expect(toCents(summary.face_value)).toBe(face);
}

describe('extreme feeds', () => {
  it('the feeds that broke queries before the limits, at the limits now: every operation answers', async () => {
    const maxTrade = (date: string, seq: number): FeedEvent => ({
      type: 'trade',
      date,
      seq,
      time: '110000',
      code: 'BNZ2028',
      price: MAX_PRICE,
      volume: MAX_LOTS,
      trade_type: 'N',
      block: false,
    });
    const events: FeedEvent[] = [];
    // 5,000 maximal trades a day pass 2^63 millis of face value in one datamine cell
    for (const date of DATES) for (let seq = 1; seq <= 5000; seq += 1) events.push(maxTrade(date, seq));
    events.push({
      type: 'open_interest',
      date: DATES[4] as string,
      seq: 5001,
      time: '160000',
      code: 'BNZ2028',
      open_interest: MAX_OPEN_INTEREST,
    });
    await withApp(events, async (app, key) => {
      await expectNoServerError(app, key);
      const get = (url: string) => app.inject({ url, headers: { authorization: `Bearer ${key}` } });
      const volume = (await get(`/api/datamine?type=au-volume&from=${DATES[0]}&to=${DATES[4]}`)).json();
      const face = 25_000n * BigInt(MAX_LOTS) * 100_000n * 2208n;
      expect(volume.data.faceValue.nsw.baseQuarterFutures).toBe(String(face));
      expect(volume.data.mwh.nsw.total).toBe(String(25_000n * BigInt(MAX_LOTS) * 2208n));
      const log = (await get(`/api/tradelog?market=au_electricity&date=${DATES[0]}`)).json();
      expect(log.summary.face_value).toBe(`${5000n * BigInt(MAX_LOTS) * 100_000n * 2208n}.00`);
      const oi = (await get(`/api/datamine?type=au-oi&date=${DATES[4]}`)).json();
      expect(oi.data.openInterest.nsw.total).toBe(String(MAX_OPEN_INTEREST));
    });
  }, 60_000);

  it('every operation answers 2xx or 4xx over any feed of extreme amounts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(part, { minLength: 1, maxLength: 6 }), async (parts) => {
        await withApp(expand(parts), expectNoServerError);
      }),
      { numRuns: 12, interruptAfterTimeLimit: 60_000 },
    );
  }, 120_000);
});
