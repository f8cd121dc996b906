import pg from 'pg';

/**
 * Creates `schema` in the database at `url` when missing and returns the store URL that selects
 * it (its search_path), so that whoever opens that URL reads and writes only inside the schema.
 * Migrating is left to the store's own opening.
 */
export async function schemaUrl(url: string, schema: string): Promise<string> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  const located = new URL(url);
  located.searchParams.set('options', `-c search_path=${schema}`);
  return located.href;
}
