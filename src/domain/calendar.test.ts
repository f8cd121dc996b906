import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  exchangeHolidays,
  isTradingDay,
  lastCompletedTradingDay,
  lastTradingDays,
  nextTradingDay,
  previousTradingDay,
  SESSION_CLOSE,
  SESSION_OPEN,
  SETTLEMENT_TIME,
  tradingDaysBetween,
} from './calendar.js';
import { addDays, dayOfWeek, easterSunday } from './dates.js';

const anyDate = fc
  .date({ min: new Date(Date.UTC(2000, 0, 10)), max: new Date(Date.UTC(2099, 11, 20)), noInvalidDate: true })
  .map((value) => value.toISOString().slice(0, 10).replaceAll('-', ''));

describe('exchange holidays', () => {
  it('lists the 2025 closures, with Australia Day observed on Monday 27 January', () => {
    expect([...exchangeHolidays(2025).keys()]).toEqual([
      '20250101',
      '20250127',
      '20250418',
      '20250421',
      '20250425',
      '20250609',
      '20251225',
      '20251226',
    ]);
    expect(exchangeHolidays(2025).get('20250127')).toBe('Australia Day');
  });

  it('has no Anzac Day closure when 25 April is a Saturday (2026)', () => {
    const holidays = exchangeHolidays(2026);
    expect(holidays.has('20260425')).toBe(false);
    expect(holidays.has('20260427')).toBe(false);
    expect(isTradingDay('20260427')).toBe(true);
    expect([...holidays.keys()]).toEqual([
      '20260101',
      '20260126',
      '20260403',
      '20260406',
      '20260608',
      '20261225',
      '20261228',
    ]);
  });

  it('moves Christmas and Boxing Day off the weekend', () => {
    // Christmas on Saturday: Monday 27 and Tuesday 28.
    expect(exchangeHolidays(2021).get('20211227')).toBe('Christmas Day');
    expect(exchangeHolidays(2021).get('20211228')).toBe('Boxing Day');
    // Christmas on Sunday: Boxing Day stays Monday 26, Christmas observed Tuesday 27.
    expect(exchangeHolidays(2022).get('20221226')).toBe('Boxing Day');
    expect(exchangeHolidays(2022).get('20221227')).toBe('Christmas Day');
    // Christmas on Friday: Boxing Day on Monday 28.
    expect(exchangeHolidays(2026).get('20261228')).toBe('Boxing Day');
  });

  it("moves New Year's Day off the weekend", () => {
    expect(exchangeHolidays(2022).has('20220103')).toBe(true);
    expect(exchangeHolidays(2023).has('20230102')).toBe(true);
  });

  it('closes the Tuesday when Anzac Day is Easter Monday (2011)', () => {
    expect(exchangeHolidays(2011).get('20110425')).toBe('Easter Monday');
    expect(exchangeHolidays(2011).get('20110426')).toBe('Anzac Day');
  });

  it('holds for every year 2000..2099', () => {
    for (let year = 2000; year <= 2099; year += 1) {
      const holidays = exchangeHolidays(year);
      const names = new Set(holidays.values());
      for (const date of holidays.keys()) {
        expect(date.startsWith(String(year)), date).toBe(true);
        expect([0, 6], date).not.toContain(dayOfWeek(date));
      }
      const easter = easterSunday(year);
      expect(holidays.get(addDays(easter, -2))).toBe('Good Friday');
      expect(holidays.get(addDays(easter, 1))).toBe('Easter Monday');
      for (const name of [
        "New Year's Day",
        'Australia Day',
        "King's Birthday",
        'Christmas Day',
        'Boxing Day',
      ]) {
        expect(names.has(name), `${year} ${name}`).toBe(true);
      }
      expect(holidays.size).toBeGreaterThanOrEqual(7);
      expect(holidays.size).toBeLessThanOrEqual(9);
    }
  });

  it('returns a copy that cannot corrupt the calendar', () => {
    exchangeHolidays(2025).clear();
    expect(isTradingDay('20250101')).toBe(false);
  });
});

describe('trading days', () => {
  it('excludes weekends and holidays', () => {
    expect(isTradingDay('20250219')).toBe(true);
    expect(isTradingDay('20250222')).toBe(false);
    expect(isTradingDay('20250223')).toBe(false);
    expect(isTradingDay('20250418')).toBe(false);
  });

  it('steps over weekends and holidays', () => {
    expect(nextTradingDay('20250417')).toBe('20250422');
    expect(nextTradingDay('20251224')).toBe('20251229');
    expect(nextTradingDay('20250221')).toBe('20250224');
    expect(previousTradingDay('20250102')).toBe('20241231');
    expect(previousTradingDay('20250422')).toBe('20250417');
    expect(tradingDaysBetween('20250417', '20250423')).toEqual(['20250417', '20250422', '20250423']);
    expect(tradingDaysBetween('20250423', '20250417')).toEqual([]);
  });

  it('tradingDaysBetween returns only trading weekdays, ascending, and all of them', () => {
    fc.assert(
      fc.property(anyDate, fc.integer({ min: 0, max: 60 }), (from, span) => {
        const to = addDays(from, span);
        const days = tradingDaysBetween(from, to);
        for (const day of days) {
          expect([0, 6]).not.toContain(dayOfWeek(day));
          expect(isTradingDay(day)).toBe(true);
          expect(day >= from && day <= to).toBe(true);
        }
        for (let index = 1; index < days.length; index += 1) {
          expect(nextTradingDay(days[index - 1] ?? '')).toBe(days[index]);
        }
        let expected = 0;
        for (let offset = 0; offset <= span; offset += 1)
          if (isTradingDay(addDays(from, offset))) expected += 1;
        expect(days.length).toBe(expected);
        // At most 5 in any 7 consecutive days.
        expect(days.length).toBeLessThanOrEqual(Math.ceil(((span + 1) * 5) / 7) + 1);
      }),
    );
  });

  it('next and previous are inverse on trading days', () => {
    fc.assert(
      fc.property(anyDate, (date) => {
        const next = nextTradingDay(date);
        expect(next > date).toBe(true);
        expect(isTradingDay(next)).toBe(true);
        expect(tradingDaysBetween(addDays(date, 1), addDays(next, -1))).toEqual([]);
        expect(previousTradingDay(next) <= date).toBe(true);
        if (isTradingDay(date)) {
          expect(previousTradingDay(nextTradingDay(date))).toBe(date);
          expect(nextTradingDay(previousTradingDay(date))).toBe(date);
        }
      }),
    );
  });

  it('lastTradingDays ends at until, or the trading day before it', () => {
    expect(lastTradingDays(2, '20250219')).toEqual(['20250218', '20250219']);
    expect(lastTradingDays(3, '20250421')).toEqual(['20250415', '20250416', '20250417']);
    expect(lastTradingDays(1, '20250222')).toEqual(['20250221']);
    expect(lastTradingDays(0, '20250219')).toEqual([]);
    fc.assert(
      fc.property(anyDate, fc.integer({ min: 1, max: 40 }), (until, count) => {
        const days = lastTradingDays(count, until);
        expect(days).toHaveLength(count);
        const last = days[days.length - 1] ?? '';
        expect(last <= until).toBe(true);
        expect(tradingDaysBetween(days[0] ?? '', until)).toEqual(days);
      }),
    );
  });
});

describe('session', () => {
  it('defines the session times', () => {
    expect([SESSION_OPEN, SETTLEMENT_TIME, SESSION_CLOSE]).toEqual(['100000', '160000', '170000']);
  });

  it('completes a trading day at 17:00 Sydney time', () => {
    // Wednesday 19 Feb 2025, AEDT (UTC+11).
    expect(lastCompletedTradingDay(new Date('2025-02-19T05:59:59Z'))).toBe('20250218');
    expect(lastCompletedTradingDay(new Date('2025-02-19T06:00:00Z'))).toBe('20250219');
    // 01:00 Thursday in Sydney is still Wednesday in UTC: Wednesday is the completed day.
    expect(lastCompletedTradingDay(new Date('2025-02-19T14:00:00Z'))).toBe('20250219');
    // Saturday evening; Easter Monday evening (AEST, UTC+10).
    expect(lastCompletedTradingDay(new Date('2025-02-22T08:00:00Z'))).toBe('20250221');
    expect(lastCompletedTradingDay(new Date('2025-04-21T08:00:00Z'))).toBe('20250417');
    expect(lastCompletedTradingDay(new Date('2025-07-01T07:00:00Z'))).toBe('20250701');
    expect(lastCompletedTradingDay(new Date('2025-07-01T06:59:59Z'))).toBe('20250630');
  });
});
