import { describe, expect, it } from 'vitest';
import { QueryError } from '../query/errors.js';
import { dateParam, futuresParam } from './params.js';
import { REMEMBERED_QUERIES, RememberedParams } from './remembered-params.js';

const SPEC = { params: { futures: futuresParam, date: dateParam }, required: ['futures' as const] };

describe('parameters remembered per distinct query (remembered-params.ts)', () => {
  it('hands out the same frozen values for the same query and level', () => {
    const params = new RememberedParams(SPEC);
    const first = params.read('/api/x?futures=BNH2026&date=20250220', 'historical');
    const again = params.read('/api/x?futures=BNH2026&date=20250220', 'historical');
    expect(again).toBe(first);
    // The path with a trailing slash is another URL of the same operation: the same values.
    expect(params.read('/api/x/?futures=BNH2026&date=20250220', 'historical').values).toEqual(first.values);
    expect(first.values.date).toBe('20250220');
    expect(Object.isFrozen(first.values)).toBe(true);
    expect(() => {
      (first.values as Record<string, unknown>).date = '20250221';
    }).toThrow(TypeError);
  });

  it('reads a query again under another access level (end_of_day ignores dates)', () => {
    const params = new RememberedParams(SPEC);
    const historical = params.read('/x?futures=BNH&date=20250220', 'historical');
    const endOfDay = params.read('/x?futures=BNH&date=20250220', 'end_of_day');
    expect(historical.ignored).toEqual([]);
    expect(endOfDay.ignored).toEqual(['date']);
    expect(endOfDay.values.date).toBeUndefined();
  });

  it('refuses a bad query every time, with its issues (nothing remembered)', () => {
    const params = new RememberedParams(SPEC);
    for (let i = 0; i < 2; i++) {
      expect(() => params.read('/x?futures=BNH&date=20250231', 'historical')).toThrow(QueryError);
    }
    expect(params.known('/x?futures=BNH&date=20250231', 'historical')).toBeUndefined();
  });

  it('knows (for the fast lane) only what was read, under the level it was read for', () => {
    const params = new RememberedParams(SPEC);
    expect(params.known('/x?futures=BNH&date=20250220', 'historical')).toBeUndefined();
    const read = params.read('/x?futures=BNH&date=20250220', 'historical');
    expect(params.known('/x?futures=BNH&date=20250220', 'historical')).toBe(read);
    expect(params.known('/x?futures=BNH&date=20250220', 'end_of_day')).toBeUndefined();
  });

  it('stays correct past its bound', () => {
    const params = new RememberedParams(SPEC);
    const kept = params.read('/x?futures=BNH&date=20250220', 'historical');
    // More distinct valid queries than it keeps: it forgets them all and reads them again.
    for (let i = 0; i <= REMEMBERED_QUERIES; i++) {
      const date = `20${String(10 + Math.floor(i / 336)).padStart(2, '0')}${String(1 + (Math.floor(i / 28) % 12)).padStart(2, '0')}${String(1 + (i % 28)).padStart(2, '0')}`;
      expect(params.read(`/x?futures=BNH&date=${date}`, 'historical').values.date).toBe(date);
    }
    const again = params.read('/x?futures=BNH&date=20250220', 'historical');
    expect(again).not.toBe(kept);
    expect(again.values).toEqual(kept.values);
  });
});
