import type { OptionType } from '../../domain/contract.js';

/** Inputs of Black's 1976 model for an option on a futures price. */
export interface Black76Input {
  readonly forward: number;
  readonly strike: number;
  /** Years to expiry. */
  readonly years: number;
  /** Annualised volatility as a fraction (0.25 = 25 %). */
  readonly volatility: number;
  /** Continuously compounded interest rate (discounts the premium, paid up front). */
  readonly rate: number;
  readonly optionType: OptionType;
}

/** Standard normal cumulative distribution (Zelen and Severo 26.2.17, error < 7.5e-8). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(x));
  const density = Math.exp((-x * x) / 2) / Math.sqrt(2 * Math.PI);
  const tail =
    density *
    t *
    (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return x >= 0 ? 1 - tail : tail;
}

export function black76Price(input: Black76Input): number {
  const { forward, strike, years, volatility, rate, optionType } = input;
  const discount = Math.exp(-rate * years);
  const intrinsicCall = Math.max(forward - strike, 0);
  const intrinsicPut = Math.max(strike - forward, 0);
  if (years <= 0 || volatility <= 0) return discount * (optionType === 'C' ? intrinsicCall : intrinsicPut);
  const spread = volatility * Math.sqrt(years);
  const d1 = (Math.log(forward / strike) + (spread * spread) / 2) / spread;
  const d2 = d1 - spread;
  return optionType === 'C'
    ? discount * (forward * normalCdf(d1) - strike * normalCdf(d2))
    : discount * (strike * normalCdf(-d2) - forward * normalCdf(-d1));
}

/**
 * The volatility at which Black-76 returns `premium`, by bisection (the premium is monotone in
 * volatility, so bisection cannot diverge the way Newton can far from the money). Undefined
 * when the premium lies outside what any volatility in (0, 500 %] can produce.
 */
export function impliedVolatility(
  premium: number,
  input: Omit<Black76Input, 'volatility'>,
  tolerance = 1e-10,
): number | undefined {
  let low = 1e-6;
  let high = 5;
  const at = (volatility: number) => black76Price({ ...input, volatility });
  if (premium < at(low) - tolerance || premium > at(high) + tolerance) return undefined;
  for (let i = 0; i < 200 && high - low > tolerance; i++) {
    const mid = (low + high) / 2;
    if (at(mid) < premium) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/**
 * The simulator's volatility smile: at-the-money volatility plus a convex term in log
 * moneyness (wings dearer, as electricity option markets quote them) and a slight skew that
 * makes out-of-the-money calls dearer than puts (price spikes are upside risk).
 */
export function smileVolatility(atm: number, forward: number, strike: number): number {
  const moneyness = Math.log(strike / forward);
  return Math.min(atm + 0.55 * moneyness * moneyness + 0.04 * moneyness, 1.5);
}
