import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, expectCsv, expectJson, expectProblem, type Harness } from '../../test/api-harness.js';
import type { FeedEvent } from '../feed/events.js';
import { ingestEvents } from '../ingest/ingest-events.js';
import { ACCESS_LEVELS, type AccessLevel } from '../query/context.js';

/**
 * A live day at the API: 20250228 until noon (books, trades, messages; no settlement, no open
 * interest, no index value yet) after two closed days. Whatever the access level, no operation
 * shows the close it has not seen as 0: the dated operations answer about the latest closed day
 * (docs/api.md, "Which day an answer is about"), intraday shows the previous close, and a
 * historical key naming the live day gets its close empty.
 */
const BEFORE = '20250226';
const CLOSED = '20250227';
const LIVE = '20250228';
const NOON = '120000';

type Row = Record<string, string | null>;

let api: Harness;
let day: FeedEvent[];
beforeAll(async () => {
  api = await createHarness({ days: 2, until: CLOSED });
  day = api.simulator.simulateDay(LIVE);
  await ingestEvents(
    api.store.writer,
    day.filter((event) => event.time < NOON),
  );
});
afterAll(() => api?.close());

async function json(url: string, key: AccessLevel = 'historical') {
  return expectJson(await api.get(url, { key }));
}

/** The futures and options end-of-day records of au_electricity on a date, by code. */
async function records(date: string): Promise<Map<string, Row>> {
  const futures = (await json(`/api/data?futures=au_electricity&date=${date}`)).data as Row[];
  const options = (await json(`/api/data?options=au_electricity&date=${date}`)).data as {
    put: Row[];
    call: Row[];
  };
  return new Map([...futures, ...options.put, ...options.call].map((row) => [String(row.code), row]));
}

const cents = (value: string | null | undefined) => Math.round(Number(value) * 100);

it('holds a live day: trades so far, no close', async () => {
  expect(await api.store.reader.latestDate()).toBe(LIVE);
  expect(day.some((event) => event.type === 'trade' && event.time < NOON)).toBe(true);
  expect(day.filter((event) => event.time < NOON).map((event) => event.type)).not.toContain('settle');
  expect(day.filter((event) => event.time < NOON).map((event) => event.type)).not.toContain('open_interest');
});

describe.each(ACCESS_LEVELS)('a live day for a %s key', (level) => {
  // end_of_day ignores the date: asking for the live day changes nothing
  const dated = (url: string) => (level === 'end_of_day' ? `${url}&date=${LIVE}` : url);

  it('answers end-of-day records of the latest closed day, every close published', async () => {
    for (const code of ['futures=au_electricity', 'futures=BNH2027', 'options=BNH2026']) {
      const body = await json(dated(`/api/data?${code}`), level);
      expect(body.date, code).toBe(CLOSED);
      const data = body.data as Row[] | { put: Row[]; call: Row[] };
      const rows = Array.isArray(data) ? data : [...data.put, ...data.call];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row.date).toBe(CLOSED);
        expect(row.settle, `${row.code} settle`).toMatch(/^\d+\.\d{2}$/);
        expect(row.open_interest, `${row.code} open interest`).toMatch(/^\d+$/);
      }
    }
  });

  it("answers au-oi of the latest day whose open interest is published, the same as that day's", async () => {
    const body = await json('/api/datamine?type=au-oi', level);
    expect(body.date).toBe(CLOSED);
    const named = await json(`/api/datamine?type=au-oi&date=${CLOSED}`);
    expect(body).toEqual(named);
    const openInterest = (body.data as Record<string, Record<string, Row>>).openInterest ?? {};
    const total = Object.values(openInterest).reduce((sum, region) => sum + Number(region.total), 0);
    expect(total).toBeGreaterThan(0);
    if (level === 'end_of_day') {
      const ignored = await api.get(`/api/datamine?type=au-oi&date=${LIVE}`, { key: level });
      expect(expectJson(ignored)).toEqual(named);
      expect(ignored.headers['ignored-parameters']).toBe('date');
    }
  });

  it('answers the trade log, datamine volume and the indices of the latest closed day', async () => {
    expect((await json(dated('/api/tradelog?market=au_electricity'), level)).date).toBe(CLOSED);
    expect((await json(dated('/api/tradelog?futures=BNH'), level)).date).toBe(CLOSED);
    const volume = await json('/api/datamine?type=au-volume', level);
    expect(volume).toMatchObject({ to: CLOSED, tradingDays: 2 });
    expect((await json(dated('/api/epi?format=json'), level)).date).toBe(CLOSED);
    expect((await json(dated('/api/npi?format=json'), level)).date).toBe(CLOSED);
  });

  it("agrees between the default trade log and records: one day, each contract's volume", async () => {
    const log = await json(dated('/api/tradelog?futures=au_electricity'), level);
    const data = await json(dated('/api/data?futures=au_electricity'), level);
    expect(log.date).toBe(data.date);
    const traded = new Map<string, number>();
    for (const trade of log.data as Row[]) {
      const code = String(trade.code).replace(/F$/, '');
      traded.set(code, (traded.get(code) ?? 0) + Number(trade.volume));
    }
    expect(traded.size).toBeGreaterThan(0);
    for (const row of data.data as Row[]) {
      expect(Number(row.volume), String(row.code)).toBe(traded.get(String(row.code)) ?? 0);
    }
  });

  it('shows the previous close in intraday, and null where there is none', async () => {
    const closed = await records(CLOSED);
    const before = await records(BEFORE);
    for (const query of ['futures=au_electricity', 'options=au_electricity']) {
      const body = await json(`/api/intraday?${query}`, level);
      const data = body.data as Row[] | { put: Row[]; call: Row[] };
      const rows = Array.isArray(data) ? data : [...data.put, ...data.call];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        const code = String(row.code);
        const close = closed.get(code);
        const earlier = before.get(code);
        expect(row.settle, code).toBe(close?.settle ?? null);
        expect(row.open_interest, code).toBe(close?.open_interest ?? null);
        expect(row.open_interest_net_change, code).toBe(
          close && earlier ? String(Number(close.open_interest) - Number(earlier.open_interest)) : null,
        );
        expect(row.volume, code).not.toBe('0');
        if (query.startsWith('futures')) {
          const expected =
            row.last === null || row.settle === null ? null : (cents(row.last) - cents(row.settle)) / 100;
          expect(row.net_change === null ? null : Number(row.net_change), code).toBe(expected);
        }
      }
    }
  });

  it('shows the live day in the intraday operations', async () => {
    expect((await json('/api/trades?market=au_electricity', level)).date).toBe(LIVE);
    expect((await json('/api/messages?market=au_electricity&type=message_board', level)).date).toBe(LIVE);
    const ticker = await json('/api/ticker?futures=au_electricity', level);
    expect(ticker.date).toBe(LIVE);
    expect((ticker.data as Row[]).map((row) => row.type)).not.toContain('settle');
  });
});

describe('a historical key naming the live day', () => {
  it('gets its end-of-day records so far, with settle and open interest empty, never 0', async () => {
    const body = await json(`/api/data?futures=au_electricity&date=${LIVE}`);
    expect(body.date).toBe(LIVE);
    const rows = body.data as Row[];
    expect(rows.length).toBeGreaterThan(0);
    const log = (await json(`/api/tradelog?market=au_electricity&date=${LIVE}`)).data as Row[];
    const traded = new Map<string, number>();
    for (const trade of log) {
      const code = String(trade.code).replace(/F$/, '');
      traded.set(code, (traded.get(code) ?? 0) + Number(trade.volume));
    }
    for (const row of rows) {
      expect(row.settle, `${row.code}`).toBe('');
      expect(row.open_interest, `${row.code}`).toBe('');
      // volume is known live: what traded so far, a real 0 when nothing did
      expect(Number(row.volume), `${row.code}`).toBe(traded.get(String(row.code)) ?? 0);
    }
    const csv = expectCsv(await api.get(`/api/data?futures=BNH&date=${LIVE}`, { accept: 'text/csv' }));
    const header = csv[0] ?? [];
    for (const line of csv.slice(1)) {
      expect(line[header.indexOf('settle')]).toBe('');
      expect(line[header.indexOf('open_interest')]).toBe('');
    }
  });

  it('gets its trade log so far', async () => {
    const body = await json(`/api/tradelog?market=au_electricity&date=${LIVE}`);
    const rows = body.data as Row[];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.date === LIVE && String(row.time) < '12:00:00')).toBe(true);
  });

  it('is told that its open interest and index values are not published yet', async () => {
    const oi = expectProblem(await api.get(`/api/datamine?type=au-oi&date=${LIVE}`), 404, 'date');
    expect(oi.nearestDate).toBe(CLOSED);
    expect(oi.detail).toContain(`open interest of au_electricity for ${LIVE} is not published yet`);
    expect(expectProblem(await api.get(`/api/epi?date=${LIVE}`), 404, 'date').nearestDate).toBe(CLOSED);
  });
});

describe('the close of the live day', () => {
  it('makes it the latest available day once published: settlements first, open interest after', async () => {
    const live = await createHarness({ days: 2, until: CLOSED });
    try {
      const events = live.simulator.simulateDay(LIVE);
      const settles = events.filter((event) => event.type !== 'open_interest' && event.type !== 'index');
      await ingestEvents(live.store.writer, settles);
      for (const level of ACCESS_LEVELS) {
        const data = expectJson(await live.get('/api/data?futures=BNH', { key: level }));
        expect(data.date).toBe(LIVE);
        // settled, open interest not out yet: "" rather than 0
        expect((data.data as Row[]).map((row) => row.open_interest)).toEqual(
          (data.data as Row[]).map(() => ''),
        );
        expect(expectJson(await live.get('/api/tradelog?futures=BNH', { key: level })).date).toBe(LIVE);
        expect(expectJson(await live.get('/api/datamine?type=au-oi', { key: level })).date).toBe(CLOSED);
      }
      await ingestEvents(
        live.store.writer,
        events.filter((event) => event.type === 'open_interest' || event.type === 'index'),
      );
      for (const level of ACCESS_LEVELS) {
        const data = expectJson(await live.get('/api/data?futures=BNH', { key: level }));
        expect((data.data as Row[]).every((row) => /^\d+$/.test(String(row.open_interest)))).toBe(true);
        expect(expectJson(await live.get('/api/datamine?type=au-oi', { key: level })).date).toBe(LIVE);
        expect(expectJson(await live.get('/api/epi', { key: level })).date).toBe(LIVE);
      }
    } finally {
      await live.close();
    }
  });
});

describe('a first day without history', () => {
  it('has no previous close in intraday, and no closed day for the dated operations', async () => {
    const fresh = await createHarness({ days: 0, until: CLOSED });
    try {
      const events = fresh.simulator.simulateDay(LIVE);
      await ingestEvents(
        fresh.store.writer,
        events.filter((event) => event.time < NOON),
      );
      for (const level of ACCESS_LEVELS) {
        const intraday = expectJson(await fresh.get('/api/intraday?futures=au_electricity', { key: level }));
        const rows = intraday.data as Row[];
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) {
          expect([row.settle, row.open_interest, row.open_interest_net_change, row.net_change]).toEqual([
            null,
            null,
            null,
            null,
          ]);
        }
        const data = expectProblem(await fresh.get('/api/data?futures=BNH', { key: level }), 404);
        expect(data.detail).toContain(`${LIVE} is still trading`);
        expectProblem(await fresh.get('/api/datamine?type=au-oi', { key: level }), 404);
        expectProblem(await fresh.get('/api/tradelog?market=au_electricity', { key: level }), 404);
      }
    } finally {
      await fresh.close();
    }
  });
});
