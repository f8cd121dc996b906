import { describe, expect, it } from 'vitest';
import type { EndOfDayRow, IntradayRow } from '../store/store.js';
import { endOfDayCsv, endOfDayJson } from './end-of-day.js';
import { intradayCsv, intradayJson } from './intraday.js';

/**
 * Unknown values are written as unknown, never as 0: null in intraday JSON, "" elsewhere in
 * JSON, an empty CSV cell everywhere (docs/api.md, "Which day an answer is about").
 */

function intraday(partial: Partial<IntradayRow>): IntradayRow {
  return {
    code: 'BNH2026',
    bidSize: null,
    bidCents: null,
    askSize: null,
    askCents: null,
    highCents: null,
    lowCents: null,
    lastCents: null,
    volume: null,
    openInterest: null,
    openInterestChange: null,
    settleCents: null,
    impliedVolatility: null,
    ...partial,
  };
}

const answer = (rows: IntradayRow[]) => ({ key: 'futures' as const, value: 'BNH', rows });

describe('intraday writers', () => {
  it('write null, not a change against nothing, where the previous close is unknown', () => {
    // traded today, but no previous settle or open interest was published (new today)
    const row = intraday({ lastCents: 12350, highCents: 12350, lowCents: 12350, volume: 2 });
    const [record] = (JSON.parse(intradayJson(answer([row]))) as { data: Record<string, unknown>[] }).data;
    expect(record).toMatchObject({
      last: '123.50',
      volume: '2',
      net_change: null,
      settle: null,
      open_interest: null,
      open_interest_net_change: null,
    });
    expect(intradayCsv(answer([row])).split('\n')[1]).toBe('BNH2026,,,,,123.50,123.50,123.50,,2,,,');
  });

  it('write null where nothing traded today, and a real zero as "0"', () => {
    const row = intraday({ settleCents: 12330, openInterest: 1044, openInterestChange: 0 });
    const [record] = (JSON.parse(intradayJson(answer([row]))) as { data: Record<string, unknown>[] }).data;
    expect(record).toMatchObject({
      last: null,
      net_change: null,
      volume: null,
      settle: '123.30',
      open_interest: '1044',
      open_interest_net_change: '0',
    });
    const traded = intraday({ lastCents: 12330, settleCents: 12330, volume: 1 });
    expect(intradayCsv(answer([traded])).split('\n')[1]).toBe('BNH2026,,,,,,,123.30,0.00,1,,,123.30');
  });
});

describe('end-of-day writers', () => {
  it('write a settle and open interest not yet published as "" and an empty cell', () => {
    const row: EndOfDayRow = {
      code: 'BNH2026',
      date: '20250228',
      bidSize: 1,
      bidCents: 12330,
      askSize: null,
      askCents: null,
      firstCents: 12350,
      highCents: 12350,
      lowCents: 12350,
      settleCents: null,
      volume: 2,
      openInterest: null,
      impliedVolatility: null,
    };
    const result = { key: 'futures' as const, value: 'BNH', date: '20250228', rows: [row] };
    const [record] = (JSON.parse(endOfDayJson(result)) as { data: Record<string, unknown>[] }).data;
    expect(record).toMatchObject({ settle: '', volume: '2', open_interest: '' });
    expect(endOfDayCsv(result).split('\n')[1]).toBe('BNH2026,20250228,1,123.30,,,123.50,123.50,123.50,,2,');
    const published = endOfDayCsv({ ...result, rows: [{ ...row, settleCents: 12340, openInterest: 0 }] });
    expect(published.split('\n')[1]).toBe('BNH2026,20250228,1,123.30,,,123.50,123.50,123.50,123.40,2,0');
  });
});
