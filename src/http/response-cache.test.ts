import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';

setFlagsFromString('--expose-gc');

import { type CachedAnswer, ENTRY_OVERHEAD, ResponseCache } from './response-cache.js';

function answer(
  bytes: number,
  options: { pastDay?: boolean; date?: string; from?: string } = {},
): CachedAnswer {
  const date = 'date' in options ? options.date : '20250227';
  return {
    body: Buffer.alloc(bytes, 'x'),
    etags: { identity: '"t"', br: '"t-br"', gzip: '"t-gz"' },
    pastDay: options.pastDay ?? true,
    version: 1,
    clockSecond: undefined,
    date,
    from: options.from ?? date,
    coded: {},
  };
}

describe('ResponseCache', () => {
  it('evicts answers not asked for to stay within its byte budget', () => {
    const cache = new ResponseCache(110_000);
    for (const key of ['a', 'b', 'c', 'd']) cache.set(key, answer(10_000));
    expect(cache.size).toBe(4);
    const perEntry = cache.bytes / 4;
    expect(perEntry).toBeGreaterThan(10_000 + ENTRY_OVERHEAD);
    cache.get('a'); // a is now the most recent
    for (const key of ['e', 'f', 'g', 'h', 'i', 'j']) cache.set(key, answer(10_000));
    expect(cache.bytes).toBeLessThanOrEqual(110_000);
    expect(cache.size).toBe(9);
    expect(cache.get('a')).toBeDefined();
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('j')).toBeDefined();
  });

  it('gives an answer asked for since eviction last passed it a second chance, and drops the oldest not asked for', () => {
    // Room for nine entries of 10,000 bytes (each costs a little more with its overhead).
    const cache = new ResponseCache(110_000);
    const first = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    for (const key of first) cache.set(key, answer(10_000));
    expect(cache.size).toBe(9);
    cache.get('a');
    cache.get('c');
    cache.get('c'); // asked for twice: still one second chance
    cache.set('j', answer(10_000)); // a goes to the end unmarked, b (not asked for) goes
    cache.set('k', answer(10_000)); // c goes to the end unmarked, d goes
    cache.set('l', answer(10_000)); // e goes
    cache.set('m', answer(10_000)); // f goes
    expect(cache.size).toBe(9);
    expect(['b', 'd', 'e', 'f'].map((key) => cache.get(key))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    expect(['a', 'c', 'g', 'h', 'i', 'j', 'k', 'l', 'm'].every((key) => cache.get(key) !== undefined)).toBe(
      true,
    );
  });

  it('never drops the answer it has just stored, even when every other one was asked for since', () => {
    const cache = new ResponseCache(110_000);
    const first = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'];
    for (const key of first) cache.set(key, answer(10_000));
    for (const key of first) cache.get(key);
    cache.set('j', answer(10_000)); // every mark cleared in one pass, then the oldest, a, goes
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('j')).toBeDefined();
    expect(first.slice(1).every((key) => cache.get(key) !== undefined)).toBe(true);
    cache.delete('b');
    cache.delete('c');
    expect(cache.size).toBe(7);
    // A deleted entry frees its bytes: two more fit without evicting anything.
    cache.set('k', answer(10_000));
    cache.set('l', answer(10_000));
    expect(cache.size).toBe(9);
  });

  it('counts coded bodies against the budget, and keeps them only for the current entry', () => {
    const cache = new ResponseCache(1_000_000);
    const first = answer(5000);
    cache.set('k', first);
    const before = cache.bytes;
    cache.addCoded('k', first, 'br', Buffer.alloc(700));
    expect(cache.bytes).toBe(before + 700);
    expect(cache.get('k')?.coded.br?.length).toBe(700);
    const replaced = answer(5000);
    cache.set('k', replaced);
    // A compression that finishes after its answer was replaced is not attached to the new one.
    cache.addCoded('k', first, 'gzip', Buffer.alloc(900));
    expect(cache.get('k')?.coded.gzip).toBeUndefined();
    expect(cache.bytes).toBe(before);
    cache.delete('k');
    expect(cache.bytes).toBe(0);
  });

  it('counts what tiny answers cost the process, so that a flood of them stays within the budget', () => {
    const gc = runInNewContext('gc') as () => void;
    const budget = 8 * 1024 * 1024;
    const cache = new ResponseCache(budget);
    gc();
    const before = process.memoryUsage();
    // A client walking distinct URLs: 60,000 answers of about 70 bytes, as answer.ts makes them.
    for (let n = 0; n < 60_000; n++) {
      const text = `{"epi":[{"date":"${20250000 + n}","value":"${n}.25"}],"unknown":"${n}"}`;
      const body = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
      body.write(text);
      const tag = `${n.toString(36).padStart(22, 'x')}-v${n}`;
      cache.set(`/api/epi|historical|json|date=${20250000 + n}|unknown=${n}`, {
        ...answer(0, { pastDay: false }),
        body,
        etags: { identity: `"${tag}"`, br: `"${tag}-br"`, gzip: `"${tag}-gz"` },
        version: n,
      });
    }
    gc();
    const after = process.memoryUsage();
    const grown = after.heapUsed - before.heapUsed + (after.external - before.external);
    expect(cache.bytes).toBeLessThanOrEqual(budget);
    expect(grown).toBeGreaterThan(budget / 4);
    // With 256 bytes counted per entry it kept about 20,000 of them, using 20 MB.
    expect(grown).toBeLessThan(budget);
  });

  it('does not keep an answer larger than an eighth of the budget', () => {
    const cache = new ResponseCache(80_000);
    cache.set('small', answer(1000));
    cache.set('big', answer(20_000));
    expect(cache.get('big')).toBeUndefined();
    expect(cache.get('small')).toBeDefined();
  });

  it('drops current-day answers on new events, and past ones only for a day the events touched', () => {
    const cache = new ResponseCache(1_000_000);
    cache.set('current', answer(10, { pastDay: false, date: '20250228' }));
    cache.set('undated', answer(10, { pastDay: false, date: undefined }));
    cache.set('past-26', answer(10, { date: '20250226' }));
    cache.set('past-27', answer(10, { date: '20250227' }));
    cache.dropStale(['20250303']);
    expect(cache.get('current')).toBeUndefined();
    expect(cache.get('undated')).toBeUndefined();
    expect(cache.get('past-26')).toBeDefined();
    cache.dropStale(['20250227']);
    expect(cache.get('past-27')).toBeUndefined();
    expect(cache.get('past-26')).toBeDefined();
    expect(cache.size).toBe(1);
  });

  it('drops a past range when a late event touched any of its days', () => {
    const cache = new ResponseCache(1_000_000);
    cache.set('range', answer(10, { from: '20250203', date: '20250227' }));
    cache.set('before', answer(10, { from: '20250101', date: '20250131' }));
    cache.dropStale(['20250210']);
    expect(cache.get('range')).toBeUndefined();
    expect(cache.get('before')).toBeDefined();
  });
});
