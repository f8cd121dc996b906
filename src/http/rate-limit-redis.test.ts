import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createHarness, expectProblem, type Harness } from '../../test/api-harness.js';
import { startTcpProxy } from '../../test/tcp-proxy.js';
import { waitFor } from '../../test/wait-for.js';
import { testRedisUrl } from '../config.js';
import { createApiKey } from './api-keys.js';
import type { RedisUnavailablePolicy } from './rate-limit.js';
import { createRedisRateLimitStore, type RedisRateLimitStore } from './rate-limit-redis.js';

const REDIS_URL = testRedisUrl();
if (!REDIS_URL) console.log('rate-limit-redis.test.ts: skipped, GRIDQUOTE_TEST_REDIS_URL is not set');

const URL = '/api/epi?date=20250227';
/** A per-minute limit: a burst on a busy machine stays inside one window. */
const LIMIT = { perSecond: 0, perMinute: 5 };

function statuses(responses: readonly { statusCode: number }[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { statusCode } of responses) counts[statusCode] = (counts[statusCode] ?? 0) + 1;
  return counts;
}

/** A port nothing listens on: bound once, then released. */
async function refusingPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Waits for a condition (test/wait-for.ts), with this file's argument order. */
const until = (check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000) =>
  waitFor(what, check, { timeoutMs, intervalMs: 25 });

describe.skipIf(!REDIS_URL)('rate limits shared in Redis', () => {
  const url = new globalThis.URL(REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `gqtest-${randomBytes(6).toString('hex')}`;
  const open: { harness: Harness; limits: RedisRateLimitStore }[] = [];

  afterEach(async () => {
    for (const { harness, limits } of open.splice(0)) {
      await harness.close();
      await limits.close();
    }
  });

  afterAll(async () => {
    const admin = new Redis(url.href);
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    expect(await admin.keys(`${prefix}*`)).toEqual([]);
    admin.disconnect();
  });

  async function replica(
    redisUrl: string,
    unavailable: RedisUnavailablePolicy = 'allow',
    log: string[] = [],
  ): Promise<Harness> {
    const limits = createRedisRateLimitStore({
      url: redisUrl,
      keyPrefix: prefix,
      unavailable,
      log: (line) => log.push(line),
    });
    const harness = await createHarness({ days: 2, app: { rateLimits: {}, rateLimitStore: limits.factory } });
    open.push({ harness, limits });
    return harness;
  }

  /** One key known to every replica (each has its own store, as replicas of one database would). */
  async function sharedKey(replicas: readonly Harness[], limits = LIMIT): Promise<string> {
    const first = replicas[0];
    if (first === undefined) throw new Error('no replica');
    const { key, record } = createApiKey({ level: 'historical', now: first.now, ...limits });
    for (const harness of replicas) await harness.store.keys.insertKey(record);
    return key;
  }

  const fallbacks = async (harness: Harness): Promise<number> => {
    const response = await harness.app.inject({ method: 'GET', url: '/metrics' });
    const match = /^gridquote_rate_limit_fallback_total (\d+)/m.exec(response.body);
    return Number(match?.[1] ?? Number.NaN);
  };

  /** Until a request of `probe` is counted in Redis (the client connects in the background). */
  async function connected(harness: Harness, probe: string): Promise<void> {
    await until(async () => {
      const before = await fallbacks(harness);
      await harness.get(URL, { key: probe });
      return (await fallbacks(harness)) === before;
    }, 'the Redis connection');
  }

  it('holds a key to its limit across two replicas as one process would', async () => {
    const a = await replica(url.href);
    const b = await replica(url.href);
    const key = await sharedKey([a, b]);
    const probe = await sharedKey([a, b], { perSecond: 0, perMinute: 1000 });
    await connected(a, probe);
    await connected(b, probe);
    const before = [await fallbacks(a), await fallbacks(b)];
    const spread = await Promise.all(
      Array.from({ length: 8 }, (_, i) => ((i % 2 === 0 ? a : b) as Harness).get(URL, { key })),
    );
    expect(statuses(spread)).toEqual({ 200: 5, 429: 3 });
    // Every request was counted in Redis, none by a replica alone.
    expect([await fallbacks(a), await fallbacks(b)]).toEqual(before);

    // The same burst on one in-process limiter: the same answer.
    const single = await createHarness({ days: 2, app: { rateLimits: {} } });
    try {
      const alone = await sharedKey([single]);
      expect(
        statuses(await Promise.all(Array.from({ length: 8 }, () => single.get(URL, { key: alone })))),
      ).toEqual(statuses(spread));
    } finally {
      await single.close();
    }
    const admin = new Redis(url.href);
    try {
      expect((await admin.keys(`${prefix}:rl:per-minute:*`)).length).toBeGreaterThan(0);
    } finally {
      admin.disconnect();
    }
  });

  it('refuses with 503, Retry-After and problem+json while Redis is unreachable (refuse)', async () => {
    const log: string[] = [];
    const harness = await replica(`redis://127.0.0.1:${await refusingPort()}`, 'refuse', log);
    const key = await sharedKey([harness]);
    const response = await harness.get(URL, { key });
    const body = expectProblem(response, 503);
    expect(body.type).toBe('tag:gridquote,2025:problems/rate-limiter-unavailable');
    expect(response.headers['retry-after']).toBe('1');
    // An unlimited key is never counted, so it is served.
    const unlimited = await sharedKey([harness], { perSecond: 0, perMinute: 0 });
    expect((await harness.get(URL, { key: unlimited })).statusCode).toBe(200);
    await harness.get(URL, { key });
    expect(log.filter((line) => line.includes('Redis unreachable'))).toHaveLength(1);
  });

  it('counts in the process alone, with a metric and one log line, while Redis is unreachable (allow)', async () => {
    const log: string[] = [];
    const harness = await replica(`redis://127.0.0.1:${await refusingPort()}`, 'allow', log);
    const key = await sharedKey([harness]);
    const responses = await Promise.all(Array.from({ length: 7 }, () => harness.get(URL, { key })));
    expect(statuses(responses)).toEqual({ 200: 5, 429: 2 });
    expect(await fallbacks(harness)).toBe(7);
    expect(log.filter((line) => line.includes('Redis unreachable'))).toHaveLength(1);
  });

  it('pays for a Redis that stops answering once a second, not on every request, and says when it answers again', async () => {
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
    const log: string[] = [];
    const harness = await replica(`redis://127.0.0.1:${proxy.port}`, 'allow', log);
    // Both windows limited: each is a command of its own.
    const key = await sharedKey([harness], { perSecond: 1000, perMinute: 100_000 });
    await connected(harness, key);
    const logged = log.length;
    proxy.freeze();
    const times: number[] = [];
    for (let i = 0; i < 20; i += 1) {
      const started = performance.now();
      expect((await harness.get(URL, { key })).statusCode).toBe(200);
      times.push(performance.now() - started);
    }
    // The first request waits for the timeout (250 ms a command); within the next second the rest skip Redis.
    expect(times.filter((ms) => ms >= 200).length).toBeLessThanOrEqual(2);
    expect(log.slice(logged)).toEqual([
      'rate limits: Redis unreachable (Command timed out); counting in this process alone until it is back',
    ]);
    proxy.thaw();
    await until(async () => {
      await harness.get(URL, { key });
      return log.slice(logged).some((line) => line.includes('Redis reachable again'));
    }, 'the answer after the thaw');
    await proxy.close();
  });

  it.each(['allow', 'refuse'] as const)(
    'follows its policy when Redis is lost mid-run and shares counters again once it is back (%s)',
    async (policy) => {
      const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 6379) });
      const log: string[] = [];
      const harness = await replica(`redis://127.0.0.1:${proxy.port}`, policy, log);
      const key = await sharedKey([harness], { perSecond: 0, perMinute: 1000 });
      if (policy === 'allow') await connected(harness, key);
      else
        await until(
          async () => (await harness.get(URL, { key })).statusCode === 200,
          'Redis through the proxy',
        );

      await proxy.cut();
      const during = await harness.get(URL, { key });
      if (policy === 'allow') {
        expect(during.statusCode).toBe(200);
        expect(await fallbacks(harness)).toBeGreaterThan(0);
      } else {
        expectProblem(during, 503);
        expect(during.headers['retry-after']).toBe('1');
      }
      expect(log.some((line) => line.includes('Redis unreachable'))).toBe(true);

      const reconnects = () => log.filter((line) => line.includes('Redis reachable again')).length;
      const before = reconnects();
      await proxy.restore();
      await until(() => reconnects() > before, 'the reconnect');
      const counted = await fallbacks(harness);
      expect((await harness.get(URL, { key })).statusCode).toBe(200);
      // Counted in Redis again, not by the process alone.
      expect(await fallbacks(harness)).toBe(counted);
      await proxy.close();
    },
  );
});
