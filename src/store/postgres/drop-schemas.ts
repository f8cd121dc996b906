import pg from 'pg';

/** Drops stores kept in schemas of their own (tests, benchmarks), with everything in them. */
export async function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of schemas)
      await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}
