import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { claimHolders, cutClaim } from '../../../test/pg-exchange-claim.js';
import { proxyInFrontOf } from '../../../test/tcp-proxy.js';
import { waitFor } from '../../../test/wait-for.js';
import { claimSchemaExchange } from './exchange-claim.js';
import { schemaUrl } from './schema-url.js';
import { reportSkipped, TEST_PG_URL, testSchemas } from './test-schemas.js';

reportSkipped('PostgreSQL exchange claim tests');
const schemas = testSchemas();

afterAll(async () => {
  if (TEST_PG_URL !== undefined) await schemas.dropAll();
});

/** A fresh schema (created, empty) and the connection settings of a store on it, as a claim connects. */
async function freshSchema(): Promise<{ schema: string; config: pg.ClientConfig }> {
  const schema = schemas.name();
  return { schema, config: { connectionString: await schemaUrl(TEST_PG_URL ?? '', schema) } };
}

const holders = (schema: string) => claimHolders(TEST_PG_URL ?? '', schema);

/** Whether `promise` has settled, without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  const pending = Symbol('pending');
  return (await Promise.race([promise, Promise.resolve(pending)])) !== pending;
}

describe.skipIf(TEST_PG_URL === undefined)('the exchange claim of a PostgreSQL store', () => {
  it('is taken again on a new connection when its connection is lost, so no second exchange starts', async () => {
    const { schema, config } = await freshSchema();
    const claim = await claimSchemaExchange(config, { firstMs: 20, maxMs: 100 });
    expect(claim).toBeDefined();
    try {
      const cut = await cutClaim(TEST_PG_URL ?? '', schema);
      await waitFor('the claim to be taken again', async () => (await holders(schema)).length === 1, {
        timeoutMs: 5_000,
      });
      expect(await holders(schema)).not.toContain(cut);
      // Held again: another claimant is refused, and the holder has not lost it.
      expect(await claimSchemaExchange(config)).toBeUndefined();
      expect(await settled(claim?.lost ?? Promise.resolve())).toBe(false);
    } finally {
      await claim?.release();
    }
    // Released for good: nobody holds it, and it is not taken again.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await holders(schema)).toEqual([]);
  });

  it('is lost, with the reason, when another process took it while the connection was down', async () => {
    const { schema, config } = await freshSchema();
    const claim = await claimSchemaExchange(config);
    const rival = new pg.Client(config);
    await rival.connect();
    try {
      // The rival takes it the moment the server frees it, before the holder's next attempt.
      await cutClaim(TEST_PG_URL ?? '', schema, rival);
      await expect(claim?.lost).resolves.toBe(
        'another process claimed the exchange while the connection holding this claim was down',
      );
      // The rival's claim stands, and the holder let go of trying.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await holders(schema)).toEqual([
        (await rival.query('SELECT pg_backend_pid() AS pid')).rows[0]?.pid,
      ]);
    } finally {
      await claim?.release();
      await rival.end();
    }
    expect(await holders(schema)).toEqual([]);
  });

  it('takes it again once the server can be reached again, and never after its release', async () => {
    const { schema, config } = await freshSchema();
    const { proxy, url } = await proxyInFrontOf(config.connectionString ?? '', 5432);
    const claim = await claimSchemaExchange({ connectionString: url }, { firstMs: 20, maxMs: 50 });
    try {
      expect(claim).toBeDefined();
      // The connection reset and the server out of reach: the lock goes, attempts fail quietly.
      await proxy.cut();
      await waitFor('the lock to be free', async () => (await holders(schema)).length === 0, {
        timeoutMs: 5_000,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await holders(schema)).toEqual([]);
      expect(await settled(claim?.lost ?? Promise.resolve())).toBe(false);
      // Back: taken again, and another claimant is refused.
      await proxy.restore();
      await waitFor('the claim to be taken again', async () => (await holders(schema)).length === 1, {
        timeoutMs: 5_000,
      });
      expect(await claimSchemaExchange(config)).toBeUndefined();
      // Released while trying again: nothing takes it afterwards.
      await proxy.cut();
      await waitFor('the lock to be free', async () => (await holders(schema)).length === 0, {
        timeoutMs: 5_000,
      });
      await claim?.release();
      await proxy.restore();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await holders(schema)).toEqual([]);
    } finally {
      await claim?.release();
      await proxy.close();
    }
  });
});
