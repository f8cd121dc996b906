import { describe, expect, it } from 'vitest';
import { average, colonTime, integer, millisToCents, price, volatility } from './numbers.js';

describe('number formats', () => {
  it('prints prices and volatilities with exactly 2 decimals and counts as integers', () => {
    expect(price(8450)).toBe('84.50');
    expect(price(0)).toBe('0.00');
    expect(price(-116)).toBe('-1.16');
    expect(price(null)).toBeNull();
    expect(volatility(2228)).toBe('22.28');
    expect(integer(1920)).toBe('1920');
    expect(integer(null)).toBeNull();
  });

  it('rounds money half up from millis', () => {
    expect(millisToCents(542_373_120)).toBe(54_237_312);
    expect(millisToCents(5)).toBe(1);
    expect(millisToCents(4)).toBe(0);
  });

  it('averages with 2 decimals, "0.00" without days', () => {
    expect(average(1199n, 3)).toBe('399.67');
    expect(average(1n, 8)).toBe('0.13');
    expect(average(10n, 0)).toBe('0.00');
  });

  it('writes the trade log time with colons', () => {
    expect(colonTime('095901')).toBe('09:59:01');
  });
});
