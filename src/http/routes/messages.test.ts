import { parseCsv } from '@gridquote/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectJson,
  expectProblem,
  expectSameRecords,
  type Harness,
} from '../../../test/api-harness.js';
import { ingestEvents } from '../../ingest/ingest-events.js';

const CUSTOM = [
  'contract',
  'net',
  'size',
  'price_1',
  'price_2',
  'price_3',
  'price_4',
  'price_5',
  'price_6',
  'ratio_1',
  'ratio_2',
  'ratio_3',
  'ratio_4',
  'ratio_5',
  'ratio_6',
];

type Row = Record<string, string>;

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 2 });
  // Free text with the CSV's delimiter and a quote, late on the current day.
  await ingestEvents(api.store.writer, [
    {
      type: 'message',
      date: '20250228',
      seq: 999_001,
      time: '165900',
      market: 'au_electricity',
      board: 'message_board',
      text: 'Tab\there, "quoted", comma',
    },
    // Free text that a spreadsheet would run as a formula (OWASP, "CSV Injection").
    ...['=1+1', '+SUM(A1)', '-2+3', '@cmd', '\t=x', '\r=x'].map((text, index) => ({
      type: 'message' as const,
      date: '20250228',
      seq: 999_010 + index,
      time: `1659${10 + index}`,
      market: 'au_gas',
      board: 'registered_trades' as const,
      text,
    })),
    {
      type: 'custom_market',
      date: '20250228',
      seq: 999_020,
      time: '165950',
      market: 'au_gas',
      contract: '=HYPERLINK("http://x","y")',
      net: '-0.50',
      size: 1,
      legs: [{ price: '-0.50', ratio: '-1.00' }],
    },
  ]);
});
afterAll(() => api?.close());

async function messages(query: string) {
  const response = await api.get(`/api/messages?${query}`);
  const body = expectJson(response);
  return { body, data: body.data as Row[] };
}

function csvOf(text: string): string[][] {
  return parseCsv(text, '\t', { strict: true });
}

describe('GET /api/messages', () => {
  it.each(['message_board', 'registered_trades'])(
    'answers %s of the current day, newest first',
    async (type) => {
      const { body, data } = await messages(`market=au_electricity&type=${type}`);
      expect(Object.keys(body)).toEqual(['market', 'type', 'date', 'data']);
      expect(body).toMatchObject({ market: 'au_electricity', type, date: '20250228' });
      expect(data.length).toBeGreaterThan(0);
      for (const row of data) {
        expect(Object.keys(row)).toEqual(['time', 'message']);
        expect(row.time).toMatch(/^\d{6}$/);
      }
      const times = data.map((row) => row.time);
      expect([...times].sort().reverse()).toEqual(times);
    },
  );

  it('answers custom markets without a date, unused legs 0.00', async () => {
    const { body, data } = await messages('market=au_electricity&type=custom_market');
    expect(Object.keys(body)).toEqual(['market', 'type', 'data']);
    expect(data.length).toBeGreaterThan(0);
    for (const row of data) {
      expect(Object.keys(row)).toEqual(CUSTOM);
      expect(row.net).toMatch(/^-?\d+\.\d{2}$/);
      expect(row.size).toMatch(/^\d+$/);
    }
    expect(data.some((row) => row.price_6 === '0.00' && row.ratio_6 === '0.00')).toBe(true);
  });

  it('filters from a time on, inclusive', async () => {
    const all = (await messages('market=au_electricity&type=message_board')).data;
    const cut = all[2]?.time ?? '';
    const { data } = await messages(`market=au_electricity&type=message_board&from=${cut}`);
    expect(data).toEqual(all.filter((row) => (row.time ?? '') >= cut));
  });

  it.each(['message_board', 'registered_trades', 'custom_market'])(
    'writes tab-separated CSV with the same rows as JSON (%s)',
    async (type) => {
      const { data } = await messages(`market=au_electricity&type=${type}`);
      const response = await api.get(`/api/messages?market=au_electricity&type=${type}`, {
        accept: 'text/csv',
      });
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expectSameRecords(data, csvOf(response.body), type === 'custom_market' ? CUSTOM : ['time', 'message']);
    },
  );

  it('quotes a message holding a tab or a quote, and escapes it in JSON', async () => {
    const { data } = await messages('market=au_electricity&type=message_board&from=165900');
    expect(data).toEqual([{ time: '165900', message: 'Tab\there, "quoted", comma' }]);
    const csv = await api.get(
      '/api/messages?market=au_electricity&type=message_board&from=165900&format=csv',
    );
    expect(csv.body).toBe('time\tmessage\n165900\t"Tab\there, ""quoted"", comma"\n');
  });

  it('neutralises message text that a spreadsheet would run as a formula, in CSV only', async () => {
    const query = '/api/messages?market=au_gas&type=registered_trades&from=165910';
    const csv = await api.get(query, { accept: 'text/csv' });
    expect(csv.body).toBe(
      'time\tmessage\n' +
        `165915\t"'\r=x"\n165914\t"'\t=x"\n165913\t"'@cmd"\n` +
        `165912\t"'-2+3"\n165911\t"'+SUM(A1)"\n165910\t"'=1+1"\n`,
    );
    const { data } = await messages('market=au_gas&type=registered_trades&from=165910');
    expect(data.map((row) => row.message)).toEqual(['\r=x', '\t=x', '@cmd', '-2+3', '+SUM(A1)', '=1+1']);
  });

  it("neutralises a custom market's name but never a number such as -0.50", async () => {
    const csv = await api.get('/api/messages?market=au_gas&type=custom_market&from=165950', {
      accept: 'text/csv',
    });
    const [, row] = csv.body.split('\n');
    expect(row).toBe(
      `"'=HYPERLINK(""http://x"",""y"")"\t-0.50\t1\t-0.50\t0.00\t0.00\t0.00\t0.00\t0.00\t-1.00\t0.00\t0.00\t0.00\t0.00\t0.00`,
    );
  });

  it('answers a market without messages with empty data', async () => {
    expect((await messages('market=nz_environmental&type=registered_trades&from=235959')).data).toEqual([]);
  });

  it.each([
    ['a missing market', 'type=message_board', 'market'],
    ['a missing type', 'market=au_gas', 'type'],
    ['an unknown market', 'market=AU_GAS&type=message_board', 'market'],
    ['an unknown type', 'market=au_gas&type=chat', 'type'],
    ['a bad from', 'market=au_gas&type=message_board&from=9am', 'from'],
    ['a date (not a parameter here)', 'market=au_gas&type=message_board&date=20250227', 'date'],
  ])('refuses %s with 400', async (_name, query, parameter) => {
    expectProblem(await api.get(`/api/messages?${query}`), 400, parameter);
  });

  it('answers the same under end_of_day access (no date-like parameter)', async () => {
    const query = '/api/messages?market=au_electricity&type=message_board';
    const response = await api.get(query, { key: 'end_of_day' });
    expect(response.body).toBe((await api.get(query)).body);
    expect(response.headers['ignored-parameters']).toBeUndefined();
  });
});
