import { describe, expect, it } from 'vitest';
import { addDays, eachDay, eachWeekday, isoDate, ymd } from './dates.js';

describe('date helpers', () => {
  it('writes yyyyMMdd of a Date in Sydney time, and validates strings', () => {
    // 2025-02-27 14:30 UTC is already 28 February in Sydney (UTC+11 in summer).
    expect(ymd(new Date('2025-02-27T14:30:00Z'))).toBe('20250228');
    expect(ymd(new Date('2025-02-27T14:30:00Z'), 'UTC')).toBe('20250227');
    expect(ymd('2025-02-28')).toBe('20250228');
    expect(ymd('20240229')).toBe('20240229');
    for (const bad of ['20250229', '2025-2-28', '20251301', 'tomorrow'])
      expect(() => ymd(bad)).toThrow(RangeError);
    expect(isoDate('20250228')).toBe('2025-02-28');
  });

  it('counts days across months and years', () => {
    expect(addDays('20250228', 1)).toBe('20250301');
    expect(addDays('20250101', -1)).toBe('20241231');
    expect([...eachDay('20241230', '20250102')]).toEqual(['20241230', '20241231', '20250101', '20250102']);
    expect([...eachDay('20250102', '20250101')]).toEqual([]);
  });

  it('iterates weekdays only', () => {
    expect([...eachWeekday('20250227', '20250304')]).toEqual([
      '20250227',
      '20250228',
      '20250303',
      '20250304',
    ]);
  });
});
