/**
 * What the server's rate-limit headers say (docs/api.md, rate limits): `RateLimit` reports the
 * window closest to exhaustion as `"per-second";r=9;t=1` (r requests left, t seconds to reset),
 * and a 429 or 503 carries `Retry-After` in seconds (or, per HTTP, a date).
 */
export interface RateLimitState {
  readonly remaining: number;
  readonly resetSeconds: number;
}

export function parseRateLimit(header: string | null): RateLimitState | undefined {
  if (header === null) return undefined;
  const remaining = /;\s*r=(\d+)/.exec(header)?.[1];
  const reset = /;\s*t=(\d+)/.exec(header)?.[1];
  if (remaining === undefined || reset === undefined) return undefined;
  return { remaining: Number(remaining), resetSeconds: Number(reset) };
}

/** HTTP's date forms (RFC 9110, 5.6.7) all begin with the day's name. */
const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? /;

/**
 * Retry-After in milliseconds; undefined when absent or unreadable. Only the header's two forms
 * are read, whole seconds or an HTTP date: `Date.parse` alone takes `1.5` for a day in 2001,
 * which would turn a proxy's malformed value into no wait at all.
 */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!HTTP_DATE.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
