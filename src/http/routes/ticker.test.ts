import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectCsv,
  expectJson,
  expectProblem,
  expectSameRecords,
  type Harness,
} from '../../../test/api-harness.js';

const CSV_COLUMNS = [
  'time',
  'code',
  'type',
  'bid',
  'bid_size',
  'ask',
  'ask_size',
  'price',
  'volume',
  'timestamp_settle',
  'settle',
  'implied_volatility',
];

interface Tick {
  readonly time: string;
  readonly code: string;
  readonly type: string;
  readonly [field: string]: string;
}

let api: Harness;
let exactOption: string;
beforeAll(async () => {
  api = await createHarness({ days: 3 });
  const listed = await api.store.reader.contracts({
    instrument: 'option',
    market: 'au_electricity',
    prefix: 'BNH2026',
  });
  exactOption = listed.find((contract) => contract.optionType === 'C')?.code ?? '';
});
afterAll(() => api?.close());

async function ticker(query: string, key: 'historical' | 'end_of_day' = 'historical') {
  const response = await api.get(`/api/ticker?${query}`, { key });
  const body = expectJson(response);
  return { response, body, data: body.data as Tick[] };
}

describe('GET /api/ticker', () => {
  it.each(['au_electricity', 'BNH', 'BNH2026', 'BNH2026F'])(
    'answers futures=%s on the current day',
    async (code) => {
      const { body, data } = await ticker(`futures=${code}`);
      expect(Object.keys(body)).toEqual(['futures', 'date', 'from', 'to', 'data']);
      expect(body).toMatchObject({ futures: code, date: '20250228', from: '000000', to: '235959' });
      expect(data.length).toBeGreaterThan(0);
      for (const tick of data) {
        expect(tick.time).toMatch(/^20250228\d{6}$/);
        if (code !== 'au_electricity') expect(tick.code.startsWith(code.replace(/F$/, ''))).toBe(true);
      }
    },
  );

  it('writes the fields of each message type, newest first', async () => {
    const { data } = await ticker('futures=BNH2026');
    const types = new Set(data.map((tick) => tick.type));
    expect(types).toEqual(new Set(['book', 'trade', 'settle']));
    for (const tick of data) {
      const fields = {
        book: ['bid', 'bid_size', 'ask', 'ask_size'],
        trade: ['price', 'volume'],
        settle: ['settle', 'timestamp_settle'],
      }[tick.type as 'book' | 'trade' | 'settle'];
      expect(Object.keys(tick)).toEqual(['time', 'code', 'type', ...fields]);
      for (const value of Object.values(tick)) expect(typeof value).toBe('string');
    }
    const settle = data.find((tick) => tick.type === 'settle');
    expect(settle?.settle).toMatch(/^\d+\.\d{2}$/);
    expect(settle?.time).toBe('20250228160000');
    // 16:00 AEDT on 28 Feb 2025 = 05:00 UTC.
    expect(settle?.timestamp_settle).toBe(String(Date.UTC(2025, 1, 28, 5) / 1000));
    const trade = data.find((tick) => tick.type === 'trade');
    expect(trade?.price).toMatch(/^\d+\.\d{2}$/);
    expect(trade?.volume).toMatch(/^\d+$/);
    const times = data.map((tick) => tick.time);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it.each(['au_electricity', 'BNH', 'BNH2026', 'BNH2026C', 'EXACT', 'TYPE_FIRST'])(
    'answers options=%s',
    async (form) => {
      const code =
        form === 'EXACT'
          ? exactOption
          : form === 'TYPE_FIRST'
            ? `${exactOption.slice(0, 7)}C${exactOption.slice(7, 14)}`
            : form;
      const { body, data } = await ticker(`options=${code}&type=settle`);
      expect(body.options).toBe(code);
      expect(data.length).toBeGreaterThan(0);
      for (const tick of data) {
        expect(Object.keys(tick)).toEqual([
          'time',
          'code',
          'type',
          'settle',
          'timestamp_settle',
          'implied_volatility',
        ]);
        expect(tick.implied_volatility).toMatch(/^\d+\.\d{2}$/);
        if (form === 'BNH2026C') expect(tick.code.endsWith('C')).toBe(true);
        if (form === 'EXACT' || form === 'TYPE_FIRST') expect(tick.code).toBe(exactOption);
      }
    },
  );

  it('filters by type', async () => {
    for (const type of ['book', 'trade', 'settle']) {
      const { data } = await ticker(`futures=BNH&type=${type}`);
      expect(data.length).toBeGreaterThan(0);
      expect(new Set(data.map((tick) => tick.type))).toEqual(new Set([type]));
    }
  });

  it('honours an intraday window, inclusive', async () => {
    const all = (await ticker('futures=au_electricity&type=trade')).data;
    const cut = all[Math.floor(all.length / 2)]?.time.slice(8) ?? '';
    const { body, data } = await ticker(`futures=au_electricity&type=trade&from=${cut}&to=${cut}`);
    expect(body).toMatchObject({ from: cut, to: cut });
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((tick) => tick.time.slice(8) === cut)).toBe(true);
  });

  it('ends the default window at the exchange clock when the current day is today', async () => {
    const saved = api.now;
    // 03:00 UTC = 14:00 AEDT on the current day.
    api.now = new Date('2025-02-28T03:00:00Z');
    try {
      const { body, data } = await ticker('futures=au_electricity');
      expect(body).toMatchObject({ date: '20250228', from: '000000', to: '140000' });
      expect(data.every((tick) => tick.time <= '20250228140000')).toBe(true);
      expect(data.some((tick) => tick.type === 'settle')).toBe(false);
    } finally {
      api.now = saved;
    }
  });

  it('answers a past day whole with date, disregarding from and to', async () => {
    const { response, body, data } = await ticker('futures=BNH2026&date=20250226&from=120000&to=130000');
    expect(body).toMatchObject({ date: '20250226', from: '000000', to: '235959' });
    expect(response.headers['ignored-parameters']).toBe('from, to');
    expect(data.every((tick) => tick.time.startsWith('20250226'))).toBe(true);
    expect(data.some((tick) => tick.time.slice(8) < '120000')).toBe(true);
  });

  it('answers a listed contract without activity in the window with empty data', async () => {
    const { data } = await ticker('futures=BNH2026&from=000000&to=000001');
    expect(data).toEqual([]);
    expect(expectCsv(await api.get('/api/ticker?futures=BNH2026&from=000000&to=000001&format=csv'))).toEqual([
      CSV_COLUMNS,
    ]);
  });

  it.each([
    'futures=au_electricity',
    'futures=BNH2026&date=20250227',
    `options=BNH2026&type=settle`,
    'futures=au_gas',
  ])('carries the same rows in JSON and CSV: %s', async (query) => {
    const { data } = await ticker(query);
    expectSameRecords(
      data,
      expectCsv(await api.get(`/api/ticker?${query}`, { accept: 'text/csv' })),
      CSV_COLUMNS,
    );
  });

  describe('refuses', () => {
    it.each([
      ['a malformed futures code', 'futures=BN1', 'futures'],
      ['options in a market without options', 'options=au_gas', 'options'],
      ['futures and options together', 'futures=BNH&options=BNH', 'futures'],
      ['neither futures nor options', 'type=book', 'futures|options'],
      ['an impossible date', 'futures=BNH&date=20251131', 'date'],
      ['a time out of range', 'futures=BNH&from=250000', 'from'],
      ['an inverted window', 'futures=BNH&from=150000&to=100000', 'from'],
      ['an unknown type', 'futures=BNH&type=quote', 'type'],
    ])('%s with 400', async (_name, query, parameter) => {
      expectProblem(await api.get(`/api/ticker?${query}`), 400, parameter);
    });

    it.each([
      ['a code naming no product', 'futures=XXH', 'XXH'],
      ['a code naming no listed contract', 'futures=BNH2031', 'BNH2031'],
      ['an options code naming no listed contract', 'options=BNH20319995000C', 'BNH20319995000C'],
    ])('%s with 404 naming it', async (_name, query, code) => {
      expect(expectProblem(await api.get(`/api/ticker?${query}`), 404).detail).toContain(code);
    });

    it.each([
      ['a weekend', '20250301', '20250228'],
      ['a date before the history', '20250101', '20250226'],
    ])('%s with 404 naming the nearest date', async (_name, date, nearest) => {
      const body = expectProblem(await api.get(`/api/ticker?futures=BNH&date=${date}`), 404, 'date');
      expect(body.nearestDate).toBe(nearest);
      expect(body.detail).toContain(nearest);
    });
  });

  it('ignores date under end_of_day access and says so', async () => {
    const { response, body } = await ticker('futures=BNH2026&date=20250226', 'end_of_day');
    expect(response.headers['ignored-parameters']).toBe('date');
    expect(body.date).toBe('20250228');
    const plain = await ticker('futures=BNH2026', 'end_of_day');
    expect(plain.response.headers['ignored-parameters']).toBeUndefined();
    expect(body).toEqual(plain.body);
    // Ignored parameters are not validated.
    expect(
      (await api.get('/api/ticker?futures=BNH2026&date=garbage', { key: 'end_of_day' })).statusCode,
    ).toBe(200);
  });
});
