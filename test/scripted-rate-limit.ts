import type { RateLimitStoreFactory, WindowCount } from '../src/http/rate-limit.js';

/**
 * A rate-limit counter store that refuses exactly the requests a test names (by their order,
 * 1-based, over all keys), each with one second to the window's reset: the server then answers
 * them with its real 429, RateLimit headers and `Retry-After: 1`, and every other request as
 * within limits, whatever the timing. Give the key any per-second limit above 1 and no per-minute one.
 */
export function refusingRateLimitStore(
  refused: readonly number[],
): RateLimitStoreFactory & { readonly seen: () => number } {
  let count = 0;
  const factory: RateLimitStoreFactory = () => ({
    async consume(): Promise<WindowCount> {
      count++;
      return { consumedPoints: refused.includes(count) ? Number.MAX_SAFE_INTEGER : 1, msBeforeNext: 1000 };
    },
  });
  return Object.assign(factory, { seen: () => count });
}
