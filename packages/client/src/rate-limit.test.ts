import { describe, expect, it } from 'vitest';
import { parseRateLimit, retryAfterMs } from './rate-limit.js';

describe('Retry-After', () => {
  const now = Date.parse('2025-02-28T05:00:00Z');

  it('reads whole seconds and the HTTP date forms', () => {
    expect(retryAfterMs('2', now)).toBe(2000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
    expect(retryAfterMs('Fri, 28 Feb 2025 05:00:07 GMT', now)).toBe(7000);
    expect(retryAfterMs('Friday, 28-Feb-25 05:00:03 GMT', now)).toBe(3000);
    expect(retryAfterMs('Fri Feb 28 05:00:01 2025', now)).toBeGreaterThanOrEqual(0);
    // a date already past: retry now
    expect(retryAfterMs('Fri, 28 Feb 2025 04:59:00 GMT', now)).toBe(0);
  });

  it('leaves what is neither unread, so the caller backs off instead of retrying at once', () => {
    for (const text of ['1.5', '-1', '1e3', '2025-02-28', 'soon', '', '0x10']) {
      expect(retryAfterMs(text, now), text).toBeUndefined();
    }
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

describe('RateLimit', () => {
  it('reads the remaining requests and the seconds to the reset', () => {
    expect(parseRateLimit('"per-second";r=0;t=1')).toEqual({ remaining: 0, resetSeconds: 1 });
    expect(parseRateLimit('nonsense')).toBeUndefined();
    expect(parseRateLimit(null)).toBeUndefined();
  });
});
