import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHarness,
  expectCsv,
  expectJson,
  expectProblem,
  expectSameRecords,
  type Harness,
} from '../../../test/api-harness.js';

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 3 });
});
afterAll(() => api?.close());

describe.each(['epi', 'npi'] as const)('GET /api/%s', (index) => {
  it('answers the latest date by default, one row per curve year', async () => {
    const body = expectJson(await api.get(`/api/${index}`));
    expect(Object.keys(body)).toEqual(['date', 'data']);
    expect(body.date).toBe('20250228');
    const data = body.data as Record<string, string>[];
    expect(data.length).toBeGreaterThan(0);
    for (const row of data) {
      expect(Object.keys(row)).toEqual(['date', 'year', index]);
      expect(row.date).toBe('20250228');
      expect(row.year).toMatch(/^20\d\d$/);
      expect(row[index]).toMatch(/^\d+\.\d{2}$/);
    }
    expect(new Set(data.map((row) => row.year)).size).toBe(data.length);
  });

  it('answers a given date', async () => {
    const body = expectJson(await api.get(`/api/${index}?date=20250227`));
    expect(body.date).toBe('20250227');
    expect((body.data as { date: string }[]).every((row) => row.date === '20250227')).toBe(true);
  });

  it.each(['', '?date=20250226'])('carries the same rows in JSON and CSV (%s)', async (query) => {
    const body = expectJson(await api.get(`/api/${index}${query}`));
    const csv = expectCsv(await api.get(`/api/${index}${query}`, { accept: 'text/csv' }));
    expectSameRecords(body.data as Record<string, string>[], csv, ['date', 'year', index]);
  });

  it('refuses bad and unavailable dates', async () => {
    expectProblem(await api.get(`/api/${index}?date=2025-02-28`), 400, 'date');
    expectProblem(await api.get(`/api/${index}?date=20250230`), 400, 'date');
    expect(expectProblem(await api.get(`/api/${index}?date=20250302`), 404, 'date').nearestDate).toBe(
      '20250228',
    );
    expect(expectProblem(await api.get(`/api/${index}?date=20240101`), 404, 'date').nearestDate).toBe(
      '20250226',
    );
  });

  it('ignores date under end_of_day access', async () => {
    const response = await api.get(`/api/${index}?date=20250226`, { key: 'end_of_day' });
    expect(expectJson(response).date).toBe('20250228');
    expect(response.headers['ignored-parameters']).toBe('date');
  });
});
