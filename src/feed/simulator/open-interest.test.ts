import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OpenInterest } from './open-interest.js';
import { Rng } from './prng.js';
import { futures } from './structure.js';

describe('open interest', () => {
  it('never goes negative and moves by at most the traded volume', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ leg: fc.boolean(), volume: fc.integer({ min: 1, max: 200 }) }), {
          maxLength: 200,
        }),
        fc.integer(),
        (trades, seed) => {
          const book = new OpenInterest(seed);
          const quarter = futures('BN', 9, 2026);
          book.startDay('20250210', [quarter, futures('BN', 12, 2026)]);
          const rng = new Rng(seed);
          for (const { leg, volume } of trades) {
            const codes = leg ? ['BNU2026', 'BNZ2026'] : ['BNU2026'];
            const before = codes.map((code) => book.get(code));
            book.trade(codes, volume, rng);
            codes.forEach((code, i) => {
              expect(book.get(code)).toBeGreaterThanOrEqual(0);
              expect(Math.abs(book.get(code) - (before[i] ?? 0))).toBeLessThanOrEqual(volume);
            });
          }
        },
      ),
    );
  });

  it('starts from the seed on the first day, AU strips at 0, new listings at 0 afterwards', () => {
    const book = new OpenInterest(9);
    const near = futures('BN', 9, 2025);
    const strip = futures('HN', 12, 2026);
    book.startDay('20250210', [near, strip]);
    expect(book.get(near.code)).toBeGreaterThan(0);
    expect(book.get(strip.code)).toBe(0);
    const again = new OpenInterest(9);
    again.startDay('20250210', [near, strip]);
    expect(again.get(near.code)).toBe(book.get(near.code));
    const later = futures('BN', 12, 2025);
    book.startDay('20250211', [near, later]);
    expect(book.get(later.code)).toBe(0);
    expect(book.get(near.code)).toBeGreaterThan(0);
  });
});
