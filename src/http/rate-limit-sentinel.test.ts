import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasRedisServer, type PrivateSentinel, startPrivateSentinel } from '../../test/private-redis.js';
import { waitFor } from '../../test/wait-for.js';
import { loadConfig } from '../config.js';
import type { RateLimitWindow } from './rate-limit.js';
import { createRedisRateLimitStore, keepConnecting } from './rate-limit-redis.js';
import { parseRedisLocation } from './redis-location.js';

describe('a Redis location', () => {
  it('is a redis:// or rediss:// URL, or the sentinels and the master’s name', () => {
    expect(parseRedisLocation('redis://:pw@10.0.0.5:6379/2')).toEqual({
      kind: 'url',
      url: 'redis://:pw@10.0.0.5:6379/2',
      tls: false,
    });
    expect(parseRedisLocation('redis+sentinel://s1:26379,s2.example:26380,[::1]:26381/gq-master')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2.example', port: 26380 },
        { host: '::1', port: 26381 },
      ],
      name: 'gq-master',
      tls: false,
    });
    expect(parseRedisLocation('redis+sentinel://gq:p%40ss@s1:26379/m')).toMatchObject({
      username: 'gq',
      password: 'p@ss',
    });
    expect(parseRedisLocation('redis+sentinel://:secret@s1:26379/m')).toEqual({
      kind: 'sentinel',
      sentinels: [{ host: 's1', port: 26379 }],
      name: 'm',
      password: 'secret',
      tls: false,
    });
  });

  it('refuses anything else without repeating it (it may hold a password)', () => {
    for (const text of [
      'http://s1:6379',
      'redis+sentinel://s1:26379',
      'redis+sentinel://s1/m',
      'redis+sentinel://s1:70000/m',
      'redis+sentinel://:hunter2@s1:26379,/m',
      'redis+sentinel://s1:26379/m/extra',
    ]) {
      const result = parseRedisLocation(text);
      expect(result, text).toHaveProperty('problem');
      expect(JSON.stringify(result)).not.toContain('hunter2');
    }
    expect(() => loadConfig({ GRIDQUOTE_REDIS_URL: 'redis+sentinel://:hunter2@s1/m' })).toThrow(
      /GRIDQUOTE_REDIS_URL must name each sentinel as host:port/,
    );
  });
});

if (!hasRedisServer()) console.log('rate-limit-sentinel.test.ts: Redis Sentinel skipped, no redis-server');

describe.skipIf(!hasRedisServer())(
  'rate limits through sentinels that ask for a password of their own',
  () => {
    const MINUTE: RateLimitWindow = { name: 'per-minute', seconds: 60 };
    const PASSWORD = 'sentinel-only-pw';
    let redis: PrivateSentinel;

    beforeAll(async () => {
      redis = await startPrivateSentinel('gqauth', { sentinelPassword: PASSWORD });
    }, 60_000);
    afterAll(async () => {
      await redis?.close();
    });

    const storeWith = (sentinelPassword: string | undefined, log: string[]) =>
      createRedisRateLimitStore({
        url: redis.url,
        keyPrefix: 'gqa',
        unavailable: 'refuse',
        ...(sentinelPassword === undefined ? {} : { sentinelPassword }),
        log: (line) => log.push(line),
      });

    it('counts in the master with the password, and is refused without it or with another, never logging it', async () => {
      const [rightLog, noneLog, wrongLog]: [string[], string[], string[]] = [[], [], []];
      const [right, none, wrong] = [
        storeWith(PASSWORD, rightLog),
        storeWith(undefined, noneLog),
        storeWith('another-pw', wrongLog),
      ];
      const counted = async (store: ReturnType<typeof createRedisRateLimitStore>) => {
        try {
          return (await store.factory(MINUTE).consume('key1')).consumedPoints;
        } catch (error) {
          return error instanceof Error ? error.message : String(error);
        }
      };
      try {
        await waitFor('a count through the sentinel', async () => (await counted(right)) === 1, {
          timeoutMs: 10_000,
          intervalMs: 50,
        });
        expect(await counted(right)).toBe(2);
        const master = redis.client(redis.masterPort);
        expect(await master.get('gqa:rl:per-minute:key1')).toBe('2');
        master.disconnect();
        // Without the sentinels' password no master is found: each request is refused (503), nothing counted.
        for (const [store, log] of [
          [none, noneLog],
          [wrong, wrongLog],
        ] as const) {
          await waitFor('the store to report the sentinels refusing it', async () => log.length > 0, {
            timeoutMs: 10_000,
            intervalMs: 50,
          });
          expect(await counted(store)).toBe('rate limits cannot be checked now; retry after 1 s');
          expect(log[0]).toMatch(/^rate limits: Redis unreachable \(All sentinels are unreachable\./);
        }
        // The right store's one outage was its first requests, before it had connected.
        expect(rightLog.filter((line) => !/not ready|reachable again/.test(line))).toEqual([]);
        // The sentinels' own answer says which: no password, or a wrong one.
        expect(noneLog[0]).toContain('Last error: NOAUTH');
        expect(wrongLog[0]).toContain('Last error: WRONGPASS');
        const logged = [...rightLog, ...noneLog, ...wrongLog].join('\n');
        expect(logged).not.toContain(PASSWORD);
        expect(logged).not.toContain('another-pw');
      } finally {
        for (const store of [right, none, wrong]) await store.close();
      }
    });
  },
);

describe.skipIf(!hasRedisServer())('rate limits through Redis Sentinel', () => {
  const MINUTE: RateLimitWindow = { name: 'per-minute', seconds: 60 };
  let redis: PrivateSentinel;

  beforeAll(async () => {
    redis = await startPrivateSentinel('gqmaster');
  }, 60_000);
  afterAll(async () => {
    await redis?.close();
  });

  it('starts a client that gave up for good again, until told to stop', async () => {
    const client = redis.client(redis.masterPort);
    try {
      expect(await client.ping()).toBe('PONG');
      const stop = keepConnecting(client);
      // Ended as ioredis leaves a client after a failover announced mid-question (keepConnecting).
      const ended = once(client, 'end');
      client.disconnect();
      await ended;
      await waitFor(
        'the client started again',
        async () => client.status === 'ready' && (await client.ping()) === 'PONG',
        {
          timeoutMs: 10_000,
          intervalMs: 50,
        },
      );
      stop();
      client.disconnect();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(client.status).toBe('end');
    } finally {
      client.disconnect();
    }
  });

  it('counts in the master the sentinel names and, once it fails over, in the new master, shared again', async () => {
    // Two server processes' stores, refusing while Redis cannot be reached (not counting alone).
    const logs: string[][] = [[], []];
    const [a, b] = logs.map((log) =>
      createRedisRateLimitStore({
        url: redis.url,
        keyPrefix: 'gqs',
        unavailable: 'refuse',
        log: (line) => log.push(line),
      }),
    ) as [ReturnType<typeof createRedisRateLimitStore>, ReturnType<typeof createRedisRateLimitStore>];
    const [countA, countB] = [a.factory(MINUTE), b.factory(MINUTE)];
    const counted = async (store: typeof countA) => {
      try {
        return (await store.consume('key1')).consumedPoints;
      } catch {
        return undefined;
      }
    };
    try {
      await waitFor('the first count', async () => (await counted(countA)) !== undefined, {
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      expect(await counted(countB)).toBe(2);
      expect(await counted(countA)).toBe(3);
      const master = redis.client(redis.masterPort);
      expect(await master.get('gqs:rl:per-minute:key1')).toBe('3');
      master.disconnect();
      // The replica holds the counts before the master goes (so the failover loses none).
      const replica = redis.client(redis.replicaPort);
      await waitFor(
        'the count on the replica',
        async () => (await replica.get('gqs:rl:per-minute:key1')) === '3',
        {
          timeoutMs: 10_000,
          intervalMs: 20,
        },
      );

      await redis.killMaster();
      await waitFor(
        'the sentinel to promote the replica',
        async () => (await redis.masterNamed()) === redis.replicaPort,
        {
          timeoutMs: 30_000,
          intervalMs: 100,
        },
      );
      // Each store finds the new master by itself, and the two count together again, from where they were.
      const afterFailover: number[] = [];
      await waitFor(
        'a count on the new master',
        async () => {
          const count = await counted(countA);
          if (count !== undefined) afterFailover.push(count);
          return count !== undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      await waitFor('the other store on the new master', async () => (await counted(countB)) !== undefined, {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      expect(afterFailover).toEqual([4]);
      expect(await counted(countA)).toBe(6);
      expect(await replica.get('gqs:rl:per-minute:key1')).toBe('6');
      replica.disconnect();
      // Each store said when it lost Redis and, the last thing, that it is back: once for each loss.
      for (const log of logs) {
        const lost = log.filter((line) => line.startsWith('rate limits: Redis unreachable'));
        expect(lost.length).toBeGreaterThan(0);
        expect(
          log.filter((line) => line === 'rate limits: Redis reachable again, counters shared'),
        ).toHaveLength(lost.length);
        expect(log.at(-1)).toBe('rate limits: Redis reachable again, counters shared');
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
