import type { FastifyReply } from 'fastify';
import type { AccessLevel } from '../query/context.js';
import type { ApiKeyRecord } from '../store/store.js';
import { HttpProblem } from './problems.js';
import { LeaseLedger } from './rate-limit-ledger.js';

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
 * The counters of one process: a fixed window per key, started by its first request, counted
 * synchronously in a LeaseLedger (the books the primary of `serve --workers N` keeps, here with
 * one taker). rate-limiter-flexible's memory limiter counts the same windows, but answers through
 * a promise per window: on the serving process that cost about 8 µs of CPU a request
 * (docs/benchmarks.md, "The fast lane"); it still counts for replicas, in Redis
 * (rate-limit-redis.ts). The count is compared with the key's own limit in createRateLimiter.
 */
export const memoryRateLimitStore: RateLimitStoreFactory = (window) => {
  const ledger = new LeaseLedger(() => 1);
  return {
    consume(key, limit = Number.MAX_SAFE_INTEGER) {
      // One clock read for the grant and the time left (a read costs about 0.1 µs on a busy server).
      const now = Date.now();
      const lease = ledger.grant(window, key, limit, 1, now);
      // Refused: one over the limit, as a counting limiter would report it.
      return {
        consumedPoints: lease.granted > 0 ? lease.total : limit + 1,
        msBeforeNext: lease.windowEnd - now,
      };
    },
  };
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
  /**
   * Counts a request of the key; undefined for a key without limits. An answer at once when the
   * counters are the process's own, a promise when they are elsewhere. admit() applies it.
   */
  count(key: ApiKeyRecord): Admission | undefined | Promise<Admission | undefined>;
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

  /** A key's limits and the policy header they make, worked out once per key record. */
  const plans = new WeakMap<ApiKeyRecord, Plan | null>();
  function planOf(key: ApiKeyRecord): Plan | null {
    const known = plans.get(key);
    if (known !== undefined) return known;
    const level = levels[key.level];
    const perSecond = key.perSecond ?? level.perSecond;
    const perMinute = key.perMinute ?? level.perMinute;
    const plan =
      perSecond === 0 && perMinute === 0
        ? null
        : { perSecond, perMinute, limits: [perSecond, perMinute], policy: policyOf(perSecond, perMinute) };
    plans.set(key, plan);
    return plan;
  }

  /**
   * Counts the request in each window with a limit, shortest first. Synchronous while the stores
   * answer synchronously (the process's own counters); a store that answers later (Redis, a
   * worker's next lease) makes the rest wait for it.
   */
  function count(key: ApiKeyRecord): Admission | undefined | Promise<Admission | undefined> {
    const plan = planOf(key);
    if (plan === null) return undefined;
    const tally = new Tally(plan);
    return countFrom(0, key, plan, tally);
  }

  function countFrom(
    first: number,
    key: ApiKeyRecord,
    plan: Plan,
    tally: Tally,
  ): Admission | Promise<Admission> {
    for (let i = first; i < WINDOWS.length; i++) {
      const limit = plan.limits[i] ?? 0;
      const store = stores[i];
      if (limit === 0 || store === undefined) continue;
      const counted = store.consume(key.id, limit);
      if (counted instanceof Promise) {
        return counted.then((window) =>
          tally.add(i, window) ? finish(tally) : countFrom(i + 1, key, plan, tally),
        );
      }
      if (tally.add(i, counted)) break;
    }
    return finish(tally);
  }

  function finish(tally: Tally): Admission {
    if (tally.fellBack) options.onFallback?.();
    return tally.admission();
  }

  return {
    count,
    async admit(key, reply) {
      applyAdmission(await count(key), reply);
    },
  };
}

interface Plan {
  readonly perSecond: number;
  readonly perMinute: number;
  /** The limit of each of WINDOWS, in its order (0: none). */
  readonly limits: readonly number[];
  /** The RateLimit-Policy header. */
  readonly policy: string;
}

/** What one request's counts say: the window closest to exhaustion, and whether one is over. */
class Tally {
  #reported = '';
  #remaining = Number.POSITIVE_INFINITY;
  #reset = 0;
  #over = false;
  fellBack = false;

  constructor(private readonly plan: Plan) {}

  /** Adds one window's count; true when it is over its limit (the longer windows are not spent then). */
  add(index: number, count: WindowCount): boolean {
    const window = WINDOWS[index];
    const limit = this.plan.limits[index] ?? 0;
    if (window === undefined) return false;
    if (count.fallback === true) this.fellBack = true;
    const remaining = Math.max(0, limit - count.consumedPoints);
    // A reset under a second away still reads as 1: 0 would invite an immediate retry.
    const reset = Math.max(1, Math.ceil(count.msBeforeNext / 1000));
    // Closest to exhaustion: fewest requests left, then the later reset.
    if (remaining < this.#remaining || (remaining === this.#remaining && reset > this.#reset)) {
      this.#reported = window.name;
      this.#remaining = remaining;
      this.#reset = reset;
    }
    if (count.consumedPoints > limit) this.#over = true;
    return this.#over;
  }

  admission(): Admission {
    const { perSecond, perMinute, policy } = this.plan;
    let refusal: HttpProblem | undefined;
    if (this.#over) {
      const limit =
        this.#reported === 'per-second'
          ? `${perSecond} requests per second`
          : `${perMinute} requests per minute`;
      refusal = new HttpProblem({
        code: 'rate-limited',
        detail: `this API key may make ${limit}; retry after ${this.#reset} s`,
        headers: { 'retry-after': String(this.#reset) },
      });
    }
    return {
      policy,
      state: `"${this.#reported}";r=${integerText(this.#remaining)};t=${integerText(this.#reset)}`,
      refusal,
    };
  }
}

/** "0" to "999", and the same zero-padded to three digits: made once. */
const UP_TO_999 = Array.from({ length: 1000 }, (_, n) => String(n));
const THREE_DIGITS = UP_TO_999.map((text) => text.padStart(3, '0'));

/**
 * A whole number >= 0 as text, without V8's number-string cache: `${n}` keeps each number it
 * turns into a string in that cache, a table in the old generation, so a count that changes with
 * every request kept a young string alive per request and lengthened every young-generation
 * pause (docs/benchmarks.md); toFixed(0) bypasses the cache but cost 0.3 µs a request on a busy
 * server. Counts under 1,000 (every default limit's) are made once; larger ones are joined from
 * groups of three digits.
 */
export function integerText(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) return String(n);
  if (n < 1000) return UP_TO_999[n] ?? String(n);
  return `${integerText(Math.floor(n / 1000))}${THREE_DIGITS[n % 1000]}`;
}
