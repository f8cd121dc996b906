import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PRODUCTS, type Product } from './catalogue.js';
import { type Contract, isStrikeOnGrid, parseContractCode } from './contract.js';
import { deliveryPeriod } from './hours.js';
import { isListed, listedContracts, listedFutures, listedOptions, listedStrikes } from './listing.js';

const anyDate = fc
  .date({ min: new Date(Date.UTC(2000, 0, 1)), max: new Date(Date.UTC(2090, 11, 31)), noInvalidDate: true })
  .map((value) => value.toISOString().slice(0, 10).replaceAll('-', ''));

/** Expected horizons, written from the specification rather than from the code. */
function expectedFutures(root: string): { quarters?: number; months?: number; z?: number; m?: number } {
  if (/^E[NQVS]$/.test(root) || root === 'ED' || root === 'EH') return { months: 6 };
  if (root === 'GZ') return { months: 12 };
  if (/^B[NQVS]$/.test(root)) return { quarters: 16 };
  if (root === 'EA' || root === 'EE') return { quarters: 12 };
  if (/^[PG][NQVS]$/.test(root) || root === 'EC' || root === 'EG') return { quarters: 8 };
  if (/^H[NQVS]$/.test(root)) return { z: 4, m: 4 };
  if (root === 'EB' || root === 'EF' || ['CA', 'CL', 'CN'].includes(root)) return { z: 4 };
  throw new Error(`no horizon for ${root}`);
}

function expectedOptionUnderlyings(root: string): { quarters?: number; z?: number; m?: number } {
  if (/^B[NQVS]$/.test(root) || root === 'EA' || root === 'EE') return { quarters: 4 };
  if (/^P[NQVS]$/.test(root)) return { quarters: 2 };
  if (/^H[NQVS]$/.test(root)) return { z: 2, m: 2 };
  if (root === 'EB' || root === 'EF') return { z: 2 };
  return {};
}

function countBy(contracts: readonly { product: Product; month: number }[], root: string) {
  const own = contracts.filter((item) => item.product.root === root);
  return {
    all: own.length,
    z: own.filter((item) => item.month === 12).length,
    m: own.filter((item) => item.month === 6).length,
  };
}

function checkCounts(date: string): void {
  const futures = listedFutures(date);
  const options = listedOptions(date);
  for (const product of PRODUCTS) {
    const expected = expectedFutures(product.root);
    const got = countBy(futures, product.root);
    const total = (expected.quarters ?? 0) + (expected.months ?? 0) + (expected.z ?? 0) + (expected.m ?? 0);
    expect(got.all, `${date} ${product.root}`).toBe(total);
    if (expected.z !== undefined) expect(got.z, `${date} ${product.root} Z`).toBe(expected.z);
    if (expected.m !== undefined) expect(got.m, `${date} ${product.root} M`).toBe(expected.m);

    const own = options.filter((item) => item.product.root === product.root);
    const underlyings = new Map<string, Contract[]>();
    for (const option of own) {
      if (option.kind !== 'option') throw new Error('listedOptions returned a future');
      underlyings.set(option.underlying, [...(underlyings.get(option.underlying) ?? []), option]);
    }
    const wanted = expectedOptionUnderlyings(product.root);
    const underlyingContracts = [...underlyings.keys()].map((code) => parseContractCode(code));
    const defined = underlyingContracts.filter((item) => item !== undefined);
    expect(defined).toHaveLength(underlyings.size);
    const counts = countBy(defined, product.root);
    expect(counts.all, `${date} ${product.root} options`).toBe(
      (wanted.quarters ?? 0) + (wanted.z ?? 0) + (wanted.m ?? 0),
    );
    if (wanted.z !== undefined) expect(counts.z).toBe(wanted.z);
    if (wanted.m !== undefined) expect(counts.m).toBe(wanted.m);
    for (const [code, series] of underlyings) {
      // The option's underlying is itself listed, and each listed strike has a call and a put.
      expect(isListed(code, date)).toBe(true);
      expect(series).toHaveLength(2 * listedStrikes(product).length);
    }
  }
}

/** Independent statement of the listing rule: futures of months/quarters until delivery ends. */
function stillTradable(item: Contract, day: string): boolean {
  const period = deliveryPeriod(item);
  return item.kind === 'future' && item.product.period !== 'year' ? period.last >= day : period.first > day;
}

describe('listed contracts', () => {
  const date = '20250219';

  it('lists the contracts of the published 19 Feb 2025 strip trade', () => {
    for (const code of ['HNM2026', 'BNU2025', 'BNZ2025', 'BNH2026'])
      expect(isListed(code, date), code).toBe(true);
  });

  it('keeps month and quarter futures until delivery ends, strips and options until it starts', () => {
    // Q1 2025 in delivery still trades (docs/market-rules.md, reference rows: 27 Feb)
    expect(isListed('BNH2025', date)).toBe(true);
    expect(isListed('BNH2025', '20250401')).toBe(false);
    expect(isListed('BNH20250008000C', date)).toBe(false); // its options have expired
    expect(isListed('BNM2025', date)).toBe(true);
    expect(isListed('ENG2025', date)).toBe(true);
    expect(isListed('ENF2025', date)).toBe(false);
    expect(isListed('ENH2025', date)).toBe(true);
    expect(isListed('HNZ2025', date)).toBe(false);
    expect(isListed('HNM2025', date)).toBe(false);
    // Certificate futures: the Dec contract trades through its year, until December.
    expect(isListed('CAZ2025', '20251128')).toBe(true);
    expect(isListed('CAZ2025', '20251201')).toBe(false);
    expect(isListed('CAZ2029', '20251201')).toBe(true);
  });

  it('builds every contract from a code the catalogue accepts, none expired, sorted by code', () => {
    const all = listedContracts(date);
    const codes = all.map((item) => item.code);
    expect(codes).toEqual([...codes].sort());
    expect(new Set(codes).size).toBe(codes.length);
    for (const item of all) {
      expect(parseContractCode(item.code)).toEqual(item);
      expect(stillTradable(item, date), item.code).toBe(true);
    }
    expect(listedFutures(date).length + listedOptions(date).length).toBe(all.length);
    expect(listedFutures(date).every((item) => item.kind === 'future')).toBe(true);
  });

  it('lists the specified number of contracts per product', () => {
    checkCounts(date);
    checkCounts('20251231');
    checkCounts('20260701');
  });

  it('lists every grid strike within 25% of the reference price', () => {
    for (const option of listedOptions(date)) {
      if (option.kind !== 'option') continue;
      const reference = option.product.referencePriceCents;
      expect(isStrikeOnGrid(option.strikeCents)).toBe(true);
      expect(option.strikeCents * 4 >= reference * 3 && option.strikeCents * 4 <= reference * 5).toBe(true);
    }
    // BN reference 105.00: 78.75..131.25 -> $79..$100 in $1 steps, $105..$130 in $5 steps.
    const bn = PRODUCTS.find((product) => product.root === 'BN');
    if (!bn) throw new Error('catalogue lost BN');
    const strikes = listedStrikes(bn);
    expect(strikes).toHaveLength(22 + 6);
    expect(strikes[0]).toBe(7900);
    expect(strikes.at(-1)).toBe(13000);
    // Inclusive band: a reference of 100.00 lists both 75.00 and 125.00.
    expect(listedStrikes({ ...bn, referencePriceCents: 10000 })).toContain(7500);
    expect(listedStrikes({ ...bn, referencePriceCents: 10000 })).toContain(12500);
  });

  it('is deterministic and safe from callers mutating the result', () => {
    const first = listedContracts(date).map((item) => item.code);
    listedContracts(date).splice(0, 100);
    // Walk enough other dates to evict the cache, then ask again.
    for (let day = 1; day <= 28; day += 1) listedContracts(`202503${String(day).padStart(2, '0')}`);
    expect(listedContracts(date).map((item) => item.code)).toEqual(first);
  });

  it('holds the counts and the tradable rule on any date', () => {
    fc.assert(
      fc.property(anyDate, (day) => {
        checkCounts(day);
        for (const item of listedContracts(day)) expect(stillTradable(item, day), item.code).toBe(true);
      }),
      { numRuns: 40 },
    );
  });

  it('refuses an invalid date', () => {
    expect(() => listedContracts('20250230')).toThrow(RangeError);
  });
});
