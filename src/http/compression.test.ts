import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chooseEncoding, compress, shouldCompress } from './compression.js';
import { noneMatchHits } from './etag.js';

describe('chooseEncoding', () => {
  it.each([
    [undefined, undefined, false],
    ['', undefined, false],
    ['gzip, deflate, br', 'br', false],
    ['gzip', 'gzip', false],
    ['br;q=0.1, gzip;q=0.2', 'gzip', false],
    ['gzip;q=0.5', 'gzip', false],
    ['identity;q=1, br;q=0.9', undefined, false],
    ['identity;q=0', undefined, true],
    ['identity;q=0, gzip', 'gzip', true],
    ['*;q=0', undefined, true],
    ['*;q=0, gzip', 'gzip', true],
    ['*', 'br', false],
    ['compress, deflate', undefined, false],
    ['br;q=nonsense', 'br', false],
  ])('%j -> %s (identity refused: %s)', (header, coding, refused) => {
    expect(chooseEncoding(header)).toEqual({ coding, identityRefused: refused });
  });

  it('applies the size threshold unless identity is refused', () => {
    expect(shouldCompress(chooseEncoding('gzip'), 1023)).toBe(false);
    expect(shouldCompress(chooseEncoding('gzip'), 1024)).toBe(true);
    expect(shouldCompress(chooseEncoding('identity;q=0, gzip'), 10)).toBe(true);
    expect(shouldCompress(chooseEncoding('identity'), 100_000)).toBe(false);
  });

  it('never throws, whatever the header', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (header) => {
        const choice = chooseEncoding(header);
        expect([undefined, 'br', 'gzip']).toContain(choice.coding);
      }),
    );
  });
});

describe('compress', () => {
  it('round-trips both codings', async () => {
    const body = Buffer.from('code,date,settle\n'.repeat(200));
    expect(gunzipSync(await compress(body, 'gzip')).equals(body)).toBe(true);
    expect(brotliDecompressSync(await compress(body, 'br')).equals(body)).toBe(true);
  });
});

describe('noneMatchHits', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['*', true],
    [' * ', true],
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc"', true],
    ['"abcd"', false],
    ['abc', false],
    ['"x", "y"', false],
  ])('%j against "abc" -> %s', (header, hit) => {
    expect(noneMatchHits(header, '"abc"')).toBe(hit);
  });
});
