import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Certificates, hasOpenssl, makeCertificates } from '../../test/certificates.js';
import { PROCESS_TEST_TIMEOUT_MS, spawnCli, startServe } from '../../test/cli-process.js';
import { seededStore } from '../../test/fixtures.js';
import {
  hasRedisServer,
  type PrivateSentinel,
  startPrivateSentinel,
  startPrivateTlsRedis,
} from '../../test/private-redis.js';
import { waitFor } from '../../test/wait-for.js';
import { ConfigError, loadConfig } from '../config.js';
import { createApiKey } from './api-keys.js';
import type { RateLimitWindow } from './rate-limit.js';
import { createRedisRateLimitStore, type RedisRateLimitOptions } from './rate-limit-redis.js';
import { parseRedisLocation } from './redis-location.js';

const MINUTE: RateLimitWindow = { name: 'per-minute', seconds: 60 };
type Store = ReturnType<typeof createRedisRateLimitStore>;

/** The count a store gives key1, or the message of its refusal. */
async function counted(store: Store): Promise<number | string> {
  try {
    return (await store.factory(MINUTE).consume('key1')).consumedPoints;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

const REFUSED = 'rate limits cannot be checked now; retry after 1 s';

describe('Redis TLS settings', () => {
  it('reads rediss+sentinel:// as the sentinels and their servers over TLS', () => {
    expect(parseRedisLocation('rediss+sentinel://:pw@s1:26379,s2:26379/gq')).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
      name: 'gq',
      password: 'pw',
      tls: true,
    });
    expect(parseRedisLocation('redis+sentinel://s1:26379/gq')).toMatchObject({ tls: false });
    expect(parseRedisLocation('rediss://r1:6380')).toEqual({
      kind: 'url',
      url: 'rediss://r1:6380',
      tls: true,
    });
    expect(parseRedisLocation('redis://r1:6379')).toEqual({
      kind: 'url',
      url: 'redis://r1:6379',
      tls: false,
    });
    expect(parseRedisLocation('redisss+sentinel://s1:26379/gq')).toHaveProperty('problem');
  });

  it('refuses TLS files that cannot be read, a certificate without its key, and files for a location in clear', () => {
    const problems = (env: Record<string, string>): string[] => {
      try {
        loadConfig(env);
        return [];
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        return [...error.problems];
      }
    };
    const dir = mkdtempSync(join(tmpdir(), 'gq-redis-tls-config-'));
    try {
      expect(
        problems({ GRIDQUOTE_REDIS_URL: 'rediss://r1:6380', GRIDQUOTE_REDIS_TLS_CA: join(dir, 'none.pem') }),
      ).toEqual([
        `GRIDQUOTE_REDIS_TLS_CA must be the path of a readable file, got ${JSON.stringify(join(dir, 'none.pem'))} (ENOENT)`,
      ]);
      expect(problems({ GRIDQUOTE_REDIS_URL: 'rediss://r1:6380', GRIDQUOTE_REDIS_TLS_CA: dir })).toEqual([
        `GRIDQUOTE_REDIS_TLS_CA must be the path of a readable file, got ${JSON.stringify(dir)} (not a file)`,
      ]);
      const file = join(import.meta.dirname, 'rate-limit-redis-tls.test.ts');
      expect(problems({ GRIDQUOTE_REDIS_URL: 'rediss://r1:6380', GRIDQUOTE_REDIS_TLS_CERT: file })).toEqual([
        'GRIDQUOTE_REDIS_TLS_CERT and GRIDQUOTE_REDIS_TLS_KEY go together: a client certificate and its key',
      ]);
      const inClear: Record<string, string>[] = [
        { GRIDQUOTE_REDIS_URL: 'redis://r1:6379', GRIDQUOTE_REDIS_TLS_CA: file },
        { GRIDQUOTE_REDIS_URL: 'redis+sentinel://s1:26379/gq', GRIDQUOTE_REDIS_TLS_CA: file },
        { GRIDQUOTE_REDIS_TLS_CERT: file, GRIDQUOTE_REDIS_TLS_KEY: file },
      ];
      for (const env of inClear) {
        expect(problems(env), JSON.stringify(env)).toEqual([
          'the Redis TLS files (GRIDQUOTE_REDIS_TLS_CA, GRIDQUOTE_REDIS_TLS_CERT, GRIDQUOTE_REDIS_TLS_KEY) need a rediss:// or rediss+sentinel:// location in GRIDQUOTE_REDIS_URL: they are never ignored',
        ]);
      }
      expect(
        loadConfig({
          GRIDQUOTE_REDIS_URL: 'rediss+sentinel://s1:26379/gq',
          GRIDQUOTE_REDIS_TLS_CA: file,
          GRIDQUOTE_REDIS_TLS_CERT: file,
          GRIDQUOTE_REDIS_TLS_KEY: file,
        }),
      ).toMatchObject({ redisTlsCa: file, redisTlsCert: file, redisTlsKey: file });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

const runnable = hasRedisServer() && hasOpenssl();
if (!runnable)
  console.log('rate-limit-redis-tls.test.ts: Redis over TLS skipped, no redis-server or openssl');

describe.skipIf(!runnable)('rate limits in a Redis reached over TLS', () => {
  let dir: string;
  let certificates: Certificates;
  let redis: Awaited<ReturnType<typeof startPrivateTlsRedis>>;
  let sentinel: PrivateSentinel;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gq-redis-tls-'));
    certificates = await makeCertificates(join(dir, 'certificates'), 'gridquote');
    redis = await startPrivateTlsRedis(certificates);
    sentinel = await startPrivateSentinel('gqtls', { tls: certificates });
  }, 90_000);
  afterAll(async () => {
    await redis?.close();
    await sentinel?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  const storeAt = (url: string, tlsFiles: RedisRateLimitOptions['tlsFiles'], log: string[]): Store =>
    createRedisRateLimitStore({
      url,
      keyPrefix: 'gqtls',
      unavailable: 'refuse',
      ...(tlsFiles === undefined ? {} : { tlsFiles }),
      log: (line) => log.push(line),
    });
  const allFiles = () => ({
    ca: certificates.ca,
    cert: certificates.clientCert,
    key: certificates.clientKey,
  });

  it('counts over TLS with the CA and a client certificate, and is refused, saying why, without them', async () => {
    const url = `rediss://127.0.0.1:${redis.port}`;
    const logs = { right: [], noClient: [], otherCa: [], systemCas: [], inClear: [] } as Record<
      string,
      string[]
    >;
    const stores = {
      right: storeAt(url, allFiles(), logs.right as string[]),
      // The server asks for a client certificate (tls-auth-clients) and gets none.
      noClient: storeAt(url, { ca: certificates.ca }, logs.noClient as string[]),
      // The server's certificate checked against a CA that did not sign it, or the system's.
      otherCa: storeAt(url, { ...allFiles(), ca: certificates.otherCa }, logs.otherCa as string[]),
      systemCas: storeAt(
        url,
        { cert: certificates.clientCert, key: certificates.clientKey },
        logs.systemCas as string[],
      ),
      // Plain redis:// to a server that speaks TLS only.
      inClear: storeAt(`redis://127.0.0.1:${redis.port}`, undefined, logs.inClear as string[]),
    };
    try {
      await waitFor('a count over TLS', async () => (await counted(stores.right)) === 1, {
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      expect(await counted(stores.right)).toBe(2);
      const server = redis.client();
      expect(await server.get('gqtls:rl:per-minute:key1')).toBe('2');
      for (const name of ['noClient', 'otherCa', 'systemCas', 'inClear'] as const) {
        const log = logs[name] as string[];
        await waitFor(`${name}: the store to report Redis unreachable`, async () => log.length > 0, {
          timeoutMs: 10_000,
          intervalMs: 50,
        });
        expect(await counted(stores[name]), name).toBe(REFUSED);
        expect(log[0], name).toMatch(/^rate limits: Redis unreachable \(/);
      }
      // None of them counted anything.
      expect(await server.get('gqtls:rl:per-minute:key1')).toBe('2');
      server.disconnect();
      // Each line says why: a certificate no given CA signed, no client certificate, no TLS.
      for (const name of ['otherCa', 'systemCas'] as const) {
        expect(logs[name]?.[0], name).toContain('(self-signed certificate in certificate chain)');
      }
      // The server's alert, or only a reset, depending on which the client reads first.
      expect(logs.noClient?.[0]).toMatch(
        /\((the server ended the TLS handshake with the alert "certificate required"|write ECONNRESET); over TLS, the server most likely refused the client certificate or got none: GRIDQUOTE_REDIS_TLS_CERT, GRIDQUOTE_REDIS_TLS_KEY\)/,
      );
      for (const log of Object.values(logs)) for (const line of log) expect(line).not.toContain('\n');
      expect(logs.inClear?.[0]).toMatch(/\((read|write) ECONNRESET\)/);
    } finally {
      for (const store of Object.values(stores)) await store.close();
    }
  });

  it(
    'is what `gridquote serve` counts in, given the location and the files in its environment',
    async () => {
      const db = join(dir, 'market.db');
      const { store } = seededStore({ days: 1, path: db });
      const created = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 3 });
      await store.keys.insertKey(created.record);
      await store.close();
      const env = {
        GRIDQUOTE_DB: db,
        GRIDQUOTE_REDIS_URL: `rediss://127.0.0.1:${redis.port}`,
        GRIDQUOTE_REDIS_KEY_PREFIX: 'gqserve',
        GRIDQUOTE_REDIS_UNAVAILABLE: 'refuse',
        GRIDQUOTE_REDIS_TLS_CA: certificates.ca,
        GRIDQUOTE_REDIS_TLS_CERT: certificates.clientCert,
        GRIDQUOTE_REDIS_TLS_KEY: certificates.clientKey,
      };
      const serve = await startServe(['--workers', '1'], env);
      try {
        const statuses: number[] = [];
        await waitFor(
          'three answers and a refusal, counted in Redis',
          async () => {
            const response = await fetch(`${serve.base}/api/epi`, {
              headers: { authorization: `Bearer ${created.key}` },
            });
            await response.arrayBuffer();
            // 503 until serve has connected ('refuse'): not counted.
            if (response.status !== 503) statuses.push(response.status);
            return statuses.length === 4;
          },
          { timeoutMs: 20_000, intervalMs: 20 },
        );
        expect(statuses).toEqual([200, 200, 200, 429]);
        const server = redis.client();
        expect(await server.get(`gqserve:rl:per-minute:${created.record.id}`)).toBe('4');
        server.disconnect();
      } finally {
        await serve.stop();
      }
      // The same files with a location in clear: serve does not start.
      const refused = spawnCli(['serve', '--port', '0'], {
        ...env,
        GRIDQUOTE_REDIS_URL: `redis://127.0.0.1:${redis.port}`,
      });
      expect(await refused.exited).not.toBe(0);
      expect(refused.stderr()).toContain(
        'need a rediss:// or rediss+sentinel:// location in GRIDQUOTE_REDIS_URL',
      );
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it('counts through sentinels over TLS in the master they name, and in the new one after a failover', async () => {
    const log: string[] = [];
    const store = storeAt(sentinel.url, allFiles(), log);
    try {
      expect(sentinel.url).toMatch(/^rediss\+sentinel:\/\//);
      await waitFor('a count through the sentinel over TLS', async () => (await counted(store)) === 1, {
        timeoutMs: 10_000,
        intervalMs: 50,
      });
      expect(await counted(store)).toBe(2);
      const replica = sentinel.client(sentinel.replicaPort);
      await waitFor(
        'the count on the replica',
        async () => (await replica.get('gqtls:rl:per-minute:key1')) === '2',
        {
          timeoutMs: 10_000,
          intervalMs: 20,
        },
      );
      await sentinel.killMaster();
      await waitFor(
        'the replica promoted',
        async () => (await sentinel.masterNamed()) === sentinel.replicaPort,
        {
          timeoutMs: 30_000,
          intervalMs: 100,
        },
      );
      // The store finds the new master through the sentinel and reaches it over TLS as well.
      await waitFor('a count on the new master', async () => typeof (await counted(store)) === 'number', {
        timeoutMs: 30_000,
        intervalMs: 100,
      });
      expect(await replica.get('gqtls:rl:per-minute:key1')).toBe('3');
      replica.disconnect();
      expect(log.at(-1)).toBe('rate limits: Redis reachable again, counters shared');
    } finally {
      await store.close();
    }
  }, 60_000);
});
