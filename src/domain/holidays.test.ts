import { describe, expect, it } from 'vitest';
import { addDays, dayOfWeek, easterSunday } from './dates.js';
import {
  aucklandAnniversary,
  canterburyAnniversary,
  consecutivePair,
  MATARIKI,
  nextWeekday,
  regionalHolidays,
} from './holidays.js';

describe('Australian regional holidays', () => {
  it('has the national days in every state', () => {
    for (const region of ['nsw', 'qld', 'vic', 'sa', 'au', 'wallumbilla'] as const) {
      const holidays = regionalHolidays(region, 2025);
      for (const date of [
        '20250101',
        '20250127',
        '20250418',
        '20250421',
        '20250425',
        '20251225',
        '20251226',
      ]) {
        expect(holidays.has(date), `${region} ${date}`).toBe(true);
      }
    }
  });

  it('has each state its own days', () => {
    const nsw = regionalHolidays('nsw', 2025);
    const vic = regionalHolidays('vic', 2025);
    const qld = regionalHolidays('qld', 2025);
    const sa = regionalHolidays('sa', 2025);
    expect(nsw.has('20250609') && nsw.has('20251006')).toBe(true);
    expect(nsw.has('20250310') || nsw.has('20251104') || nsw.has('20250505')).toBe(false);
    // VIC: Labour Day 2nd Monday of March, Melbourne Cup 1st Tuesday of November.
    expect(vic.has('20250310') && vic.has('20251104') && vic.has('20250609')).toBe(true);
    expect(vic.has('20251006')).toBe(false);
    // QLD: Labour Day in May, King's Birthday in October, none in June.
    expect(qld.has('20250505') && qld.has('20251006')).toBe(true);
    expect(qld.has('20250609')).toBe(false);
    // SA: Adelaide Cup, King's Birthday, Labour Day, Proclamation Day.
    expect(sa.has('20250310') && sa.has('20250609') && sa.has('20251006') && sa.has('20251226')).toBe(true);
  });

  it("follows Queensland's history of moving Labour Day and the sovereign's birthday", () => {
    expect(regionalHolidays('qld', 2014).has('20141006')).toBe(true); // Labour Day
    expect(regionalHolidays('qld', 2014).has('20140609')).toBe(true); // Queen's Birthday
    expect(regionalHolidays('qld', 2014).has('20140505')).toBe(false);
    expect(regionalHolidays('qld', 2016).has('20160502')).toBe(true);
    expect(regionalHolidays('qld', 2016).has('20161003')).toBe(true);
  });

  it('substitutes Christmas, Boxing Day and Anzac Day where the state does', () => {
    expect(regionalHolidays('nsw', 2021).has('20211227')).toBe(true);
    expect(regionalHolidays('nsw', 2021).has('20211228')).toBe(true);
    // Anzac Day on a Sunday (2021): a Monday holiday in QLD and SA, not in NSW or VIC.
    expect(regionalHolidays('qld', 2021).has('20210426')).toBe(true);
    expect(regionalHolidays('sa', 2021).has('20210426')).toBe(true);
    expect(regionalHolidays('nsw', 2021).has('20210426')).toBe(false);
    expect(regionalHolidays('vic', 2021).has('20210426')).toBe(false);
    // Anzac Day on a Saturday (2026): no substitute anywhere.
    for (const region of ['nsw', 'qld', 'vic', 'sa'] as const) {
      expect(regionalHolidays(region, 2026).has('20260427'), region).toBe(false);
    }
  });

  it('the national set is the part every state shares', () => {
    for (let year = 2000; year <= 2060; year += 1) {
      const national = regionalHolidays('au', year);
      expect(regionalHolidays('wallumbilla', year)).toEqual(national);
      for (const state of ['nsw', 'qld', 'vic', 'sa'] as const) {
        for (const date of national)
          expect(regionalHolidays(state, year).has(date), `${state} ${date}`).toBe(true);
      }
    }
  });
});

describe('New Zealand regional holidays', () => {
  it('lists the 2025 Otahuhu (Auckland) and Benmore (Canterbury) holidays', () => {
    const national = [
      '20250101',
      '20250102',
      '20250206',
      '20250418',
      '20250421',
      '20250425',
      '20250602',
      '20250620',
      '20251027',
      '20251225',
      '20251226',
    ];
    const weekdays = (set: Set<string>) =>
      [...set].filter((date) => ![0, 6].includes(dayOfWeek(date))).sort();
    expect(weekdays(regionalHolidays('otahuhu', 2025))).toEqual([...national, '20250127'].sort());
    expect(weekdays(regionalHolidays('benmore', 2025))).toEqual([...national, '20251114'].sort());
    expect(weekdays(regionalHolidays('nz', 2025))).toEqual(national);
  });

  it('Mondayises weekend holidays', () => {
    const y2026 = regionalHolidays('nz', 2026);
    expect(y2026.has('20260427')).toBe(true); // Anzac Day on Saturday
    expect(y2026.has('20261228')).toBe(true); // Boxing Day on Saturday
    const y2027 = regionalHolidays('nz', 2027);
    expect(y2027.has('20270104')).toBe(true); // 2 January on Saturday
    expect(y2027.has('20270208')).toBe(true); // Waitangi Day on Saturday
    const y2022 = regionalHolidays('nz', 2022);
    expect(y2022.has('20220103') && y2022.has('20220104')).toBe(true); // 1 Jan Sat, 2 Jan Sun
    // Waitangi and Anzac Day were not Mondayised before 2014.
    expect(regionalHolidays('nz', 2010).has('20100208')).toBe(false);
  });

  it('has Matariki from 2022, always a Friday in June or July', () => {
    expect(Object.keys(MATARIKI)).toHaveLength(31);
    for (const [year, date] of Object.entries(MATARIKI)) {
      expect(date.startsWith(year)).toBe(true);
      expect(dayOfWeek(date), date).toBe(5);
      expect(['06', '07']).toContain(date.slice(4, 6));
      expect(regionalHolidays('nz', Number(year)).has(date)).toBe(true);
    }
    // Before 2022 the only midwinter holiday is the sovereign's birthday.
    expect([...regionalHolidays('nz', 2021)].filter((date) => /^2021(06|07)/.test(date))).toEqual([
      '20210607',
    ]);
  });

  it('computes the anniversary days', () => {
    expect(aucklandAnniversary(2025)).toBe('20250127'); // 29 Jan Wednesday
    expect(aucklandAnniversary(2026)).toBe('20260126'); // Thursday
    expect(aucklandAnniversary(2027)).toBe('20270201'); // Friday
    expect(aucklandAnniversary(2028)).toBe('20280131'); // Saturday
    expect(canterburyAnniversary(2025)).toBe('20251114');
    expect(canterburyAnniversary(2026)).toBe('20261113');
    for (let year = 2000; year <= 2099; year += 1) {
      expect(dayOfWeek(aucklandAnniversary(year))).toBe(1);
      expect(dayOfWeek(canterburyAnniversary(year))).toBe(5);
    }
  });

  it('counts Good Friday and Easter Monday', () => {
    for (let year = 2000; year <= 2099; year += 1) {
      const easter = easterSunday(year);
      const holidays = regionalHolidays('benmore', year);
      expect(holidays.has(addDays(easter, -2)) && holidays.has(addDays(easter, 1))).toBe(true);
    }
  });
});

describe('weekend substitution helpers', () => {
  it('moves a weekend day to Monday', () => {
    expect(nextWeekday('20250125')).toBe('20250127');
    expect(nextWeekday('20250126')).toBe('20250127');
    expect(nextWeekday('20250127')).toBe('20250127');
  });

  it('observes a pair of holidays on distinct weekdays', () => {
    const dates = (first: string) => consecutivePair(first, 'a', 'b').map(([date]) => date);
    expect(dates('20211225')).toEqual(['20211227', '20211228']); // Sat, Sun
    expect(dates('20221225')).toEqual(['20221226', '20221227']); // Sun, Mon
    expect(dates('20261225')).toEqual(['20261225', '20261228']); // Fri, Sat
    expect(dates('20251225')).toEqual(['20251225', '20251226']); // Thu, Fri
  });
});
