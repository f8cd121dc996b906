import { describe, expect, it } from 'vitest';
import { shownAgainst } from './measure.js';

describe('shownAgainst', () => {
  it.each([
    // value, target, decimals asked, printed: the usual decimals when they keep the value on its side
    [0.31, 0.3, 2, '0.31'],
    [0.24, 0.3, 2, '0.24'],
    [1.56, 1.5, 2, '1.56'],
    [12.34, 10, 1, '12.3'],
    // more where rounding would print the target: 0.2966 of a 0.3 target is not met, and "0.30" reads as met
    [0.2966, 0.3, 2, '0.297'],
    [0.2996, 0.3, 2, '0.2996'],
    [0.3004, 0.3, 2, '0.3004'],
    [1.5004, 1.5, 2, '1.5004'],
    [9.996, 10, 2, '9.996'],
    [19.96, 20, 1, '19.96'],
    // the target itself as usual; at most six decimals
    [0.3, 0.3, 2, '0.30'],
    [20, 20, 1, '20.0'],
    [0.3 - 1e-9, 0.3, 2, '0.300000'],
  ])('prints %d against a target of %d (%d decimals asked) as %s', (value, target, digits, text) => {
    expect(shownAgainst(value, target, digits)).toBe(text);
  });
});
