import pg from 'pg';
import type { StoreClaim } from '../store.js';

/**
 * The exchange claim of a PostgreSQL store (MarketStore.claimExchange): a session advisory lock
 * keyed by the store's schema, on a connection of its own that holds it. The server ends it with
 * that connection (the process gone, or the connection lost). Advisory locks are the database's,
 * so the key names the schema: stores in other schemas of one database claim their own.
 */
export async function claimSchemaExchange(config: pg.ClientConfig): Promise<StoreClaim | undefined> {
  const client = new pg.Client(config);
  // A connection lost later ends the claim with it; nothing to report to anyone then.
  client.on('error', () => undefined);
  await client.connect();
  let claimed = false;
  try {
    const result = await client.query<{ claimed: boolean }>(
      'SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS claimed',
      [EXCHANGE_LOCK_CLASS],
    );
    claimed = result.rows[0]?.claimed === true;
  } finally {
    if (!claimed) await client.end().catch(() => undefined);
  }
  if (!claimed) return undefined;
  let released: Promise<void> | undefined;
  return {
    release() {
      released ??= client.end().catch(() => undefined);
      return released;
    },
  };
}

/** The advisory lock's first key, which no other user of the database is likely to take: "gqxe". */
const EXCHANGE_LOCK_CLASS = 0x67717865;
