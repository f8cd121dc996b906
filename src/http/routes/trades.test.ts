import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectCsv,
  expectJson,
  expectProblem,
  expectSameRecords,
  type Harness,
} from '../../../test/api-harness.js';

const COLUMNS = ['time', 'code', 'volume', 'price', 'block'];

interface Trade {
  time: string;
  code: string;
  volume: string;
  price: string;
  block: boolean;
}

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 2 });
});
afterAll(() => api?.close());

async function trades(query: string) {
  const body = expectJson(await api.get(`/api/trades?${query}`));
  return { body, rows: body.trades as Trade[] };
}

describe('GET /api/trades', () => {
  it.each([
    ['market', 'au_electricity'],
    ['futures', 'BNH'],
    ['futures', 'BNH2026'],
    ['options', 'au_electricity'],
    ['options', 'BNH'],
  ])('answers %s=%s for the current day, newest first', async (name, code) => {
    const { body, rows } = await trades(`${name}=${code}`);
    expect(Object.keys(body)).toEqual(['last_trade', 'last_update', 'date', name, 'trades']);
    expect(body).toMatchObject({ date: '20250228', [name]: code });
    expect(body.last_update).toMatch(/^\d{6}$/);
    for (const trade of rows) {
      expect(Object.keys(trade)).toEqual(COLUMNS);
      expect(typeof trade.block).toBe('boolean');
      expect(trade.price).toMatch(/^\d+\.\d{2}$/);
      if (name === 'futures') expect(trade.code.startsWith(code)).toBe(true);
      if (name === 'options') expect(trade.code).toMatch(/^[A-Z]{3}\d{11}[CP]$/);
    }
    const times = rows.map((trade) => trade.time);
    expect([...times].sort().reverse()).toEqual(times);
    expect(body.last_trade).toBe(rows[0]?.time ?? '');
  });

  it('includes options in a whole electricity market, and block trades', async () => {
    const { rows } = await trades('market=au_electricity');
    expect(rows.some((trade) => /[CP]$/.test(trade.code))).toBe(true);
    expect(rows.some((trade) => /^[A-Z]{3}\d{4}$/.test(trade.code))).toBe(true);
    expect(rows.some((trade) => trade.block)).toBe(true);
  });

  it('filters from a time on, inclusive, and keeps last_trade the latest of the day', async () => {
    const all = await trades('market=au_electricity');
    const cut = all.rows[5]?.time ?? '';
    const { body, rows } = await trades(`market=au_electricity&from=${cut}`);
    expect(rows).toEqual(all.rows.filter((trade) => trade.time >= cut));
    const late = await trades('market=au_electricity&from=235959');
    expect(late.rows).toEqual([]);
    expect(late.body.last_trade).toBe(all.body.last_trade);
    expect(body.last_trade).toBe(all.body.last_trade);
  });

  it('answers a listed contract without trades with empty trades and last_trade ""', async () => {
    const listed = await api.store.reader.contracts({ instrument: 'future', market: 'au_electricity' });
    const traded = new Set((await trades('market=au_electricity')).rows.map((trade) => trade.code));
    const quiet = listed.find((contract) => !traded.has(contract.code));
    expect(quiet).toBeDefined();
    const { body, rows } = await trades(`futures=${quiet?.code}`);
    expect(rows).toEqual([]);
    expect(body.last_trade).toBe('');
  });

  it.each(['market=au_electricity', 'options=BNH', 'futures=GZH&from=100000'])(
    'carries the same rows in JSON and CSV (block as 0/1): %s',
    async (query) => {
      const { rows } = await trades(query);
      const csv = expectCsv(await api.get(`/api/trades?${query}`, { accept: 'text/csv' }));
      expectSameRecords(rows as unknown as Record<string, unknown>[], csv, COLUMNS);
      for (const row of csv.slice(1)) expect(['0', '1']).toContain(row[4]);
    },
  );

  it.each([
    ['two scopes', 'market=au_gas&futures=GZH', 'market'],
    ['no scope', 'from=100000', 'market|futures|options'],
    ['a bad from', 'market=au_gas&from=1000', 'from'],
    ['a malformed code', 'futures=GZ', 'futures'],
    ['a date (not a parameter here)', 'market=au_gas&date=20250227', 'date'],
  ])('refuses %s with 400', async (_name, query, parameter) => {
    expectProblem(await api.get(`/api/trades?${query}`), 400, parameter);
  });

  it('refuses a code naming no listed contract with 404', async () => {
    expect(expectProblem(await api.get('/api/trades?futures=GZH2040'), 404).detail).toContain('GZH2040');
  });
});
