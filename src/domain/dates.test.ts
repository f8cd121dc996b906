import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  dayOfWeek,
  daysBetween,
  easterSunday,
  isValidDate,
  isValidTime,
  nthWeekdayOfMonth,
  parseYmd,
  sydneyClock,
  sydneyUnixSeconds,
  toYmd,
} from './dates.js';

/** Any real date in 2000..2099, built independently of the module under test. */
const anyDate = fc
  .date({ min: new Date(Date.UTC(2000, 0, 1)), max: new Date(Date.UTC(2099, 11, 31)), noInvalidDate: true })
  .map((value) => value.toISOString().slice(0, 10).replaceAll('-', ''));

describe('date and time validity', () => {
  it('accepts real calendar dates in 2000..2099 only', () => {
    for (const good of ['20240229', '20000229', '20250101', '20991231', '20251130']) {
      expect(isValidDate(good), good).toBe(true);
    }
    for (const bad of [
      '20251131',
      '20250229',
      '21000229',
      '19991231',
      '21000101',
      '20250001',
      '20251301',
      '20250100',
      '2025011',
      '202501011',
      '2025-01-01',
      ' 2025010',
      '',
    ]) {
      expect(isValidDate(bad), bad).toBe(false);
    }
  });

  it('accepts HHmmss on a 24-hour clock only', () => {
    for (const good of ['000000', '235959', '160000', '095930']) expect(isValidTime(good), good).toBe(true);
    for (const bad of ['240000', '236000', '235960', '12000', '1200000', '12:00:00', '']) {
      expect(isValidTime(bad), bad).toBe(false);
    }
  });

  it('parses and builds dates, refusing impossible ones', () => {
    expect(parseYmd('20260315')).toEqual({ year: 2026, month: 3, day: 15 });
    expect(toYmd(2026, 3, 5)).toBe('20260305');
    expect(() => parseYmd('20250230')).toThrow(RangeError);
    expect(() => parseYmd('2025-02-03')).toThrow(RangeError);
  });
});

describe('day arithmetic', () => {
  it('adds days across month, year and leap-day boundaries', () => {
    expect(addDays('20240228', 1)).toBe('20240229');
    expect(addDays('20250228', 1)).toBe('20250301');
    expect(addDays('20251231', 1)).toBe('20260101');
    expect(addDays('20260101', -1)).toBe('20251231');
    expect(daysBetween('20250101', '20260101')).toBe(365);
    expect(daysBetween('20240101', '20250101')).toBe(366);
    expect(daysBetween('20250301', '20250101')).toBe(-59);
  });

  it('addDays and daysBetween are inverse', () => {
    fc.assert(
      fc.property(anyDate, fc.integer({ min: -3000, max: 3000 }), (date, days) => {
        const moved = addDays(date, days);
        expect(daysBetween(date, moved)).toBe(days);
        expect(addDays(moved, -days)).toBe(date);
        expect(parseYmd(moved)).toBeDefined();
      }),
    );
  });

  it('knows the weekday, independently of the host time zone', () => {
    expect(dayOfWeek('20250219')).toBe(3);
    expect(dayOfWeek('20000101')).toBe(6);
    expect(dayOfWeek('20260425')).toBe(6);
    fc.assert(
      fc.property(anyDate, (date) => {
        const { year, month, day } = parseYmd(date);
        expect(dayOfWeek(date)).toBe(new Date(Date.UTC(year, month - 1, day)).getUTCDay());
      }),
    );
  });

  it('finds the nth weekday of a month', () => {
    expect(nthWeekdayOfMonth(2025, 6, 1, 2)).toBe('20250609');
    expect(nthWeekdayOfMonth(2025, 10, 1, 1)).toBe('20251006');
    expect(nthWeekdayOfMonth(2025, 11, 2, 1)).toBe('20251104');
    expect(nthWeekdayOfMonth(2026, 10, 1, 4)).toBe('20261026');
  });

  it('computes Easter Sunday', () => {
    const known: Record<number, string> = {
      2000: '20000423',
      2008: '20080323',
      2011: '20110424',
      2019: '20190421',
      2024: '20240331',
      2025: '20250420',
      2026: '20260405',
      2038: '20380425',
    };
    for (const [year, date] of Object.entries(known)) expect(easterSunday(Number(year))).toBe(date);
    for (let year = 2000; year <= 2099; year += 1) {
      const easter = easterSunday(year);
      expect(dayOfWeek(easter)).toBe(0);
      expect(easter >= `${year}0322` && easter <= `${year}0425`).toBe(true);
    }
  });
});

describe('the Sydney exchange clock', () => {
  it('reads AEDT and AEST wall time', () => {
    expect(sydneyClock(new Date('2025-02-19T05:00:00Z'))).toEqual({ date: '20250219', time: '160000' });
    expect(sydneyClock(new Date('2025-07-01T06:00:00Z'))).toEqual({ date: '20250701', time: '160000' });
    // Midnight must print as 00, not 24.
    expect(sydneyClock(new Date('2025-06-30T14:00:00Z'))).toEqual({ date: '20250701', time: '000000' });
    expect(sydneyClock(new Date('2025-02-19T14:30:05Z'))).toEqual({ date: '20250220', time: '013005' });
  });

  it('converts Sydney wall time to Unix seconds on both sides of DST', () => {
    expect(sydneyUnixSeconds('20250219', '160000')).toBe(Date.UTC(2025, 1, 19, 5) / 1000);
    expect(sydneyUnixSeconds('20250701', '160000')).toBe(Date.UTC(2025, 6, 1, 6) / 1000);
    // DST ends 6 Apr 2025 03:00 AEDT -> 02:00 AEST: the repeated 02:30 takes the earlier instant.
    expect(sydneyUnixSeconds('20250406', '023000')).toBe(Date.UTC(2025, 3, 5, 15, 30) / 1000);
    expect(sydneyUnixSeconds('20250406', '160000')).toBe(Date.UTC(2025, 3, 6, 6) / 1000);
    // DST starts 5 Oct 2025 02:00 AEST -> 03:00 AEDT: the skipped 02:30 moves forward to 03:30.
    expect(sydneyUnixSeconds('20251005', '015959')).toBe(Date.UTC(2025, 9, 4, 15, 59, 59) / 1000);
    expect(sydneyUnixSeconds('20251005', '023000')).toBe(Date.UTC(2025, 9, 4, 16, 30) / 1000);
    expect(sydneyUnixSeconds('20251005', '030000')).toBe(Date.UTC(2025, 9, 4, 16) / 1000);
    expect(() => sydneyUnixSeconds('20250219', '250000')).toThrow(RangeError);
  });

  it('round-trips through the clock', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 2) / 1000, max: Date.UTC(2099, 11, 30) / 1000 }),
        (seconds) => {
          const clock = sydneyClock(new Date(seconds * 1000));
          const back = sydneyUnixSeconds(clock.date, clock.time);
          expect(sydneyClock(new Date(back * 1000))).toEqual(clock);
          // Only the repeated hour may resolve to another instant, one hour earlier.
          expect([0, 3600]).toContain(seconds - back);
        },
      ),
    );
  });
});
