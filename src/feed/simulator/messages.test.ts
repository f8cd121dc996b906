import { describe, expect, it } from 'vitest';
import { blockNoticeText, customMarket, registeredText, rfqText, shortCode } from './messages.js';
import { Rng } from './prng.js';
import { futures } from './structure.js';

describe('message texts', () => {
  it('uses the board notation root + month letter + one-digit year', () => {
    expect(shortCode(futures('HN', 12, 2026))).toBe('HNZ6');
    expect(rfqText(new Rng(1), futures('BN', 3, 2030), undefined)).toBe('RFQ: BNH0');
    expect(blockNoticeText(futures('BV', 9, 2025), 40)).toBe('Block trade: BVU5 40 lots');
  });

  it('registered trades name the exact code, lots and price', () => {
    expect(registeredText('Block', 'BNH2026', 25, 8450)).toBe('Block: BNH2026 25 lots @ 84.50');
    expect(registeredText('EFP', 'BQM2025', 10, 9005)).toBe('EFP: BQM2025 10 lots @ 90.05');
  });
});

describe('custom markets', () => {
  const listed = [
    ...[3, 6, 9, 12].flatMap((month) => [futures('BN', month, 2026), futures('BV', month, 2026)]),
    ...[1, 2, 3, 4, 5, 6].map((month) => futures('EN', month, 2026)),
  ];

  it('net is the exact sum of ratio x leg price, names read as the legs', () => {
    const rng = new Rng(3);
    const price = (contract: { code: string; month: number }) => 8000 + contract.month * 137;
    for (let i = 0; i < 200; i++) {
      const market = customMarket(rng, listed, price);
      if (!market) continue;
      expect(market.legs.length).toBeGreaterThanOrEqual(1);
      expect(market.legs.length).toBeLessThanOrEqual(6);
      const net = market.legs.reduce(
        (sum, leg) => sum + (Number(leg.ratio.replace('.', '')) / 100) * Number(leg.price.replace('.', '')),
        0,
      );
      expect(market.netCents).toBe(net);
      expect(market.contract).toMatch(
        /^[A-Z]{2}[FGHJKMNQUVXZ]\d{4}([+-](\dx)?[A-Z]{2}[FGHJKMNQUVXZ]\d{4}){0,5}$/,
      );
    }
  });
});
