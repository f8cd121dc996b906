import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../../test/api-harness.js';

let api: Harness;
beforeAll(async () => {
  api = await createHarness({ days: 3 });
});
afterAll(() => api?.close());

describe('CSV answers', () => {
  it.each([
    ['/api/tradelog?market=au_electricity&date=20250227', 'tradelog-au_electricity-20250227.csv'],
    ['/api/tradelog?futures=HNM2026F', 'tradelog-HNM2026F-20250228.csv'],
    ['/api/ticker?futures=BNH&type=trade&date=20250226', 'ticker-BNH-20250226.csv'],
    ['/api/epi', 'epi-20250228.csv'],
    ['/api/npi?date=20250226', 'npi-20250226.csv'],
    ['/api/messages?market=au_gas&type=message_board', 'messages-au_gas-message_board-20250228.csv'],
    ['/api/trades?options=BNH', 'trades-BNH-20250228.csv'],
    ['/api/data?options=EAH2026&date=20250227', 'data-EAH2026-20250227.csv'],
    ['/api/intraday?futures=nz_electricity', 'intraday-nz_electricity-20250228.csv'],
    ['/api/datamine?type=au-volume&from=20250226&to=20250227', 'datamine-au-volume-20250227.csv'],
    ['/api/datamine?type=au-oi&layout=long', 'datamine-au-oi-20250228.csv'],
  ])('%s suggests the file name %s (operation, selection, day)', async (url, name) => {
    for (const response of [
      await api.get(`${url}&format=csv`.replace(/^([^?]*)&/, '$1?')),
      await api.get(url, { accept: 'text/csv' }),
      await api.get(url, { accept: 'text/csv', headers: { 'accept-encoding': 'gzip' } }),
    ]) {
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-disposition']).toBe(`attachment; filename="${name}"`);
    }
  });

  it('are named also when served from the cache, and JSON answers are not attachments', async () => {
    const url = '/api/tradelog?market=au_gas&date=20250227&format=csv';
    const first = await api.get(url);
    const again = await api.get(url);
    expect(again.body).toBe(first.body);
    expect(again.headers['content-disposition']).toBe(first.headers['content-disposition']);
    const json = await api.get('/api/tradelog?market=au_gas&date=20250227');
    expect(json.headers['content-disposition']).toBeUndefined();
  });
});
