import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectCsv,
  expectJson,
  expectProblem,
  expectSameRecords,
  type Harness,
} from '../../../test/api-harness.js';

const ELECTRICITY = ['date', 'time', 'code', 'trade_type', 'volume', 'price', 'hours', 'face_value'];
const OTHER = ['date', 'time', 'code', 'trade_type', 'volume', 'price'];

interface Entry {
  readonly time: string;
  readonly code: string;
  readonly volume: string;
  readonly face_value: string;
  readonly [field: string]: string;
}

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 3 });
});
afterAll(() => api?.close());

async function tradelog(query: string, key: 'historical' | 'end_of_day' = 'historical') {
  const response = await api.get(`/api/tradelog?${query}`, { key });
  const body = expectJson(response);
  return { response, body, summary: body.summary as Entry, data: body.data as Entry[] };
}

/** Half up from millis: cents x tenths of MW, the published face value arithmetic. */
function faceValueCents(entry: Entry, mwTenths: number): number {
  const [whole = '0', fraction = '00'] = entry.price?.split('.') ?? [];
  const millis = Number(entry.volume) * Number(whole + fraction) * Number(entry.hours) * mwTenths;
  return Math.floor((millis + 5) / 10);
}

describe('GET /api/tradelog', () => {
  it('answers a whole electricity market in time order, futures with the F suffix', async () => {
    const { body, data, summary } = await tradelog('market=au_electricity');
    expect(Object.keys(body)).toEqual(['date', 'summary', 'data']);
    expect(body.date).toBe('20250228');
    expect(data.length).toBeGreaterThan(10);
    const times = data.map((entry) => entry.time);
    expect([...times].sort()).toEqual(times);
    for (const entry of data) {
      expect(Object.keys(entry)).toEqual(ELECTRICITY);
      expect(entry.time).toMatch(/^\d\d:\d\d:\d\d$/);
      expect(entry.face_value).toMatch(/^\d+\.\d{2}$/);
      expect(['N', 'Z', 'B', 'E']).toContain(entry.trade_type);
      expect(Number(entry.face_value.replace('.', ''))).toBe(faceValueCents(entry, 10));
    }
    expect(data.some((entry) => /^[A-Z]{3}\d{4}F$/.test(entry.code ?? ''))).toBe(true);
    // Options keep their code as it is.
    expect(data.some((entry) => /^[A-Z]{3}\d{11}[CP]$/.test(entry.code ?? ''))).toBe(true);
    const volume = data.reduce((sum, entry) => sum + Number(entry.volume), 0);
    const face = data.reduce((sum, entry) => sum + Number(entry.face_value?.replace('.', '')), 0);
    const mwhTenths = data.reduce((sum, entry) => sum + Number(entry.volume) * Number(entry.hours) * 10, 0);
    expect(summary).toEqual({
      trades: String(data.length),
      volume: String(volume),
      traded_mwh: String(Math.floor((mwhTenths + 5) / 10)),
      face_value: `${Math.floor(face / 100)}.${String(face % 100).padStart(2, '0')}`,
    });
  });

  it('answers NZ electricity with 0.1 MW per lot', async () => {
    const { data } = await tradelog('market=nz_electricity');
    expect(data.length).toBeGreaterThan(0);
    for (const entry of data)
      expect(Number(entry.face_value?.replace('.', ''))).toBe(faceValueCents(entry, 1));
  });

  it('answers a market outside electricity without hours and face value', async () => {
    const { data, summary } = await tradelog('market=au_gas&date=20250226');
    for (const entry of data) expect(Object.keys(entry)).toEqual(OTHER);
    expect(summary.traded_mwh).toBe('0');
    expect(summary.face_value).toBe('0.00');
    const csv = expectCsv(await api.get('/api/tradelog?market=au_gas&date=20250226&format=csv'));
    expectSameRecords(data, csv, OTHER);
  });

  it.each([
    ['futures', 'BNH', /^BNH\d{4}F$/],
    ['futures', 'BNH2026', /^BNH2026F$/],
    ['futures', 'BNH2026F', /^BNH2026F$/],
    ['options', 'au_electricity', /^[A-Z]{3}\d{11}[CP]$/],
    ['options', 'BNH', /^BNH\d{11}[CP]$/],
  ])('selects %s=%s', async (name, code, pattern) => {
    const { data } = await tradelog(`${name}=${code}`);
    for (const entry of data) expect(entry.code).toMatch(pattern);
  });

  it('answers a listed contract that did not trade with empty data and a zero summary', async () => {
    const listed = await api.store.reader.contracts({ instrument: 'future', market: 'au_electricity' });
    const traded = new Set((await tradelog('market=au_electricity')).data.map((entry) => entry.code));
    const quiet = listed.find((contract) => !traded.has(`${contract.code}F`));
    expect(quiet).toBeDefined();
    if (quiet === undefined) return;
    const { data, summary } = await tradelog(`futures=${quiet.code}`);
    expect(data).toEqual([]);
    expect(summary).toEqual({ trades: '0', volume: '0', traded_mwh: '0', face_value: '0.00' });
  });

  it.each(['market=au_electricity', 'futures=BNH&date=20250227', 'options=au_electricity'])(
    'carries the same rows in JSON and CSV: %s',
    async (query) => {
      const { data } = await tradelog(query);
      expectSameRecords(
        data,
        expectCsv(await api.get(`/api/tradelog?${query}`, { accept: 'text/csv' })),
        ELECTRICITY,
      );
    },
  );

  it('answers a given date and refuses unavailable ones', async () => {
    expect((await tradelog('market=au_electricity&date=20250227')).body.date).toBe('20250227');
    expect(
      expectProblem(await api.get('/api/tradelog?market=au_electricity&date=20250222'), 404, 'date')
        .nearestDate,
    ).toBe('20250226');
  });

  it.each([
    ['two of market, futures, options', 'market=au_gas&futures=GZH', 'market'],
    ['all three', 'market=au_gas&futures=GZH&options=BNH', 'options'],
    ['none', 'date=20250227', 'market|futures|options'],
    ['an unknown market', 'market=eu_power', 'market'],
    ['a malformed code', 'futures=B', 'futures'],
    ['options outside electricity', 'options=au_environmental', 'options'],
    ['a bad date', 'market=au_gas&date=2025022', 'date'],
  ])('refuses %s with 400', async (_name, query, parameter) => {
    expectProblem(await api.get(`/api/tradelog?${query}`), 400, parameter);
  });

  it('refuses an unknown code with 404', async () => {
    expect(expectProblem(await api.get('/api/tradelog?futures=QQH2026'), 404).detail).toContain('QQH2026');
  });

  it('ignores date under end_of_day access (docs/api.md, access levels)', async () => {
    const { response, body } = await tradelog('market=au_electricity&date=20250226', 'end_of_day');
    expect(body.date).toBe('20250228');
    expect(response.headers['ignored-parameters']).toBe('date');
    expect(body).toEqual((await tradelog('market=au_electricity')).body);
  });
});
