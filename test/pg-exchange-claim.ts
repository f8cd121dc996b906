import pg from 'pg';

/**
 * The exchange claim of a PostgreSQL store as a test sees it from outside (postgres/exchange-claim.ts:
 * an advisory lock keyed 0x67717865 and the schema's hashtext, which pg_locks shows as an oid).
 */
const LOCK_CLASS = 0x67717865;
const LOCK_ROWS = `FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = ${LOCK_CLASS}
  AND objsubid = 2 AND objid::bigint = (hashtext($1)::bigint + 4294967296) % 4294967296`;

/** Runs one statement on a connection of its own. */
async function query<R extends pg.QueryResultRow>(
  url: string,
  text: string,
  values: unknown[],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The backends holding the schema's exchange claim (one at most). */
export async function claimHolders(url: string, schema: string): Promise<number[]> {
  const rows = await query<{ pid: number }>(url, `SELECT pid ${LOCK_ROWS}`, [schema]);
  return rows.map((row) => row.pid);
}

/**
 * Ends the backend holding the schema's claim, as a server restart or an administrator would. With
 * `rival`, that connection takes the claim the moment the server frees it (a loop inside the
 * server, polling every millisecond), before the holder can take it again, and keeps it until
 * it ends. Resolves with the pid ended, once the lock is free (or the rival's).
 */
export async function cutClaim(url: string, schema: string, rival?: pg.Client): Promise<number> {
  const [holder] = await claimHolders(url, schema);
  if (holder === undefined) throw new Error(`nobody holds the exchange of ${schema}`);
  const client = rival ?? new pg.Client({ connectionString: url });
  if (rival === undefined) await client.connect();
  try {
    await client.query(
      `DO $$ BEGIN
         PERFORM pg_terminate_backend(${holder});
         FOR attempt IN 1..5000 LOOP
           IF NOT EXISTS (SELECT 1 FROM pg_locks WHERE pid = ${holder} AND locktype = 'advisory') THEN
             ${rival === undefined ? 'RETURN;' : `IF pg_try_advisory_lock(${LOCK_CLASS}, hashtext(${pg.escapeLiteral(schema)})) THEN RETURN; END IF;`}
           END IF;
           PERFORM pg_sleep(0.001);
         END LOOP;
         RAISE EXCEPTION 'the claim of backend % was not freed', ${holder};
       END $$`,
    );
  } finally {
    if (rival === undefined) await client.end();
  }
  return holder;
}
