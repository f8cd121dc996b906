import type pg from 'pg';
import { StoreOpenError } from '../store-open-error.js';

/**
 * Schema migrations, applied in order, one way; the table gridquote_schema holds the versions
 * applied. Append new migrations at the end and never edit one that has shipped. Everything
 * lives in the connection's current schema (search_path), so one database can hold several
 * stores (the tests use a schema each).
 *
 * The tables are those of the SQLite adapter (sqlite/migrations.ts, both of its migrations), in
 * the same units and with the same keys and indexes. Dates are integers yyyyMMdd, times HHmmss,
 * markets and instruments small integers (rows/ids.ts). Amounts that can outgrow 2^31 (face
 * value, MWh, sums) are bigint, read back as exact JS numbers (postgres-types.ts). Text that is
 * sorted or range-scanned (codes, regions, classes, key ids) is COLLATE "C": bytewise like
 * SQLite's, so orders match and a code prefix is a range scan on the b-tree.
 *
 * Partitioning: the event log, ticks and trades grow with every trading day and are read one
 * date at a time, so they are partitioned by range of date, one partition per calendar month
 * (postgres-partitions.ts creates them as the writer reaches a month): a day's read is pruned
 * to one month, vacuum touches only the months written, and each partition's indexes stay
 * small. The summary views (daily, days, datamine, index values) are a few hundred rows a day
 * and stay whole; since they keep every month, a month's partitions are not a unit to detach
 * (docs/operations.md).
 */
export const MIGRATIONS: readonly string[] = [
  `
  -- The store version: the id of the last stored event (0 when empty).
  CREATE TABLE meta (
    key text COLLATE "C" PRIMARY KEY,
    value bigint NOT NULL
  );
  INSERT INTO meta (key, value) VALUES ('version', 0);

  -- The event log: the source of truth, keyed by its identity (date, seq), the export order.
  CREATE TABLE events (
    date integer NOT NULL,
    seq bigint NOT NULL,
    id bigint NOT NULL,
    type text NOT NULL,
    line text NOT NULL,
    PRIMARY KEY (date, seq)
  ) PARTITION BY RANGE (date);

  CREATE TABLE contracts (
    code text COLLATE "C" PRIMARY KEY,
    market smallint NOT NULL,
    instrument smallint NOT NULL,
    root text NOT NULL,
    month smallint NOT NULL,
    year smallint NOT NULL,
    strike_cents bigint,
    option_type text,
    hours integer,
    mw_tenths integer NOT NULL,
    datamine_class text COLLATE "C",
    region text COLLATE "C" NOT NULL,
    qe_thirds integer NOT NULL
  );
  CREATE INDEX contracts_by_selection ON contracts (market, instrument, code);

  -- Ticker: book, trade and superseded settle messages (kind 1, 2, 3); a contract's latest
  -- settle of a date is in daily (as SQLite's migration 2 keeps it).
  CREATE TABLE ticks (
    date integer NOT NULL,
    seq bigint NOT NULL,
    time integer NOT NULL,
    market smallint NOT NULL,
    instrument smallint NOT NULL,
    code text COLLATE "C" NOT NULL,
    option_type text,
    kind smallint NOT NULL,
    bid_cents bigint,
    bid_size bigint,
    ask_cents bigint,
    ask_size bigint,
    price_cents bigint,
    volume bigint,
    settle_cents bigint,
    published_at bigint,
    implied_volatility bigint,
    PRIMARY KEY (date, market, instrument, time, seq)
  ) PARTITION BY RANGE (date);
  CREATE INDEX ticks_by_code ON ticks (date, market, instrument, code);

  CREATE TABLE trades (
    date integer NOT NULL,
    seq bigint NOT NULL,
    time integer NOT NULL,
    market smallint NOT NULL,
    instrument smallint NOT NULL,
    code text COLLATE "C" NOT NULL,
    option_type text,
    trade_type text NOT NULL,
    block smallint NOT NULL,
    volume bigint NOT NULL,
    price_cents bigint NOT NULL,
    hours integer,
    face_value_millis bigint,
    mwh_tenths bigint,
    grp text,
    PRIMARY KEY (date, market, time, seq)
  ) PARTITION BY RANGE (date);
  CREATE INDEX trades_by_code ON trades (date, market, instrument, code);

  -- One row per (date, contract); the *_seq columns make it independent of arrival order.
  CREATE TABLE daily (
    date integer NOT NULL,
    market smallint NOT NULL,
    instrument smallint NOT NULL,
    code text COLLATE "C" NOT NULL,
    option_type text,
    book_seq bigint,
    bid_cents bigint,
    bid_size bigint,
    ask_cents bigint,
    ask_size bigint,
    first_seq bigint,
    first_cents bigint,
    high_cents bigint,
    low_cents bigint,
    last_seq bigint,
    last_cents bigint,
    volume bigint NOT NULL,
    trades bigint NOT NULL,
    settle_seq bigint,
    settle_time integer,
    settle_cents bigint,
    published_at bigint,
    implied_volatility bigint,
    oi_seq bigint,
    open_interest bigint,
    PRIMARY KEY (date, market, instrument, code)
  );

  CREATE TABLE messages (
    date integer NOT NULL,
    seq bigint NOT NULL,
    time integer NOT NULL,
    market smallint NOT NULL,
    board text COLLATE "C" NOT NULL,
    text text NOT NULL,
    PRIMARY KEY (date, market, board, time, seq)
  );

  -- legs: JSON [[price_cents, ratio_hundredths], ...], 1 to 6 legs.
  CREATE TABLE custom_markets (
    date integer NOT NULL,
    seq bigint NOT NULL,
    time integer NOT NULL,
    market smallint NOT NULL,
    contract text NOT NULL,
    net_cents bigint NOT NULL,
    size bigint NOT NULL,
    legs text NOT NULL,
    PRIMARY KEY (date, market, time, seq)
  );

  CREATE TABLE index_values (
    name text COLLATE "C" NOT NULL,
    date integer NOT NULL,
    year integer NOT NULL,
    value_cents bigint NOT NULL,
    seq bigint NOT NULL,
    PRIMARY KEY (name, date, year)
  );

  -- Dates holding data per scope (a market code, or epi / npi for the index series).
  CREATE TABLE days (
    scope text COLLATE "C" NOT NULL,
    date integer NOT NULL,
    last_time integer NOT NULL,
    events bigint NOT NULL,
    PRIMARY KEY (scope, date)
  );

  -- Each date's revision (MarketReader.dayRevisions): the highest event id stored for it.
  CREATE TABLE day_revisions (
    date integer PRIMARY KEY,
    revision bigint NOT NULL
  );

  CREATE TABLE datamine_daily (
    market smallint NOT NULL,
    date integer NOT NULL,
    region text COLLATE "C" NOT NULL,
    class text COLLATE "C" NOT NULL,
    block smallint NOT NULL,
    efp smallint NOT NULL,
    volume bigint NOT NULL,
    qe_thirds bigint NOT NULL,
    mwh_tenths bigint NOT NULL,
    -- the face value is face_value_high x 10^14 + face_value_millis, |millis| < 10^14: a day's
    -- sum of a group can pass 2^63 (as in SQLite's migration 4, with the same carry)
    face_value_high bigint NOT NULL,
    face_value_millis bigint NOT NULL,
    count bigint NOT NULL,
    PRIMARY KEY (market, date, region, class, block, efp)
  );

  CREATE TABLE api_keys (
    id text COLLATE "C" PRIMARY KEY,
    name text NOT NULL,
    level text NOT NULL,
    secret_hash text NOT NULL,
    created_at text COLLATE "C" NOT NULL,
    expires_on text,
    revoked_at text,
    per_second integer,
    per_minute integer
  );
  `,
];

/** The schema version a store needs; also what `gridquote migrate` brings it to. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** A store whose schema this program cannot serve as it is: newer, or not yet migrated. */
export class SchemaVersionError extends StoreOpenError {}

const VERSIONS_TABLE = `CREATE TABLE IF NOT EXISTS gridquote_schema (
  version integer PRIMARY KEY,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** The highest applied migration in the current schema; 0 when none (or no table yet). */
export async function schemaVersion(client: pg.ClientBase): Promise<number> {
  const table = await client.query<{ present: boolean }>(
    "SELECT to_regclass('gridquote_schema') IS NOT NULL AS present",
  );
  if (!table.rows[0]?.present) return 0;
  const result = await client.query<{ version: number | null }>(
    'SELECT max(version) AS version FROM gridquote_schema',
  );
  return result.rows[0]?.version ?? 0;
}

/**
 * Brings the schema up to date, each migration in its own transaction under an advisory lock
 * (two processes starting at once migrate once). Refuses a schema newer than this program.
 * Returns the versions applied.
 */
export async function migrate(client: pg.ClientBase): Promise<number[]> {
  const applied: number[] = [];
  for (;;) {
    await client.query('BEGIN');
    try {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('gridquote migrate ' || current_schema()))");
      await client.query(VERSIONS_TABLE);
      const current = await schemaVersion(client);
      refuseNewer(current);
      const sql = MIGRATIONS[current];
      if (sql === undefined) {
        await client.query('COMMIT');
        return applied;
      }
      await client.query(sql);
      await client.query('INSERT INTO gridquote_schema (version) VALUES ($1)', [current + 1]);
      await client.query('COMMIT');
      applied.push(current + 1);
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    }
  }
}

/** At start without migrating (serve, export): the schema must be exactly this program's. */
export async function checkSchema(client: pg.ClientBase): Promise<void> {
  const current = await schemaVersion(client);
  refuseNewer(current);
  if (current < SCHEMA_VERSION) {
    throw new SchemaVersionError(
      `database schema version ${current} is older than this program's (${SCHEMA_VERSION}): run gridquote migrate --db <url>`,
    );
  }
}

function refuseNewer(current: number): void {
  if (current > SCHEMA_VERSION) {
    throw new SchemaVersionError(
      `database schema version ${current} is newer than this program knows (${SCHEMA_VERSION})`,
    );
  }
}
