import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { black76Price, impliedVolatility, normalCdf, smileVolatility } from './black76.js';

const market = fc.record({
  forward: fc.double({ min: 5, max: 300, noNaN: true }),
  strikeRatio: fc.double({ min: 0.5, max: 2, noNaN: true }),
  years: fc.double({ min: 0.01, max: 4, noNaN: true }),
  volatility: fc.double({ min: 0.05, max: 1.2, noNaN: true }),
  rate: fc.double({ min: 0, max: 0.08, noNaN: true }),
});

describe('Black-76', () => {
  it('normal CDF matches known values', () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959964)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.158655, 6);
  });

  it('prices a textbook case', () => {
    // F = 100, K = 100, T = 1, sigma = 20 %, r = 0: ATM call = F (2 N(sigma/2) - 1).
    const call = black76Price({
      forward: 100,
      strike: 100,
      years: 1,
      volatility: 0.2,
      rate: 0,
      optionType: 'C',
    });
    expect(call).toBeCloseTo(100 * (2 * normalCdf(0.1) - 1), 9);
    expect(call).toBeCloseTo(7.9656, 3);
  });

  it('satisfies put-call parity: C - P = e^(-rT) (F - K)', () => {
    fc.assert(
      fc.property(market, ({ forward, strikeRatio, years, volatility, rate }) => {
        const strike = forward * strikeRatio;
        const input = { forward, strike, years, volatility, rate };
        const call = black76Price({ ...input, optionType: 'C' });
        const put = black76Price({ ...input, optionType: 'P' });
        expect(call - put).toBeCloseTo(Math.exp(-rate * years) * (forward - strike), 6);
      }),
    );
  });

  it('stays within no-arbitrage bounds', () => {
    fc.assert(
      fc.property(market, ({ forward, strikeRatio, years, volatility, rate }) => {
        const strike = forward * strikeRatio;
        const discount = Math.exp(-rate * years);
        const call = black76Price({ forward, strike, years, volatility, rate, optionType: 'C' });
        expect(call).toBeGreaterThanOrEqual(discount * Math.max(forward - strike, 0) - 1e-9);
        expect(call).toBeLessThanOrEqual(discount * forward + 1e-9);
      }),
    );
  });

  it('recovers the volatility from the premium (implied volatility round trip)', () => {
    fc.assert(
      fc.property(market, fc.constantFrom('C' as const, 'P' as const), (m, optionType) => {
        const strike = m.forward * m.strikeRatio;
        const base = { forward: m.forward, strike, years: m.years, rate: m.rate, optionType };
        const premium = black76Price({ ...base, volatility: m.volatility });
        // With (almost) no time value the premium carries no information about volatility.
        const intrinsic =
          Math.exp(-m.rate * m.years) *
          Math.max(optionType === 'C' ? m.forward - strike : strike - m.forward, 0);
        fc.pre(premium - intrinsic > 1e-3 * m.forward);
        const implied = impliedVolatility(premium, base);
        expect(implied).toBeDefined();
        expect(black76Price({ ...base, volatility: implied ?? 0 })).toBeCloseTo(premium, 6);
        expect(implied ?? 0).toBeCloseTo(m.volatility, 4);
      }),
    );
  });

  it('has no implied volatility for a premium below intrinsic value', () => {
    const base = { forward: 120, strike: 100, years: 0.5, rate: 0, optionType: 'C' as const };
    expect(impliedVolatility(10, base)).toBeUndefined();
  });

  it('smile: lowest near the money, dearer in both wings', () => {
    const atm = 0.28;
    const at = smileVolatility(atm, 100, 100);
    expect(at).toBeCloseTo(atm, 10);
    expect(smileVolatility(atm, 100, 60)).toBeGreaterThan(at);
    expect(smileVolatility(atm, 100, 160)).toBeGreaterThan(at);
    expect(smileVolatility(atm, 100, 160)).toBeLessThan(0.6);
  });
});
