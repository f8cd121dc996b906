import type { FastifyReply } from 'fastify';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { AccessLevel } from '../query/context.js';
import type { ApiKeyRecord } from '../store/store.js';
import { HttpProblem } from './problems.js';

/**
 * Per-key rate limits (docs/api.md, rate limits): fixed windows of one second and one
 * minute, counted by rate-limiter-flexible, reported with the IETF httpapi RateLimit-Policy /
 * RateLimit headers (structured-field syntax of the current draft) and refused with 429.
 */

/** Requests per window; 0 = unlimited. */
export interface RateLimit {
  readonly perSecond: number;
  readonly perMinute: number;
}

export type RateLimits = Readonly<Record<AccessLevel, RateLimit>>;

export type RateLimitOptions = Readonly<Partial<Record<AccessLevel, Partial<RateLimit>>>>;

export const DEFAULT_RATE_LIMIT: RateLimit = { perSecond: 10, perMinute: 60 };

/** One window's count after a request was counted, and the time left until the window resets. */
export interface WindowCount {
  readonly consumedPoints: number;
  readonly msBeforeNext: number;
  /** Counted by this process alone: the shared store was unreachable (rate-limit-redis.ts). */
  readonly fallback?: boolean;
}

/**
 * Where the counters live: one fixed-window counter per key. Any rate-limiter-flexible limiter
 * fits (its consume resolves with consumedPoints and msBeforeNext), so running several replicas
 * means only a different factory, e.g. `new RateLimiterRedis({ storeClient, points, duration,
 * keyPrefix })`; store limiters also take an `insuranceLimiter` for when the store is down.
 */
export interface RateLimitStore {
  /**
   * Counts one request of the key. `limit` is the key's limit in this window, for a store that
   * hands out budget rather than counting (rate-limit-cluster.ts); counting stores ignore it.
   */
  consume(key: string, limit?: number): Promise<WindowCount> | WindowCount;
}

export interface RateLimitWindow {
  /** The policy name in the headers, also a key prefix for a shared store. */
  readonly name: 'per-second' | 'per-minute';
  readonly seconds: number;
}

export type RateLimitStoreFactory = (window: RateLimitWindow) => RateLimitStore;

/** What a request meets while a shared store (Redis, rate-limit-redis.ts) cannot be reached. */
export type RedisUnavailablePolicy = 'refuse' | 'allow';
export const REDIS_UNAVAILABLE_POLICIES: readonly RedisUnavailablePolicy[] = ['refuse', 'allow'];

/**
 * The limiter never refuses by itself (its points are unbounded): we compare the count with the
 * key's own limit, so one counter per window serves every per-key limit and an over-limit
 * request costs no rejected promise.
 */
export const memoryRateLimitStore: RateLimitStoreFactory = (window) => {
  const limiter = new RateLimiterMemory({
    points: Number.MAX_SAFE_INTEGER,
    duration: window.seconds,
    keyPrefix: `gq-rl-${window.name}`,
  });
  // One point per request (consume's second argument would be the points to take).
  return { consume: (key) => limiter.consume(key) };
};

const WINDOWS = [
  { name: 'per-second', seconds: 1, field: 'perSecond' },
  { name: 'per-minute', seconds: 60, field: 'perMinute' },
] as const;

/** What counting one request decided: the two headers it answers with, and the refusal when a window is spent. */
export interface Admission {
  /** The RateLimit-Policy header. */
  readonly policy: string;
  /** The RateLimit header: the window closest to exhaustion. */
  readonly state: string;
  /** The 429 problem (with Retry-After) when a window is over its limit. */
  readonly refusal: HttpProblem | undefined;
}

export interface RateLimiter {
  /**
   * Counts a request of an authenticated key: sets RateLimit-Policy and RateLimit on the reply
   * and throws a 429 problem (with Retry-After) when a window is over its limit.
   */
  admit(key: ApiKeyRecord, reply: FastifyReply): Promise<void>;
  /** Counts a request of the key; undefined for a key without limits. admit() applies what it decided. */
  count(key: ApiKeyRecord): Promise<Admission | undefined>;
}

/** Sets an admission's headers on the reply; throws its refusal. */
export function applyAdmission(admission: Admission | undefined, reply: FastifyReply): void {
  if (admission === undefined) return;
  reply.header('ratelimit-policy', admission.policy);
  reply.header('ratelimit', admission.state);
  if (admission.refusal !== undefined) throw admission.refusal;
}

export function createRateLimiter(
  options: {
    readonly limits?: RateLimitOptions;
    readonly store?: RateLimitStoreFactory;
    /** Called per request counted by this process alone (WindowCount.fallback): a metric. */
    readonly onFallback?: () => void;
  } = {},
): RateLimiter {
  const levels: RateLimits = {
    historical: { ...DEFAULT_RATE_LIMIT, ...options.limits?.historical },
    end_of_day: { ...DEFAULT_RATE_LIMIT, ...options.limits?.end_of_day },
  };
  for (const [level, limit] of Object.entries(levels)) {
    for (const window of WINDOWS) {
      const value = limit[window.field];
      if (!Number.isSafeInteger(value) || value < 0) {
        throw new RangeError(`rate limit ${level}.${window.field} must be an integer >= 0, got ${value}`);
      }
    }
  }
  const factory = options.store ?? memoryRateLimitStore;
  const stores = WINDOWS.map((window) => factory({ name: window.name, seconds: window.seconds }));
  // Few distinct (per-second, per-minute) pairs exist: build each policy header once.
  const policies = new Map<string, string>();

  function policyOf(perSecond: number, perMinute: number): string {
    const id = `${perSecond}/${perMinute}`;
    let policy = policies.get(id);
    if (policy === undefined) {
      const parts: string[] = [];
      if (perSecond > 0) parts.push(`"per-second";q=${perSecond};w=1`);
      if (perMinute > 0) parts.push(`"per-minute";q=${perMinute};w=60`);
      policy = parts.join(', ');
      policies.set(id, policy);
    }
    return policy;
  }

  async function count(key: ApiKeyRecord): Promise<Admission | undefined> {
    const level = levels[key.level];
    const perSecond = key.perSecond ?? level.perSecond;
    const perMinute = key.perMinute ?? level.perMinute;
    if (perSecond === 0 && perMinute === 0) return undefined;
    // Closest to exhaustion: fewest requests left, then the later reset.
    let reported = '';
    let reportedRemaining = Number.POSITIVE_INFINITY;
    let reportedReset = 0;
    let over = false;
    let fellBack = false;
    for (let i = 0; i < WINDOWS.length; i++) {
      const window = WINDOWS[i];
      const store = stores[i];
      if (window === undefined || store === undefined) continue;
      const limit = window.field === 'perSecond' ? perSecond : perMinute;
      if (limit === 0) continue;
      const counted = await store.consume(key.id, limit);
      if (counted.fallback === true) fellBack = true;
      const remaining = Math.max(0, limit - counted.consumedPoints);
      // A reset under a second away still reads as 1: 0 would invite an immediate retry.
      const reset = Math.max(1, Math.ceil(counted.msBeforeNext / 1000));
      if (remaining < reportedRemaining || (remaining === reportedRemaining && reset > reportedReset)) {
        reported = window.name;
        reportedRemaining = remaining;
        reportedReset = reset;
      }
      if (counted.consumedPoints > limit) {
        over = true;
        // The shorter window refused: do not also spend the longer window's budget.
        break;
      }
    }
    if (fellBack) options.onFallback?.();
    let refusal: HttpProblem | undefined;
    if (over) {
      const limit =
        reported === 'per-second' ? `${perSecond} requests per second` : `${perMinute} requests per minute`;
      refusal = new HttpProblem({
        code: 'rate-limited',
        detail: `this API key may make ${limit}; retry after ${reportedReset} s`,
        headers: { 'retry-after': String(reportedReset) },
      });
    }
    return {
      policy: policyOf(perSecond, perMinute),
      state: `"${reported}";r=${reportedRemaining};t=${reportedReset}`,
      refusal,
    };
  }

  return {
    count,
    async admit(key, reply) {
      applyAdmission(await count(key), reply);
    },
  };
}
