import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { StoreClaim } from '../store.js';

/**
 * The exchange claim of a PostgreSQL store (MarketStore.claimExchange): a session advisory lock
 * keyed by the store's schema, on a connection of its own that holds it. The server ends the
 * lock with that connection: the process gone, or the connection lost (a server restart, a
 * network fault, an administrator's pg_terminate_backend). A live holder takes it again on a new
 * connection as soon as the server answers, so a restart does not leave the exchange unclaimed
 * for a second one to start on; if another process took it meanwhile, the claim is `lost` and
 * its holder stops its exchange. Advisory locks are the database's, so the key names the
 * schema: stores in other schemas of one database claim their own.
 */
export async function claimSchemaExchange(
  config: pg.ClientConfig,
  retry: { readonly firstMs: number; readonly maxMs: number } = RETRY,
): Promise<StoreClaim | undefined> {
  const first = await lockedClient(config);
  if (first === undefined) return undefined;
  let client = first;
  let released = false;
  let reportLost: (reason: string) => void = () => undefined;
  const lost = new Promise<string>((resolve) => {
    reportLost = resolve;
  });

  const retake = async () => {
    for (let waitMs = retry.firstMs; !released; waitMs = Math.min(retry.maxMs, waitMs * 2)) {
      await sleep(waitMs);
      if (released) return;
      let again: pg.Client | undefined;
      try {
        again = await lockedClient(config);
      } catch {
        // The server is not back yet (nobody else can take the lock meanwhile): again, later.
        continue;
      }
      if (again === undefined) {
        reportLost('another process claimed the exchange while the connection holding this claim was down');
        return;
      }
      if (released) {
        await again.end().catch(() => undefined);
        return;
      }
      client = again;
      watch(again);
      return;
    }
  };
  const watch = (holder: pg.Client) => {
    holder.once('end', () => {
      if (!released) void retake();
    });
  };
  watch(client);

  let ended: Promise<void> | undefined;
  return {
    release() {
      released = true;
      ended ??= client.end().catch(() => undefined);
      return ended;
    },
    lost,
  };
}

/** A new connection holding the schema's lock; undefined (and closed) when another session holds it. */
async function lockedClient(config: pg.ClientConfig): Promise<pg.Client | undefined> {
  const client = new pg.Client(config);
  // A connection lost later ends the lock with it: its 'end' says so (watch), not an error.
  client.on('error', () => undefined);
  let claimed = false;
  try {
    await client.connect();
    const result = await client.query<{ claimed: boolean }>(
      'SELECT pg_try_advisory_lock($1, hashtext(current_schema())) AS claimed',
      [EXCHANGE_LOCK_CLASS],
    );
    claimed = result.rows[0]?.claimed === true;
  } finally {
    if (!claimed) await client.end().catch(() => undefined);
  }
  return claimed ? client : undefined;
}

/** The advisory lock's first key, which no other user of the database is likely to take: "gqxe". */
const EXCHANGE_LOCK_CLASS = 0x67717865;

/** After a lost connection: the first wait before taking the lock again, and the longest. */
const RETRY = { firstMs: 100, maxMs: 2_000 };
