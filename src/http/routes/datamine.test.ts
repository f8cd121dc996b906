import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectCsv,
  expectJson,
  expectProblem,
  type Harness,
} from '../../../test/api-harness.js';

type Tables = Record<string, Record<string, Record<string, string>>>;

const AU_REGIONS = ['nsw', 'vic', 'qld', 'sa'];
const NZ_REGIONS = ['otahuhu', 'benmore'];
const AU_FUTURES = ['baseMonthFutures', 'baseQuarterFutures', 'peakQuarterFutures', 'caps'];
const AU_OPTIONS = ['averageOptions', 'calOptions', 'finOptions', 'peakOptions'];
const NZ_FUTURES = ['baseMonthFutures', 'baseQuarterFutures', 'peakQuarterFutures', 'calFutures'];
const NZ_OPTIONS = ['averageOptions', 'calOptions'];

const CASES = {
  'au-volume': {
    regions: AU_REGIONS,
    measures: ['volume', 'quarterlyEquivalentVolume', 'mwh', 'faceValue', 'count'],
    json: [...AU_FUTURES, ...AU_OPTIONS, 'block', 'efp', 'totalFutures', 'totalOptions', 'total', 'average'],
    csv: [
      'state',
      ...AU_FUTURES,
      'totalFutures',
      ...AU_OPTIONS,
      'totalOptions',
      'total',
      'average',
      'block',
      'efp',
    ],
    futures: AU_FUTURES,
    options: AU_OPTIONS,
  },
  'au-oi': {
    regions: AU_REGIONS,
    measures: ['openInterest', 'quarterlyEquivalentOpenInterest', 'mwh', 'faceValue'],
    json: [...AU_FUTURES, ...AU_OPTIONS, 'totalFutures', 'totalOptions', 'total'],
    csv: ['state', ...AU_FUTURES, 'totalFutures', ...AU_OPTIONS, 'totalOptions', 'total'],
    futures: AU_FUTURES,
    options: AU_OPTIONS,
  },
  'nz-volume': {
    regions: NZ_REGIONS,
    measures: ['volume', 'quarterlyEquivalentVolume', 'mwh', 'faceValue', 'count'],
    json: [...NZ_FUTURES, ...NZ_OPTIONS, 'block', 'efp', 'totalFutures', 'totalOptions', 'total', 'average'],
    csv: [
      'state',
      ...NZ_FUTURES,
      'totalFutures',
      ...NZ_OPTIONS,
      'totalOptions',
      'total',
      'average',
      'block',
      'efp',
    ],
    futures: NZ_FUTURES,
    options: NZ_OPTIONS,
  },
} as const;

let api: Harness;
beforeAll(async () => {
  // Six days, 20250221 and 20250224-28: the weekend between them is a range without trading days.
  api = await createHarness({ days: 6 });
});
afterAll(() => api?.close());

async function datamine(query: string, key: 'historical' | 'end_of_day' = 'historical') {
  const response = await api.get(`/api/datamine?${query}`, { key });
  return { response, body: expectJson(response) };
}

/** CSV sections back into measure -> region -> field. */
function sections(rows: string[][]): { tables: Tables; headers: string[][] } {
  const tables: Tables = {};
  const headers: string[][] = [];
  let index = 0;
  while (index < rows.length) {
    const [name = ''] = rows[index] ?? [];
    const header = rows[index + 1] ?? [];
    headers.push(header);
    tables[name] = {};
    index += 2;
    while (index < rows.length && (rows[index]?.length ?? 0) > 1) {
      const [region = '', ...cells] = rows[index] ?? [];
      (tables[name] as Record<string, Record<string, string>>)[region] = Object.fromEntries(
        header.slice(1).map((field, i) => [field, cells[i] ?? '']),
      );
      index++;
    }
    if (index < rows.length) {
      expect(rows[index], 'blank line between sections').toEqual(['']);
      index++;
    }
  }
  return { tables, headers };
}

describe('GET /api/datamine', () => {
  it.each(Object.keys(CASES) as (keyof typeof CASES)[])(
    '%s: measures, regions and fields in spec order; totals add up',
    async (type) => {
      const expected = CASES[type];
      const { body } = await datamine(`type=${type}`);
      const tables = body.data as Tables;
      expect(Object.keys(tables)).toEqual(expected.measures);
      for (const measure of expected.measures) {
        const table = tables[measure] ?? {};
        expect(Object.keys(table)).toEqual(expected.regions);
        for (const region of expected.regions) {
          const cells = table[region] ?? {};
          expect(Object.keys(cells)).toEqual(expected.json);
          const sum = (fields: readonly string[]) =>
            fields.reduce((total, field) => total + Number(cells[field]), 0);
          expect(Number(cells.totalFutures)).toBe(sum(expected.futures));
          expect(Number(cells.totalOptions)).toBe(sum(expected.options));
          expect(Number(cells.total)).toBe(Number(cells.totalFutures) + Number(cells.totalOptions));
          for (const [field, value] of Object.entries(cells)) {
            expect(value, `${measure} ${region} ${field}`).toMatch(
              field === 'average' ? /^\d+\.\d{2}$/ : /^\d+$/,
            );
          }
        }
      }
      const total = Object.values(tables)
        .flatMap((table) => Object.values(table))
        .reduce((sum, cells) => sum + Number(cells.total), 0);
      expect(total).toBeGreaterThan(0);
    },
  );

  it('answers volume types over the default range: to = latest date, from = 365 days before', async () => {
    const { body } = await datamine('type=au-volume');
    expect(Object.keys(body)).toEqual(['from', 'to', 'tradingDays', 'data']);
    expect(body).toMatchObject({ from: '20240229', to: '20250228', tradingDays: 6 });
    const cells = (body.data as Tables).volume?.nsw ?? {};
    expect(cells.average).toBe((Math.round((Number(cells.total) / 6) * 100) / 100).toFixed(2));
  });

  it('agrees with the trade log: au-volume count and volume over one day', async () => {
    const { body } = await datamine('type=au-volume&from=20250227&to=20250227');
    expect(body.tradingDays).toBe(1);
    const tables = body.data as Tables;
    const count = AU_REGIONS.reduce((sum, region) => sum + Number(tables.count?.[region]?.total), 0);
    const log = expectJson(await api.get('/api/tradelog?market=au_electricity&date=20250227')).data as Record<
      string,
      string
    >[];
    // Strips are counted through their quarter legs (docs/market-rules.md, datamine statistics), so strip
    // rows are not counted again.
    const counted = log.filter((entry) => !/^H[NQVS][MZ]\d{4}F$/.test(entry.code ?? ''));
    expect(count).toBe(counted.length);
  });

  it('answers au-oi for the latest date by default, or a given date', async () => {
    expect(Object.keys((await datamine('type=au-oi')).body)).toEqual(['date', 'data']);
    expect((await datamine('type=au-oi')).body.date).toBe('20250228');
    expect((await datamine('type=au-oi&date=20250226')).body.date).toBe('20250226');
  });

  it('answers a range without trading days with zeros and average 0.00', async () => {
    const { body } = await datamine('type=nz-volume&from=20250222&to=20250223');
    expect(body.tradingDays).toBe(0);
    const cells = (body.data as Tables).volume?.otahuhu ?? {};
    expect(cells.total).toBe('0');
    expect(cells.average).toBe('0.00');
  });

  it.each([
    ['after the latest day', 'type=nz-volume&from=20250301&to=20250302', '20250228'],
    ['before the history', 'type=au-volume&from=20250101&to=20250220', '20250221'],
  ])('answers a volume range wholly %s with 404 naming the nearest date', async (_name, query, nearest) => {
    const body = expectProblem(await api.get(`/api/datamine?${query}`), 404);
    expect(body.nearestDate).toBe(nearest);
    expect(body.detail).toContain(nearest);
  });

  it.each(['type=au-volume', 'type=au-oi&date=20250227', 'type=nz-volume&from=20250226&to=20250227'])(
    'writes the same values as CSV sections in the column order of docs/api.md: %s',
    async (query) => {
      const type = query.split('&')[0]?.slice(5) as keyof typeof CASES;
      const { body } = await datamine(query);
      const { tables, headers } = sections(
        expectCsv(await api.get(`/api/datamine?${query}`, { accept: 'text/csv' })),
      );
      expect(Object.keys(tables)).toEqual(CASES[type].measures);
      for (const header of headers) expect(header).toEqual(CASES[type].csv);
      expect(tables).toEqual(body.data);
    },
  );

  it.each([
    ['no type', 'from=20250101', 'type'],
    ['an unknown type', 'type=au-volumes', 'type'],
    ['from after to', 'type=au-volume&from=20250228&to=20250101', 'from'],
    ['a range over 366 days', 'type=au-volume&from=20240101&to=20250228', 'from'],
    ['from alone, too far from the default to', 'type=nz-volume&from=20230101', 'from'],
    ['from with au-oi', 'type=au-oi&from=20250101', 'from'],
    ['to with au-oi', 'type=au-oi&to=20250101', 'to'],
    ['date with a volume type', 'type=au-volume&date=20250227', 'date'],
    ['an impossible date', 'type=au-oi&date=20250231', 'date'],
  ])('refuses %s with 400', async (_name, query, parameter) => {
    const body = expectProblem(await api.get(`/api/datamine?${query}`), 400, parameter);
    expect(body.errors?.[0]?.message.length).toBeGreaterThan(10);
  });

  it('accepts exactly 366 days', async () => {
    expect((await datamine('type=au-volume&from=20240228&to=20250228')).body.from).toBe('20240228');
  });

  it('refuses an au-oi date without data with 404 naming the nearest', async () => {
    expect(
      expectProblem(await api.get('/api/datamine?type=au-oi&date=20250301'), 404, 'date').nearestDate,
    ).toBe('20250228');
  });

  it('ignores from, to and date under end_of_day access, without validating them', async () => {
    const { response, body } = await datamine('type=au-volume&from=20250227&to=garbage', 'end_of_day');
    expect(response.headers['ignored-parameters']).toBe('from, to');
    expect(body).toEqual((await datamine('type=au-volume')).body);
    const oi = await datamine('type=au-oi&date=20250226', 'end_of_day');
    expect(oi.body.date).toBe('20250228');
    expect(oi.response.headers['ignored-parameters']).toBe('date');
    // A parameter that does not apply is not an error when it is ignored anyway.
    expect(
      (await datamine('type=au-volume&date=20250227', 'end_of_day')).response.headers['ignored-parameters'],
    ).toBe('date');
  });
});

describe('GET /api/datamine with layout=long', () => {
  it.each(Object.keys(CASES) as (keyof typeof CASES)[])(
    '%s: one row per measure, region and field, the same values as the sections',
    async (type) => {
      const expected = CASES[type];
      const query =
        type === 'au-oi' ? `type=${type}&date=20250227` : `type=${type}&from=20250226&to=20250228`;
      const { tables } = sections(expectCsv(await api.get(`/api/datamine?${query}&format=csv`)));
      const [header = [], ...rows] = expectCsv(
        await api.get(`/api/datamine?${query}&layout=long&format=csv`),
      );
      const dates = type === 'au-oi' ? ['20250227'] : ['20250226', '20250228'];
      expect(header).toEqual([
        ...(type === 'au-oi' ? ['date'] : ['from', 'to']),
        'measure',
        'state',
        'field',
        'value',
      ]);
      const fields = expected.csv.slice(1);
      expect(rows).toHaveLength(expected.measures.length * expected.regions.length * fields.length);
      const expectedRows = expected.measures.flatMap((measure) =>
        expected.regions.flatMap((region) =>
          fields.map((field) => [...dates, measure, region, field, tables[measure]?.[region]?.[field]]),
        ),
      );
      expect(rows).toEqual(expectedRows);
    },
  );

  it('leaves JSON as it is, and refuses an unknown layout', async () => {
    const plain = await api.get('/api/datamine?type=au-oi&date=20250227');
    const long = await api.get('/api/datamine?type=au-oi&date=20250227&layout=long');
    expect(long.body).toBe(plain.body);
    expectProblem(await api.get('/api/datamine?type=au-oi&layout=wide&format=csv'), 400, 'layout');
  });
});
