import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededStore } from '../../test/fixtures.js';
import { testRedisUrl } from '../config.js';
import { createApiKey } from '../http/api-keys.js';
import { type RunningServer, startServer } from './serve.js';

const REDIS_URL = testRedisUrl();
if (!REDIS_URL) console.log('serve-redis.test.ts: skipped, GRIDQUOTE_TEST_REDIS_URL is not set');

describe.skipIf(!REDIS_URL)('two gridquote serve processes sharing a Redis', () => {
  const url = REDIS_URL ?? '';
  const prefix = `gqtest-${randomBytes(6).toString('hex')}`;
  let dir: string;
  let db: string;
  let key: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gridquote-serve-redis-'));
    db = join(dir, 'market.db');
    const { store } = seededStore({ days: 1, path: db });
    const created = createApiKey({ level: 'historical', now: new Date(), perSecond: 0, perMinute: 6 });
    await store.keys.insertKey(created.record);
    key = created.key;
    await store.close();
  });

  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    const admin = new Redis(url);
    const keys = await admin.keys(`${prefix}*`);
    if (keys.length > 0) await admin.del(...keys);
    admin.disconnect();
  });

  it('refuse a key over its limit whichever server the requests reach', async () => {
    const servers: RunningServer[] = [];
    try {
      for (let i = 0; i < 2; i += 1) {
        servers.push(
          await startServer({
            db,
            port: 0,
            host: '127.0.0.1',
            logLevel: false,
            redis: { url, keyPrefix: prefix, unavailable: 'refuse' },
          }),
        );
      }
      const get = (server: RunningServer | undefined) =>
        fetch(`${server?.url}/api/epi`, { headers: { authorization: `Bearer ${key}` } }).then(
          async (response) => {
            await response.arrayBuffer();
            return response.status;
          },
        );
      // Until both are connected ('refuse': a request before that is a 503, not counted).
      const counted: number[] = [];
      const deadline = Date.now() + 20_000;
      for (let i = 0; counted.length < 10; i += 1) {
        if (Date.now() > deadline) throw new Error(`Redis never counted: ${counted.join(',')}`);
        const status = await get(servers[i % 2]);
        if (status !== 503) counted.push(status);
      }
      expect(counted).toEqual([200, 200, 200, 200, 200, 200, 429, 429, 429, 429]);
    } finally {
      for (const server of servers) await server.close();
    }
  });
});
