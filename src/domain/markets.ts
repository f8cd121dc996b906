/** The five markets of the exchange (docs/api.md, common rules: "Codes"). */
export const MARKET_CODES = [
  'au_electricity',
  'nz_electricity',
  'au_gas',
  'au_environmental',
  'nz_environmental',
] as const;

export type MarketCode = (typeof MARKET_CODES)[number];

/** Options exist only in the two electricity markets (docs/market-rules.md, markets and products). */
export const OPTION_MARKETS: readonly MarketCode[] = ['au_electricity', 'nz_electricity'];

export function isMarketCode(value: string): value is MarketCode {
  return (MARKET_CODES as readonly string[]).includes(value);
}

export function isElectricity(market: MarketCode): boolean {
  return market === 'au_electricity' || market === 'nz_electricity';
}
