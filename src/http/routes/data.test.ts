import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectCsv,
  expectJson,
  expectProblem,
  expectSameRecords,
  flattenPutCall,
  type Harness,
} from '../../../test/api-harness.js';
import { ingestEvents } from '../../ingest/ingest-events.js';

const FUTURES = [
  'code',
  'date',
  'bid_size',
  'bid',
  'ask_size',
  'ask',
  'first',
  'high',
  'low',
  'settle',
  'volume',
  'open_interest',
];
const OPTIONS = [...FUTURES, 'implied_volatility'];

type Row = Record<string, string>;

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 3 });
});
afterAll(() => api?.close());

async function data(query: string, key: 'historical' | 'end_of_day' = 'historical') {
  const response = await api.get(`/api/data?${query}`, { key });
  return { response, body: expectJson(response) };
}

describe('GET /api/data', () => {
  it.each(['au_electricity', 'BNH', 'BNH2026', 'BNH2026F', 'au_gas', 'CNZ'])(
    'answers futures=%s by code',
    async (code) => {
      const { body } = await data(`futures=${code}`);
      expect(Object.keys(body)).toEqual(['futures', 'date', 'data']);
      expect(body).toMatchObject({ futures: code, date: '20250228' });
      const rows = body.data as Row[];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(Object.keys(row)).toEqual(FUTURES);
        expect(row.date).toBe('20250228');
        expect(row.settle).toMatch(/^\d+\.\d{2}$/);
        expect(row.volume).toMatch(/^\d+$/);
        expect(row.open_interest).toMatch(/^\d+$/);
      }
      const codes = rows.map((row) => row.code);
      expect([...codes].sort()).toEqual(codes);
    },
  );

  it("agrees with the trade log: end-of-day volume = the contract's traded lots", async () => {
    const rows = (await data('futures=BNH')).body.data as Row[];
    const log = expectJson(await api.get('/api/tradelog?futures=BNH')).data as Row[];
    for (const row of rows) {
      const lots = log
        .filter((entry) => entry.code === `${row.code}F`)
        .reduce((sum, entry) => sum + Number(entry.volume), 0);
      expect(Number(row.volume), row.code).toBe(lots);
    }
  });

  it.each(['au_electricity', 'BNH', 'BNH2026', 'BNH2026P'])(
    'answers options=%s as put and call',
    async (code) => {
      const { body } = await data(`options=${code}`);
      expect(Object.keys(body)).toEqual(['options', 'date', 'data']);
      const { put, call } = body.data as { put: Row[]; call: Row[] };
      expect(Object.keys(body.data as object)).toEqual(['put', 'call']);
      expect(put.length).toBeGreaterThan(0);
      expect(put.every((row) => row.code?.endsWith('P'))).toBe(true);
      expect(call.every((row) => row.code?.endsWith('C'))).toBe(true);
      if (code.endsWith('P')) expect(call).toEqual([]);
      for (const row of [...put, ...call]) {
        expect(Object.keys(row)).toEqual(OPTIONS);
        expect(row.implied_volatility).toMatch(/^\d+\.\d{2}$/);
      }
    },
  );

  it.each([
    'futures=au_electricity',
    'futures=BNH&date=20250226',
    'options=BNH2026',
    'options=nz_electricity',
  ])('carries the same rows in JSON and CSV (options flat by code): %s', async (query) => {
    const { body } = await data(query);
    const records = query.startsWith('options') ? flattenPutCall(body.data) : (body.data as Row[]);
    const csv = expectCsv(await api.get(`/api/data?${query}`, { accept: 'text/csv' }));
    expectSameRecords(records, csv, query.startsWith('options') ? OPTIONS : FUTURES);
  });

  it('answers a given date', async () => {
    const { body } = await data('futures=BNH&date=20250227');
    expect(body.date).toBe('20250227');
    expect((body.data as Row[]).every((row) => row.date === '20250227')).toBe(true);
  });

  it('defaults to the last settled day while the live day is in progress', async () => {
    const live = await createHarness({ days: 2, until: '20250227' });
    try {
      const day = live.simulator.simulateDay('20250228');
      await ingestEvents(
        live.store.writer,
        day.filter((event) => event.time < '120000'),
      );
      expect(await live.store.reader.latestDate()).toBe('20250228');
      expect((await live.get('/api/data?futures=BNH')).json().date).toBe('20250227');
      expect((await live.get('/api/data?futures=BNH&date=20250228')).json().date).toBe('20250228');
      // Once the day settles, it is the default.
      await ingestEvents(
        live.store.writer,
        day.filter((event) => event.time >= '120000'),
      );
      expect((await live.get('/api/data?futures=BNH')).json().date).toBe('20250228');
    } finally {
      await live.close();
    }
  });

  it.each([
    ['a malformed futures code', 'futures=BNH20', 'futures'],
    ['options outside electricity', 'options=au_gas', 'options'],
    ['both codes', 'futures=BNH&options=BNH', 'options'],
    ['no code', 'date=20250227', 'futures|options'],
    ['an impossible date', 'futures=BNH&date=20250229', 'date'],
  ])('refuses %s with 400', async (_name, query, parameter) => {
    expectProblem(await api.get(`/api/data?${query}`), 400, parameter);
  });

  it('refuses unknown codes and unavailable dates with 404', async () => {
    expect(expectProblem(await api.get('/api/data?futures=ZZZ'), 404).detail).toContain('ZZZ');
    expect(expectProblem(await api.get('/api/data?options=GNH'), 404).detail).toContain('GNH');
    expect(expectProblem(await api.get('/api/data?futures=BNH&date=20250303'), 404, 'date').nearestDate).toBe(
      '20250228',
    );
  });

  it('ignores date under end_of_day access', async () => {
    const { response, body } = await data('futures=BNH&date=20250226', 'end_of_day');
    expect(response.headers['ignored-parameters']).toBe('date');
    expect(body).toEqual((await data('futures=BNH')).body);
  });
});
