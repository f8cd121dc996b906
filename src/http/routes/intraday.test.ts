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

const FUTURES = [
  'code',
  'bid_size',
  'bid',
  'ask_size',
  'ask',
  'high',
  'low',
  'last',
  'net_change',
  'volume',
  'open_interest',
  'open_interest_net_change',
  'settle',
];
const OPTIONS = [
  'code',
  'bid_size',
  'bid',
  'ask_size',
  'ask',
  'high',
  'low',
  'last',
  'volume',
  'open_interest',
  'open_interest_net_change',
  'settle',
  'implied_volatility',
];

type Row = Record<string, string | null>;

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 3 });
});
afterAll(() => api?.close());

async function intraday(query: string, key: 'historical' | 'end_of_day' = 'historical') {
  return expectJson(await api.get(`/api/intraday?${query}`, { key }));
}

function cents(text: string | null | undefined): number {
  return Number((text ?? '').replace('.', ''));
}

describe('GET /api/intraday', () => {
  it.each(['au_electricity', 'BNH', 'BNH2026', 'nz_electricity', 'au_gas'])(
    'answers futures=%s',
    async (code) => {
      const body = await intraday(`futures=${code}`);
      expect(Object.keys(body)).toEqual(['futures', 'data']);
      expect(body.futures).toBe(code);
      const rows = body.data as Row[];
      expect(rows.length).toBeGreaterThan(0);
      for (const row of rows) {
        expect(Object.keys(row)).toEqual(FUTURES);
        for (const value of Object.values(row))
          expect(value === null || typeof value === 'string').toBe(true);
        if (row.last === null) expect(row.net_change).toBeNull();
        else expect(cents(row.net_change)).toBe(cents(row.last) - cents(row.settle));
      }
      const codes = rows.map((row) => row.code ?? '');
      expect([...codes].sort()).toEqual(codes);
    },
  );

  it("shows the previous day's settle and open interest", async () => {
    const rows = (await intraday('futures=BNH')).data as Row[];
    const previous = expectJson(await api.get('/api/data?futures=BNH&date=20250227')).data as Record<
      string,
      string
    >[];
    for (const row of rows) {
      const close = previous.find((record) => record.code === row.code);
      if (close === undefined) continue;
      expect(row.settle).toBe(close.settle);
      expect(row.open_interest).toBe(close.open_interest);
    }
    expect(rows.some((row) => row.last === null && row.high === null)).toBe(true);
  });

  it.each(['au_electricity', 'BNH2026', 'BNH2026C'])('answers options=%s as put and call', async (code) => {
    const body = await intraday(`options=${code}`);
    expect(Object.keys(body)).toEqual(['options', 'data']);
    const { put, call } = body.data as { put: Row[]; call: Row[] };
    expect(Object.keys(body.data as object)).toEqual(['put', 'call']);
    expect(call.length).toBeGreaterThan(0);
    if (code.endsWith('C')) expect(put).toEqual([]);
    for (const row of [...put, ...call]) expect(Object.keys(row)).toEqual(OPTIONS);
  });

  it.each(['futures=au_electricity', 'options=BNH', 'futures=CNZ'])(
    'carries the same rows in JSON and CSV (null as an empty cell): %s',
    async (query) => {
      const body = await intraday(query);
      const records = query.startsWith('options') ? flattenPutCall(body.data) : (body.data as Row[]);
      const csv = expectCsv(await api.get(`/api/intraday?${query}`, { accept: 'text/csv' }));
      expectSameRecords(records, csv, query.startsWith('options') ? OPTIONS : FUTURES);
    },
  );

  it.each([
    ['a malformed code', 'futures=123', 'futures'],
    ['options outside electricity', 'options=nz_environmental', 'options'],
    ['a date (not a parameter here)', 'futures=BNH&date=20250227', 'date'],
    ['no code', '', 'futures|options'],
  ])('refuses %s with 400', async (_name, query, parameter) => {
    expectProblem(await api.get(`/api/intraday?${query}`), 400, parameter);
  });

  it('refuses a code naming no listed contract with 404', async () => {
    expect(expectProblem(await api.get('/api/intraday?options=EAH20260099000C'), 404).detail).toContain(
      'EAH20260099000C',
    );
  });

  it('answers the same under end_of_day access', async () => {
    expect(await intraday('futures=BNH', 'end_of_day')).toEqual(await intraday('futures=BNH'));
  });
});
