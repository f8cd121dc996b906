import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRODUCTS } from './catalogue.js';
import {
  type CodeQueryResult,
  parseFuturesQuery,
  parseOptionsQuery,
  type Selection,
  selects,
} from './codes.js';
import type { Contract } from './contract.js';
import { listedContracts } from './listing.js';
import { MARKET_CODES } from './markets.js';

function selection(result: CodeQueryResult): Selection {
  if (!result.ok) throw new Error(`expected a selection, got ${result.reason}: ${result.message}`);
  return result.selection;
}

function stored(contract: Contract) {
  return {
    kind: contract.kind,
    code: contract.code,
    market: contract.product.market,
    ...(contract.kind === 'option' ? { optionType: contract.optionType } : {}),
  };
}

describe('futures query codes', () => {
  it('accepts every market code', () => {
    for (const market of MARKET_CODES) {
      expect(parseFuturesQuery(market)).toEqual({
        ok: true,
        form: 'market',
        selection: { instrument: 'future', market },
      });
    }
  });

  it('accepts initial and exact codes, with the trade log F suffix', () => {
    expect(parseFuturesQuery('BNH')).toEqual({
      ok: true,
      form: 'initial',
      selection: { instrument: 'future', market: 'au_electricity', prefix: 'BNH' },
    });
    expect(parseFuturesQuery('HNZ2026')).toMatchObject({ form: 'exact', selection: { prefix: 'HNZ2026' } });
    expect(parseFuturesQuery('GNU2025F')).toMatchObject({ form: 'exact', selection: { prefix: 'GNU2025' } });
    expect(parseFuturesQuery('EDF2026')).toMatchObject({ selection: { market: 'nz_electricity' } });
    expect(parseFuturesQuery('GZJ2025F')).toMatchObject({
      selection: { market: 'au_gas', prefix: 'GZJ2025' },
    });
  });

  it('tells malformed input from well-formed codes that name nothing', () => {
    for (const malformed of [
      'BN',
      'bnh',
      'BNH26',
      'BNH2026C',
      'BNH20260010000C',
      'au-gas',
      '',
      'B'.repeat(40),
    ]) {
      expect(parseFuturesQuery(malformed), malformed).toMatchObject({ ok: false, reason: 'malformed' });
    }
    for (const unknown of ['XXH', 'XXH2026', 'BNF', 'HNH2026', 'CAH2026F']) {
      expect(parseFuturesQuery(unknown), unknown).toMatchObject({ ok: false, reason: 'unknown' });
    }
  });
});

describe('options query codes', () => {
  it('accepts the two electricity markets and refuses the others as malformed', () => {
    expect(parseOptionsQuery('au_electricity')).toMatchObject({ ok: true, form: 'market' });
    expect(parseOptionsQuery('nz_electricity')).toMatchObject({ ok: true, form: 'market' });
    for (const market of ['au_gas', 'au_environmental', 'nz_environmental']) {
      expect(parseOptionsQuery(market)).toMatchObject({ ok: false, reason: 'malformed' });
    }
  });

  it('accepts every option code form of docs/market-rules.md', () => {
    expect(selection(parseOptionsQuery('BNZ'))).toEqual({
      instrument: 'option',
      market: 'au_electricity',
      prefix: 'BNZ',
    });
    expect(parseOptionsQuery('HQZ2026')).toMatchObject({
      form: 'initial+year',
      selection: { prefix: 'HQZ2026' },
    });
    expect(parseOptionsQuery('EAZ2026C')).toEqual({
      ok: true,
      form: 'initial+year+type',
      selection: { instrument: 'option', market: 'nz_electricity', prefix: 'EAZ2026', optionType: 'C' },
    });
    expect(parseOptionsQuery('HNZ20260012000')).toEqual({
      ok: true,
      form: 'exact',
      selection: { instrument: 'option', market: 'au_electricity', prefix: 'HNZ20260012000' },
    });
    expect(parseOptionsQuery('EAH20260010000C')).toEqual({
      ok: true,
      form: 'exact+type',
      selection: {
        instrument: 'option',
        market: 'nz_electricity',
        prefix: 'EAH20260010000',
        optionType: 'C',
      },
    });
    // The type-first layout normalises to the canonical prefix.
    expect(parseOptionsQuery('BNM2025C0016000')).toEqual(parseOptionsQuery('BNM20250016000C'));
  });

  it('selects calls and puts at one strike for an exact code without type', () => {
    const chosen = selection(parseOptionsQuery('HNZ20260012000'));
    const market = 'au_electricity' as const;
    expect(selects(chosen, { kind: 'option', code: 'HNZ20260012000C', market, optionType: 'C' })).toBe(true);
    expect(selects(chosen, { kind: 'option', code: 'HNZ20260012000P', market, optionType: 'P' })).toBe(true);
    expect(selects(chosen, { kind: 'option', code: 'HNZ20260012500C', market, optionType: 'C' })).toBe(false);
    expect(selects(chosen, { kind: 'future', code: 'HNZ2026', market })).toBe(false);
  });

  it('tells malformed input from well-formed codes that name nothing', () => {
    for (const malformed of ['BN', 'BNM2025X0016000', 'BNH2026F', 'BNH202600100C', 'BNH2026CP', 'bnz']) {
      expect(parseOptionsQuery(malformed), malformed).toMatchObject({ ok: false, reason: 'malformed' });
    }
    for (const unknown of ['XXZ', 'ENH', 'ECZ2026', 'GZH2026', 'CAZ2026C', 'BNF2026', 'BNH20260010050C']) {
      expect(parseOptionsQuery(unknown), unknown).toMatchObject({ ok: false, reason: 'unknown' });
    }
  });
});

describe('queries select listed contracts', () => {
  const contracts = [...listedContracts('20250219'), ...listedContracts('20260901')];
  const roots = PRODUCTS.map((product) => product.root);

  it('a contract is selected by its own code and its market, never by another root', () => {
    fc.assert(
      fc.property(fc.constantFrom(...contracts), fc.constantFrom(...roots), (contract, otherRoot) => {
        const parse = contract.kind === 'future' ? parseFuturesQuery : parseOptionsQuery;
        const item = stored(contract);
        expect(selects(selection(parse(contract.code)), item)).toBe(true);
        expect(selects(selection(parse(contract.product.market)), item)).toBe(true);
        const initial = contract.code.slice(0, 3);
        expect(selects(selection(parse(initial)), item)).toBe(true);
        if (contract.kind === 'future') {
          expect(selects(selection(parse(`${contract.code}F`)), item)).toBe(true);
        } else {
          expect(selects(selection(parse(`${contract.underlying}${contract.optionType}`)), item)).toBe(true);
          const typeFirst = `${contract.underlying}${contract.optionType}${contract.code.slice(7, 14)}`;
          expect(selects(selection(parse(typeFirst)), item)).toBe(true);
        }
        if (otherRoot !== contract.product.root) {
          const result = parse(`${otherRoot}${contract.code.slice(2)}`);
          if (result.ok) expect(selects(result.selection, item)).toBe(false);
        }
      }),
    );
  });

  it('a query for the other option type does not select', () => {
    for (const contract of contracts) {
      if (contract.kind !== 'option') continue;
      const other = contract.optionType === 'C' ? 'P' : 'C';
      expect(selects(selection(parseOptionsQuery(`${contract.underlying}${other}`)), stored(contract))).toBe(
        false,
      );
    }
  });
});
