import { describe, expect, it } from 'vitest';
import { daysInMonth } from '../../domain/dates.js';
import { deliveryHours } from '../../domain/hours.js';
import { Curve } from './curve.js';
import { futures, hoursWeightedCents, stripQuarters } from './structure.js';

describe('forward curve', () => {
  const curve = new Curve(11);
  curve.advance('20250210', 0);

  it('a base quarter is the day-weighted mean of its months', () => {
    for (const [root, month] of [
      ['BN', 3],
      ['EA', 9],
    ] as const) {
      const monthRoot = root === 'BN' ? 'EN' : 'ED';
      const months = [month - 2, month - 1, month];
      const weighted = months.reduce(
        (sum, m) => sum + daysInMonth(2026, m) * curve.fair(futures(monthRoot, m, 2026)),
        0,
      );
      const days = months.reduce((sum, m) => sum + daysInMonth(2026, m), 0);
      expect(curve.fair(futures(root, month, 2026))).toBeCloseTo(weighted / days, 8);
    }
  });

  it('a strip is the hours-weighted mean of its four quarters', () => {
    const strip = futures('HQ', 6, 2027);
    const legs = stripQuarters(strip);
    expect(legs.map((leg) => leg.code)).toEqual(['BQU2026', 'BQZ2026', 'BQH2027', 'BQM2027']);
    const hours = legs.map((leg) => deliveryHours(leg));
    const mean = legs.reduce((sum, leg, i) => sum + (hours[i] ?? 0) * curve.fair(leg), 0) / 8760;
    expect(hours.reduce((a, b) => a + b, 0)).toBe(8760);
    expect(curve.fair(strip)).toBeCloseTo(mean, 8);
  });

  it('exact strip price from whole-cent quarters, rounded half up', () => {
    // The real 19 Feb 2025 legs of HNM2026 with a fourth leg that makes the mean land on .5.
    const legs = stripQuarters(futures('HN', 6, 2026));
    expect(hoursWeightedCents(legs, [10_000, 10_000, 10_000, 10_000])).toBe(10_000);
    expect(hoursWeightedCents(legs, [12_282, 10_956, 12_633, 13_000])).toBe(
      Math.floor((2208 * 12_282 + 2208 * 10_956 + 2160 * 12_633 + 2184 * 13_000) / 8760 + 0.5),
    );
  });

  it('levels move with the days and are seeded', () => {
    const a = new Curve(11);
    const b = new Curve(11);
    a.advance('20250211', 1);
    b.advance('20250211', 1);
    const code = futures('BV', 9, 2025);
    expect(a.fair(code)).toBe(b.fair(code));
    expect(a.fair(code)).not.toBe(curve.fair(code));
    expect(new Curve(12).fair(code)).not.toBe(new Curve(11).fair(code));
  });
});
