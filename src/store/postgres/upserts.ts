import type pg from 'pg';
import { FACE_VALUE_SPLIT } from '../rows/view-batch.js';
import { type CopyData, CopyRows, type CopyScript, runCopyScript } from './copy-rows.js';

/**
 * Multi-row inserts and upserts of the writer: the contracts, the summary views (with the merge
 * rules of rows/view-batch.ts) and index values. Rows go in one of two ways: up to
 * STAGE_ABOVE rows as one statement with one array per column (unnest), more through COPY into
 * a temporary table and one INSERT ... SELECT from it (about twice as fast for thousands of
 * rows, but a temporary table costs catalog work a small live append should not pay). The rows
 * of one call have distinct keys, as ON CONFLICT requires (ViewBatch sums one row per key).
 */
export interface Upsert {
  readonly table: string;
  /** Column names and their types, in the order of the rows' values. */
  readonly columns: readonly (readonly [name: string, type: string])[];
  /** What follows the INSERT: ON CONFLICT ...; the target table is aliased `t`. */
  readonly onConflict: string;
}

const STAGE_ABOVE = 1_000;

const latest = (seq: string, column: string) =>
  `${column} = CASE WHEN excluded.${seq} > coalesce(t.${seq}, 0) THEN excluded.${column} ELSE t.${column} END`;
const bigints = (...names: string[]) => names.map((name) => [name, 'bigint'] as const);

export const CONTRACTS: Upsert = {
  table: 'contracts',
  columns: [
    ['code', 'text'],
    ['market', 'smallint'],
    ['instrument', 'smallint'],
    ['root', 'text'],
    ['month', 'smallint'],
    ['year', 'smallint'],
    ['strike_cents', 'bigint'],
    ['option_type', 'text'],
    ['hours', 'integer'],
    ['mw_tenths', 'integer'],
    ['datamine_class', 'text'],
    ['region', 'text'],
    ['qe_thirds', 'integer'],
  ],
  onConflict: 'ON CONFLICT (code) DO NOTHING',
};

/** ViewBatch's daily rows, columns in its order (ViewBatch.write). */
export const DAILY: Upsert = {
  table: 'daily',
  columns: [
    ['date', 'integer'],
    ['market', 'smallint'],
    ['instrument', 'smallint'],
    ['code', 'text'],
    ['option_type', 'text'],
    ...bigints('book_seq', 'bid_cents', 'bid_size', 'ask_cents', 'ask_size', 'first_seq', 'first_cents'),
    ...bigints('high_cents', 'low_cents', 'last_seq', 'last_cents', 'volume', 'trades', 'settle_seq'),
    ['settle_time', 'integer'],
    ...bigints('settle_cents', 'published_at', 'implied_volatility', 'oi_seq', 'open_interest'),
  ],
  onConflict: `ON CONFLICT (date, market, instrument, code) DO UPDATE SET
    ${['bid_cents', 'bid_size', 'ask_cents', 'ask_size'].map((column) => latest('book_seq', column)).join(', ')},
    book_seq = greatest(t.book_seq, excluded.book_seq),
    first_cents = CASE WHEN excluded.first_seq < coalesce(t.first_seq, 9007199254740991)
      THEN excluded.first_cents ELSE t.first_cents END,
    first_seq = least(t.first_seq, excluded.first_seq),
    high_cents = greatest(t.high_cents, excluded.high_cents),
    low_cents = least(t.low_cents, excluded.low_cents),
    ${latest('last_seq', 'last_cents')},
    last_seq = greatest(t.last_seq, excluded.last_seq),
    volume = t.volume + excluded.volume,
    trades = t.trades + excluded.trades,
    ${['settle_time', 'settle_cents', 'published_at', 'implied_volatility']
      .map((column) => latest('settle_seq', column))
      .join(', ')},
    settle_seq = greatest(t.settle_seq, excluded.settle_seq),
    ${latest('oi_seq', 'open_interest')},
    oi_seq = greatest(t.oi_seq, excluded.oi_seq)`,
};

export const DAYS: Upsert = {
  table: 'days',
  columns: [
    ['scope', 'text'],
    ['date', 'integer'],
    ['last_time', 'integer'],
    ['events', 'bigint'],
  ],
  onConflict: `ON CONFLICT (scope, date) DO UPDATE SET
    last_time = greatest(t.last_time, excluded.last_time), events = t.events + excluded.events`,
};

export const DATAMINE: Upsert = {
  table: 'datamine_daily',
  columns: [
    ['market', 'smallint'],
    ['date', 'integer'],
    ['region', 'text'],
    ['class', 'text'],
    ['block', 'smallint'],
    ['efp', 'smallint'],
    ...bigints('volume', 'qe_thirds', 'mwh_tenths', 'face_value_high', 'face_value_millis', 'count'),
  ],
  // Integer division and remainder truncate toward zero, as SQLite's / and % do: the same carry.
  onConflict: `ON CONFLICT (market, date, region, class, block, efp) DO UPDATE SET
    volume = t.volume + excluded.volume, qe_thirds = t.qe_thirds + excluded.qe_thirds,
    mwh_tenths = t.mwh_tenths + excluded.mwh_tenths,
    face_value_high = t.face_value_high + excluded.face_value_high
      + (t.face_value_millis + excluded.face_value_millis) / ${FACE_VALUE_SPLIT},
    face_value_millis = (t.face_value_millis + excluded.face_value_millis) % ${FACE_VALUE_SPLIT},
    count = t.count + excluded.count`,
};

/** The latest value per (name, date, year) by seq; the writer sends one row per key. */
export const INDEX_VALUES: Upsert = {
  table: 'index_values',
  columns: [
    ['name', 'text'],
    ['date', 'integer'],
    ['year', 'integer'],
    ['value_cents', 'bigint'],
    ['seq', 'bigint'],
  ],
  onConflict: `ON CONFLICT (name, date, year) DO UPDATE SET
    value_cents = CASE WHEN excluded.seq > t.seq THEN excluded.value_cents ELSE t.value_cents END,
    seq = greatest(t.seq, excluded.seq)`,
};

/** The store version (meta's one row): the id of the last stored event. */
export const VERSION: Upsert = {
  table: 'meta',
  columns: [
    ['key', 'text'],
    ['value', 'bigint'],
  ],
  onConflict: 'ON CONFLICT (key) DO UPDATE SET value = excluded.value',
};

/** Each date's revision: the highest event id stored for it. */
export const DAY_REVISIONS: Upsert = {
  table: 'day_revisions',
  columns: [
    ['date', 'integer'],
    ['revision', 'bigint'],
  ],
  onConflict: 'ON CONFLICT (date) DO UPDATE SET revision = greatest(t.revision, excluded.revision)',
};

/** One row's values in the Upsert's column order. */
export type Row = readonly (string | number | null)[];

/**
 * Several tables' upserts as one statement (one data-modifying WITH clause each), and the
 * NOTIFY of the commit with them: each statement is a round trip, and a batch's small upserts
 * (version, revisions, days, datamine, index values) cost more in round trips than in work
 * (docs/benchmarks.md, PostgreSQL). Parts above STAGE_ABOVE rows still go through upsertRows.
 * Each table appears at most once (a statement's CTEs cannot see each other's writes).
 */
export async function upsertTogether(
  client: pg.ClientBase,
  parts: readonly (readonly [Upsert, readonly Row[]])[],
  notify?: readonly [channel: string, payload: string],
): Promise<void> {
  const values: unknown[] = [];
  const writes: string[] = [];
  for (const [upsert, rows] of parts) {
    if (rows.length > STAGE_ABOVE) {
      await upsertRows(client, upsert, rows);
      continue;
    }
    if (rows.length === 0) continue;
    const names = upsert.columns.map(([name]) => name).join(', ');
    const arrays = upsert.columns.map(([, type], column) => {
      values.push(rows.map((row) => row[column]));
      return `$${values.length}::${type}[]`;
    });
    writes.push(
      `w${writes.length} AS (INSERT INTO ${upsert.table} AS t (${names}) SELECT * FROM unnest(${arrays.join(', ')}) ${upsert.onConflict})`,
    );
  }
  if (writes.length === 0 && !notify) return;
  let select = 'SELECT 1';
  if (notify) {
    values.push(...notify);
    select = `SELECT pg_notify($${values.length - 1}, $${values.length})`;
  }
  await client.query(`${writes.length > 0 ? `WITH ${writes.join(', ')} ` : ''}${select}`, values);
}

export async function upsertRows(client: pg.ClientBase, upsert: Upsert, rows: readonly Row[]): Promise<void> {
  if (rows.length === 0) return;
  if (rows.length > STAGE_ABOVE) {
    await runCopyScript(client, stagedUpsert(upsert, rows));
    return;
  }
  const arrays = upsert.columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
  await client.query(
    `${insertInto(upsert)} SELECT * FROM unnest(${arrays}) ${upsert.onConflict}`,
    upsert.columns.map((_, column) => rows.map((row) => row[column])),
  );
}

/**
 * An upsert of many rows as statements for runCopyScript (one round trip): the rows are COPYed
 * into a temporary table and inserted from it.
 */
export function stagedUpsert(upsert: Upsert, rows: readonly Row[]): CopyScript {
  const stage = `stage_${upsert.table}`;
  const copy = new CopyRows(stage, upsert.columns);
  for (const row of rows) copy.pushRow(row);
  const data = copy.take();
  if (!data) return [];
  const names = upsert.columns.map(([name]) => name).join(', ');
  return [
    `CREATE TEMPORARY TABLE ${stage} (LIKE ${upsert.table}) ON COMMIT DROP`,
    data,
    `${insertInto(upsert)} SELECT ${names} FROM ${stage} ${upsert.onConflict}`,
    `DROP TABLE ${stage}`,
  ];
}

/**
 * The contracts a writer met for the first time, and the table rows that follow them, as one
 * round trip: the contracts are COPYed into their table under a savepoint, not upserted. The
 * upsert (ON CONFLICT through a temporary table) cost the server 8-10 µs a row, a fresh store's
 * first day about 60 ms (docs/benchmarks.md, PostgreSQL), where a COPY costs 3-5 µs; and a
 * writer meets a contract already stored only when it is new to a store that has it (its first
 * transaction), so the COPY nearly always succeeds. When it meets a stored code, the server
 * stops at that row and drops the rest of the query; the savepoint is rolled back, and the
 * contracts go through the upsert, followed by the same rows again. The caller holds the store's
 * version lock, so no other writer can store a contract between the two.
 */
export async function copyWithContracts(
  client: pg.ClientBase,
  contracts: readonly Row[],
  rows: readonly CopyData[],
): Promise<void> {
  const copy = new CopyRows(CONTRACTS.table, CONTRACTS.columns);
  for (const row of contracts) copy.pushRow(row);
  const data = copy.take();
  if (!data) return runCopyScript(client, rows);
  try {
    await runCopyScript(client, [
      'SAVEPOINT new_contracts',
      data,
      'RELEASE SAVEPOINT new_contracts',
      ...rows,
    ]);
  } catch (error) {
    if (!isStoredContract(error)) throw error;
    await client.query('ROLLBACK TO SAVEPOINT new_contracts; RELEASE SAVEPOINT new_contracts');
    await runCopyScript(client, [...stagedUpsert(CONTRACTS, contracts), ...rows]);
  }
}

/** A COPY into contracts that met a code already stored (unique_violation on its key). */
function isStoredContract(error: unknown): boolean {
  const { code, constraint } = (error ?? {}) as { code?: unknown; constraint?: unknown };
  return code === UNIQUE_VIOLATION && constraint === 'contracts_pkey';
}

const UNIQUE_VIOLATION = '23505';

function insertInto(upsert: Upsert): string {
  return `INSERT INTO ${upsert.table} AS t (${upsert.columns.map(([name]) => name).join(', ')})`;
}
