import { describe, expect, it } from 'vitest';
import { newRequestId } from './request-id.js';

describe('newRequestId', () => {
  it('gives 22 base64url characters, different every time, also across pool refills', () => {
    const ids = Array.from({ length: 2_000 }, newRequestId);
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('draws its bits at random: every character of the alphabet turns up in each position', () => {
    const ids = Array.from({ length: 4_000 }, newRequestId);
    // Every position carries 6 random bits: with 4,000 ids each of the 64 characters is missing
    // from a position with probability about 64 x (63/64)^4000, about 1e-26.
    for (let position = 0; position < 22; position++) {
      expect(new Set(ids.map((id) => id[position])).size).toBe(64);
    }
  });
});
