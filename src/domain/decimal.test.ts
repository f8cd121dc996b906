import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  divideRounded,
  divideRoundedBig,
  formatScaled,
  formatScaledBig,
  multiplyExact,
  parseScaled,
  rescaleDown,
} from './decimal.js';

describe('exact decimals', () => {
  it('parses and formats prices without floating point', () => {
    expect(parseScaled('84.50', 2)).toBe(8450);
    expect(parseScaled('84.5', 2)).toBe(8450);
    expect(parseScaled('0.01', 2)).toBe(1);
    expect(parseScaled('-3.20', 2)).toBe(-320);
    expect(formatScaled(8450, 2)).toBe('84.50');
    expect(formatScaled(5, 2)).toBe('0.05');
    expect(formatScaled(-320, 2)).toBe('-3.20');
    expect(formatScaled(0, 2)).toBe('0.00');
  });

  it('refuses more decimals than the scale and anything that is not a plain decimal', () => {
    for (const bad of ['84.505', '1e3', ' 1', '1.', '.5', '+1', 'NaN', '', '1,5', '0x10']) {
      expect(parseScaled(bad, 2), bad).toBeUndefined();
    }
  });

  it('round-trips every scaled integer', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 0, max: 4 }), (value, scale) => {
        expect(parseScaled(formatScaled(value, scale), scale)).toBe(value);
      }),
    );
  });

  it('computes the real trade log face values of docs/market-rules.md exactly', () => {
    // face value millis = volume x price cents x hours x MW tenths
    const rows: [number, string, number, string][] = [
      [2, '121.85', 8760, '2134812.00'],
      [2, '122.82', 2208, '542373.12'],
      [2, '109.56', 2208, '483816.96'],
      [2, '126.33', 2160, '545745.60'],
    ];
    for (const [volume, price, hours, face] of rows) {
      const millis = multiplyExact(volume, parseScaled(price, 2) ?? Number.NaN, hours, 10);
      expect(formatScaled(rescaleDown(millis, 1), 2)).toBe(face);
    }
  });

  it('rounds half away from zero', () => {
    expect(rescaleDown(22082208, 1)).toBe(2208221);
    expect(rescaleDown(15, 1)).toBe(2);
    expect(rescaleDown(14, 1)).toBe(1);
    expect(rescaleDown(-15, 1)).toBe(-2);
    expect(divideRounded(7, 3)).toBe(2);
    expect(divideRounded(3, 2)).toBe(2);
    expect(divideRounded(5, 3)).toBe(2);
    expect(divideRounded(4, 3)).toBe(1);
  });

  it('refuses products outside the exact integer range', () => {
    expect(() => multiplyExact(2 ** 40, 2 ** 20)).toThrow(RangeError);
  });

  it('formats and divides bigints beyond 2^53 exactly', () => {
    expect(formatScaledBig(2n ** 53n + 1n, 2)).toBe('90071992547409.93');
    expect(formatScaledBig(-5n, 2)).toBe('-0.05');
    expect(formatScaledBig(0n, 2)).toBe('0.00');
    expect(formatScaledBig(1234n, 0)).toBe('1234');
    expect(divideRoundedBig(10n ** 22n + 500n, 1000n)).toBe(10n ** 19n + 1n);
    expect(divideRoundedBig(10n ** 22n + 499n, 1000n)).toBe(10n ** 19n);
    expect(divideRoundedBig(-7n, 2n)).toBe(-4n);
    expect(divideRoundedBig(7n, 3n)).toBe(2n);
    expect(() => divideRoundedBig(1n, 0n)).toThrow(RangeError);
  });
});
