import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MARKET_CODES } from '../domain/markets.js';
import {
  dateParam,
  enumParam,
  futuresParam,
  marketParam,
  optionsParam,
  type ParamDef,
  timeParam,
} from './params.js';

/**
 * The OpenAPI document shows each parameter's `schema`; a client (or the reference page) may
 * refuse what it does not allow. So the schema must allow every value the parser accepts, and,
 * for codes, nothing the parser calls malformed.
 */

function allows(def: ParamDef<unknown>, text: string): boolean {
  const { pattern, enum: values } = def.schema ?? {};
  if (values !== undefined && !values.includes(text)) return false;
  return pattern === undefined || new RegExp(pattern).test(text);
}

function accepts(def: ParamDef<unknown>, text: string): boolean {
  return 'value' in def.parse(text);
}

/** Strings assembled from the pieces of the code grammar, plus noise. */
const codeLike = fc
  .array(
    fc.oneof(
      fc.constantFrom(...MARKET_CODES, 'BN', 'EA', 'HN', 'GZ', 'ZZ', 'bn', 'F', 'C', 'P', 'H', 'M', 'Z', 'A'),
      fc.stringMatching(/^\d{1,8}$/),
      fc.constantFrom('2026', '0010000', '0012500', '1', '_', ' ', '-'),
    ),
    { maxLength: 6 },
  )
  .map((parts) => parts.join(''));

/** Near-misses of every code form: most pieces right, one wrong. */
const codeForms = fc
  .tuple(
    fc.constantFrom('BN', 'EA', 'HN', 'GZ', 'ZZ', 'bn', 'B', 'BNN'),
    fc.constantFrom(...'FGHJKMNQUVXZ', 'A', 'h', ''),
    fc.constantFrom('', '2026', '2099', '1999', '202', '20260'),
    fc.constantFrom('', 'F', 'C', 'P', '0010000', '0010000C', 'C0010000', '001000', 'P0012500', 'FF', 'X'),
  )
  .map((parts) => parts.join(''));

describe('parameter schemas', () => {
  it.each([
    ['futures', futuresParam],
    ['options', optionsParam],
  ] as const)('%s: the pattern allows exactly the well-formed codes', (_name, def) => {
    fc.assert(
      fc.property(fc.oneof(codeForms, codeLike), (text) => {
        expect(allows(def, text), text).toBe(accepts(def, text));
      }),
      { numRuns: 3000 },
    );
    for (const text of [
      'BNH',
      'BNH2026',
      'BNH2026F',
      'au_gas',
      'EAH20260010000C',
      'BNM2025C0016000',
      'BNH2026P',
    ]) {
      if (accepts(def, text)) expect(allows(def, text), text).toBe(true);
    }
  });

  it('date: the pattern allows every calendar date the parser accepts', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{8}$/), (text) => {
        if (accepts(dateParam, text)) expect(allows(dateParam, text), text).toBe(true);
      }),
    );
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }),
        (d) => {
          const text = d.toISOString().slice(0, 10).replaceAll('-', '');
          expect(accepts(dateParam, text) && allows(dateParam, text), text).toBe(true);
        },
      ),
    );
  });

  it('time: the pattern allows exactly the valid times', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{6}$/), (text) => {
        expect(allows(timeParam, text), text).toBe(accepts(timeParam, text));
      }),
    );
  });

  it('enumerations list their values', () => {
    expect(marketParam.schema?.enum).toEqual(MARKET_CODES);
    expect(enumParam(['a', 'b']).schema?.enum).toEqual(['a', 'b']);
    for (const text of ['au_gas', 'AU_GAS', 'x'])
      expect(allows(marketParam, text)).toBe(accepts(marketParam, text));
  });
});
