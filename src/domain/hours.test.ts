import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRODUCTS } from './catalogue.js';
import { type Contract, parseContractCode } from './contract.js';
import { addDays, dayOfWeek } from './dates.js';
import { multiplyExact } from './decimal.js';
import { deliveryHours, deliveryPeriod } from './hours.js';

function contract(code: string): Contract {
  const parsed = parseContractCode(code);
  if (!parsed) throw new Error(`test code refused: ${code}`);
  return parsed;
}

const hours = (code: string) => deliveryHours(contract(code));

describe('delivery period', () => {
  it('ends with the month letter', () => {
    expect(deliveryPeriod(contract('BNH2026'))).toEqual({ first: '20260101', last: '20260331' });
    expect(deliveryPeriod(contract('BNZ2025'))).toEqual({ first: '20251001', last: '20251231' });
    expect(deliveryPeriod(contract('HNM2026'))).toEqual({ first: '20250701', last: '20260630' });
    expect(deliveryPeriod(contract('HNZ2026'))).toEqual({ first: '20260101', last: '20261231' });
    expect(deliveryPeriod(contract('EDG2024'))).toEqual({ first: '20240201', last: '20240229' });
    expect(deliveryPeriod(contract('GZJ2025'))).toEqual({ first: '20250401', last: '20250430' });
  });

  it('is the December expiry month for certificate futures', () => {
    expect(deliveryPeriod(contract('CAZ2026'))).toEqual({ first: '20261201', last: '20261231' });
    expect(deliveryPeriod(contract('CNZ2026'))).toEqual({ first: '20261201', last: '20261231' });
  });

  it('is the underlying period for options', () => {
    expect(deliveryPeriod(contract('BNM2025C0016000'))).toEqual(deliveryPeriod(contract('BNM2025')));
  });
});

describe('delivery hours', () => {
  it('counts base load as days x 24', () => {
    expect(hours('BNH2026')).toBe(2160);
    expect(hours('BNH2024')).toBe(2184);
    expect(hours('BNM2026')).toBe(2184);
    expect(hours('BNU2026')).toBe(2208);
    expect(hours('BNZ2026')).toBe(2208);
    expect(hours('HNZ2026')).toBe(8760);
    expect(hours('HNZ2024')).toBe(8784);
    expect(hours('HNM2026')).toBe(8760);
    expect(hours('HNM2024')).toBe(8784); // Jul 2023..Jun 2024 holds 29 Feb 2024
    expect(hours('ENF2026')).toBe(744);
    expect(hours('EQG2024')).toBe(696);
    expect(hours('EAH2026')).toBe(2160);
    expect(hours('EBZ2024')).toBe(8784);
  });

  it('gives caps base hours and options their underlying hours', () => {
    expect(hours('GNU2025')).toBe(2208);
    expect(hours('BNH20260010000C')).toBe(2160);
    expect(hours('HNM2026C0012000')).toBe(8760);
    expect(hours('PVH20260010000P')).toBe(hours('PVH2026'));
  });

  it('gives gas and environmental products no hours', () => {
    expect(hours('GZJ2025')).toBe(0);
    expect(hours('CAZ2026')).toBe(0);
    expect(hours('CLZ2026')).toBe(0);
    expect(hours('CNZ2026')).toBe(0);
  });

  it('reproduces the published trade log face values', () => {
    // docs/market-rules.md, reference rows: 2 lots at 121.85 over 8760 h = 2134812.00; legs BNU2025 and
    // BNH2026.
    expect(multiplyExact(2, 12185, hours('HNM2026'))).toBe(213_481_200);
    expect(multiplyExact(2, 12282, hours('BNU2025'))).toBe(54_237_312);
    expect(multiplyExact(2, 12633, hours('BNH2026'))).toBe(54_574_560);
  });

  it('counts peak hours by hand for Q1 2026', () => {
    // Jan 2026 has 22 weekdays, Feb 20, Mar 22 = 64. NSW holidays on weekdays: 1 Jan (Thu),
    // 26 Jan (Mon) -> 62 days x 15 h. VIC also has Labour Day, Mon 9 Mar -> 61 days.
    expect(hours('PNH2026')).toBe(62 * 15);
    expect(hours('PVH2026')).toBe(61 * 15);
    // SA: Adelaide Cup is also 9 Mar; QLD has no state holiday in Q1.
    expect(hours('PSH2026')).toBe(61 * 15);
    expect(hours('PQH2026')).toBe(62 * 15);
    // Otahuhu Q1 2026: 1, 2 Jan, Auckland Anniversary 26 Jan, Waitangi 6 Feb (Fri) -> 60 days.
    expect(hours('ECH2026')).toBe(60 * 15);
    // Benmore has no anniversary day in Q1 -> 61 days.
    expect(hours('EGH2026')).toBe(61 * 15);
  });

  it('peak hours differ between NSW and VIC when a state holiday is in the quarter', () => {
    // Q4 2025: NSW Labour Day 6 Oct; VIC Melbourne Cup 4 Nov -> the same count, different days.
    expect(hours('PNZ2025')).toBe(hours('PVZ2025'));
    // Q2 2025: both have King's Birthday; QLD has Labour Day 5 May instead.
    expect(hours('PNM2025')).toBe(hours('PQM2025'));
    // Q1: VIC Labour Day has no NSW counterpart.
    expect(hours('PVH2025')).toBe(hours('PNH2025') - 15);
  });

  it('never counts more than 15 h per weekday, in whole days', () => {
    const peak = PRODUCTS.filter((product) => product.load === 'peak');
    fc.assert(
      fc.property(
        fc.constantFrom(...peak),
        fc.constantFrom(3, 6, 9, 12),
        fc.integer({ min: 2000, max: 2099 }),
        (product, month, year) => {
          const value = deliveryHours({ product, month, year });
          const { first, last } = deliveryPeriod({ product, month, year });
          let weekdays = 0;
          for (let day = first; day <= last; day = addDays(day, 1)) {
            if (dayOfWeek(day) !== 0 && dayOfWeek(day) !== 6) weekdays += 1;
          }
          expect(value % 15).toBe(0);
          expect(value).toBeLessThanOrEqual(weekdays * 15);
          // Never more than about ten holidays in one quarter.
          expect(value).toBeGreaterThanOrEqual((weekdays - 10) * 15);
        },
      ),
    );
  });
});
