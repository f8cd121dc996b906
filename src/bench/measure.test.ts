import { describe, expect, it } from 'vitest';
import { shownAgainst } from './measure.js';

describe('shownAgainst', () => {
  it('prints the usual decimals when they leave the value on its side of the target', () => {
    expect(shownAgainst(0.31, 0.3)).toBe('0.31');
    expect(shownAgainst(0.24, 0.3)).toBe('0.24');
    expect(shownAgainst(1.56, 1.5)).toBe('1.56');
    expect(shownAgainst(12.34, 10, 1)).toBe('12.3');
  });

  it('adds decimals where rounding would print the target for a value on one side of it', () => {
    // 0.2966 of a 0.3 target is not met, and "0.30" would read as met.
    expect(shownAgainst(0.2966, 0.3)).toBe('0.297');
    expect(shownAgainst(0.2996, 0.3)).toBe('0.2996');
    expect(shownAgainst(0.3004, 0.3)).toBe('0.3004');
    expect(shownAgainst(1.5004, 1.5)).toBe('1.5004');
    expect(shownAgainst(9.996, 10)).toBe('9.996');
    expect(shownAgainst(19.96, 20, 1)).toBe('19.96');
  });

  it('prints a value equal to its target as usual, and stops at six decimals', () => {
    expect(shownAgainst(0.3, 0.3)).toBe('0.30');
    expect(shownAgainst(20, 20, 1)).toBe('20.0');
    expect(shownAgainst(0.3 - 1e-9, 0.3)).toBe('0.300000');
  });
});
