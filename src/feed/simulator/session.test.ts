import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deliveryHours } from '../../domain/hours.js';
import { Rng } from './prng.js';
import { allocateLegs } from './session.js';
import { futures, hoursWeightedCents, stripQuarters } from './structure.js';

describe('strip leg allocation', () => {
  const strips = [futures('HN', 12, 2026), futures('HS', 6, 2027), futures('HV', 12, 2028)];

  it('legs average (hours-weighted) to the strip price exactly', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...strips),
        fc.array(fc.double({ min: 3000, max: 20000, noNaN: true }), { minLength: 4, maxLength: 4 }),
        fc.integer({ min: -300, max: 300 }),
        fc.integer(),
        (strip, mids, offset, seed) => {
          const legs = stripQuarters(strip);
          const hours = legs.map((leg) => deliveryHours(leg));
          const totalHours = hours.reduce((sum, value) => sum + value, 0);
          const stripMid = legs.reduce((sum, _, i) => sum + (mids[i] ?? 0) * (hours[i] ?? 0), 0) / totalHours;
          const price = Math.round(stripMid) + offset;
          const prices = allocateLegs(new Rng(seed), legs, mids, stripMid, price);
          expect(hoursWeightedCents(legs, prices)).toBe(price);
          prices.forEach((legPrice, i) => {
            // Each leg stays near its own quarter shifted by the strip's distance from its mid.
            expect(Math.abs(legPrice - (mids[i] ?? 0) - (price - stripMid))).toBeLessThan(60);
          });
        },
      ),
    );
  });
});
