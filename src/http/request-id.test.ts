import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

  it('keeps nothing but itself alive: an id held for long does not hold the text it was cut from', () => {
    // A full collection on demand, without starting the test process with --expose-gc.
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const kept: string[] = [];
    collect();
    const before = process.memoryUsage().heapUsed;
    // One id kept from each draw of 256: a slice sharing its draw's text would keep 5.6 KB each.
    for (let draw = 0; draw < 300; draw++) {
      for (let skipped = 0; skipped < 255; skipped++) newRequestId();
      kept.push(newRequestId());
    }
    collect();
    const perId = (process.memoryUsage().heapUsed - before) / kept.length;
    expect(perId).toBeLessThan(2_000);
    expect(new Set(kept).size).toBe(300);
  });
});
