import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRODUCTS } from './catalogue.js';
import {
  formatStrike,
  futuresCode,
  isStrikeOnGrid,
  monthFromLetter,
  monthLetter,
  optionCode,
  parseContractCode,
  tradeLogCode,
} from './contract.js';

const gridStrike = fc.oneof(
  fc.integer({ min: 1, max: 100 }).map((dollars) => dollars * 100),
  fc.integer({ min: 21, max: 19_999 }).map((fives) => fives * 500),
);

/** Any product, one of its month letters and a year the codes allow. */
const futuresParts = fc.constantFrom(...PRODUCTS).chain((product) =>
  fc.record({
    product: fc.constant(product),
    letter: fc.constantFrom(...product.months),
    year: fc.integer({ min: 2000, max: 2099 }),
  }),
);

describe('contract codes', () => {
  it('maps month letters both ways', () => {
    expect(monthLetter(1)).toBe('F');
    expect(monthLetter(12)).toBe('Z');
    expect(monthFromLetter('H')).toBe(3);
    expect(monthFromLetter('A')).toBeUndefined();
    expect(monthFromLetter('HM')).toBeUndefined();
    expect(() => monthLetter(13)).toThrow(RangeError);
  });

  it('round-trips every futures code of the catalogue, with or without the F suffix', () => {
    fc.assert(
      fc.property(futuresParts, ({ product, letter, year }) => {
        const code = `${product.root}${letter}${year}`;
        const parsed = parseContractCode(code);
        expect(parsed).toMatchObject({ kind: 'future', code, product, year, month: monthFromLetter(letter) });
        expect(parseContractCode(`${code}F`)).toEqual(parsed);
        if (parsed) {
          expect(futuresCode(product.root, parsed.month, parsed.year)).toBe(code);
          expect(tradeLogCode(parsed)).toBe(`${code}F`);
        }
      }),
    );
  });

  it('round-trips every option code and normalises the type-first layout', () => {
    const withOptions = futuresParts.filter(({ product }) => product.hasOptions);
    fc.assert(
      fc.property(
        withOptions,
        gridStrike,
        fc.constantFrom('C' as const, 'P' as const),
        (parts, strike, type) => {
          const underlying = `${parts.product.root}${parts.letter}${parts.year}`;
          const canonical = `${underlying}${formatStrike(strike)}${type}`;
          const parsed = parseContractCode(canonical);
          expect(parsed).toMatchObject({
            kind: 'option',
            code: canonical,
            underlying,
            strikeCents: strike,
            optionType: type,
          });
          expect(parseContractCode(`${underlying}${type}${formatStrike(strike)}`)).toEqual(parsed);
          expect(optionCode(underlying, strike, type)).toBe(canonical);
          if (parsed) expect(tradeLogCode(parsed)).toBe(canonical);
        },
      ),
    );
  });

  it('parses the examples of docs/market-rules.md', () => {
    expect(parseContractCode('EAH20260010000C')).toMatchObject({
      underlying: 'EAH2026',
      strikeCents: 10_000,
      optionType: 'C',
      month: 3,
      year: 2026,
    });
    expect(parseContractCode('BNM2025C0016000')?.code).toBe('BNM20250016000C');
    expect(parseContractCode('GNU2025F')?.code).toBe('GNU2025');
    expect(parseContractCode('GZJ2025F')?.product.market).toBe('au_gas');
  });

  it('refuses what the catalogue does not list', () => {
    for (const bad of [
      'XXH2026', // unknown root
      'BNF2026', // quarters list H M U Z only
      'HNH2026', // AU strips list M and Z
      'EBM2026', // NZ strips list Z only
      'CAH2026', // certificates list Z only
      'BNH1999',
      'BNH2100',
      'BNH20260010050C', // $100.50 is off the grid
      'BNH20260010100C', // $101 is above $100, so $5 steps
      'BNH20260000000C', // zero strike
      'ENH20260010000C', // month futures have no options
      'ECH20260010000C', // NZ peak has no options
      'GZH20260001000C', // gas has no options
      'bnh2026',
      'BNH26',
      'BNH2026X',
      'BNH2026FF',
      'BNH20260010000',
      'BNH2026C0010000C',
      '',
    ]) {
      expect(parseContractCode(bad), bad).toBeUndefined();
    }
  });

  it('knows the strike grid', () => {
    for (const good of [100, 7900, 10_000, 10_500, 13_000, 9_999_500])
      expect(isStrikeOnGrid(good), String(good)).toBe(true);
    for (const bad of [0, -100, 50, 7950, 10_100, 10_400, 10_000_000, 1.5]) {
      expect(isStrikeOnGrid(bad), String(bad)).toBe(false);
    }
  });
});
