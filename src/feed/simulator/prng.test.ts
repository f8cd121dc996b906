import { describe, expect, it } from 'vitest';
import { deriveSeed, Rng } from './prng.js';

describe('seeded random source', () => {
  it('repeats exactly for a seed and label, and differs across labels', () => {
    const draw = (rng: Rng) => Array.from({ length: 20 }, () => rng.float());
    expect(draw(Rng.derive(7, 'day', '20250102'))).toEqual(draw(Rng.derive(7, 'day', '20250102')));
    expect(draw(Rng.derive(7, 'day', '20250102'))).not.toEqual(draw(Rng.derive(7, 'day', '20250103')));
    expect(deriveSeed(1, 'a')).not.toBe(deriveSeed(2, 'a'));
    expect(Number.isInteger(deriveSeed(2 ** 40 + 3, 'x'))).toBe(true);
  });

  it('draws in range with the intended moments', () => {
    const rng = new Rng(42);
    const n = 20_000;
    let sum = 0;
    let squares = 0;
    let poisson = 0;
    for (let i = 0; i < n; i++) {
      const value = rng.normal();
      sum += value;
      squares += value * value;
      poisson += rng.poisson(3);
      const int = rng.int(1, 6);
      expect(int >= 1 && int <= 6).toBe(true);
    }
    expect(sum / n).toBeCloseTo(0, 1);
    expect(squares / n).toBeCloseTo(1, 1);
    expect(poisson / n).toBeCloseTo(3, 1);
  });

  it('picks by weight and never an item of weight 0', () => {
    const rng = new Rng(5);
    const counts = [0, 0, 0];
    for (let i = 0; i < 10_000; i++) {
      const index = rng.weightedIndex([1, 0, 3]);
      counts[index] = (counts[index] ?? 0) + 1;
    }
    expect(counts[1]).toBe(0);
    expect((counts[2] ?? 0) / (counts[0] ?? 1)).toBeGreaterThan(2.5);
  });
});
