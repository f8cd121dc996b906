import type pg from 'pg';

/**
 * The summary views' upserts (sqlite/view-batch.ts has the same merge rules): many rows per
 * statement, passed as one array per column and expanded by unnest. The rows of one statement
 * have distinct keys (ViewBatch sums one row per key), as ON CONFLICT requires.
 */

const DAILY_TYPES = [
  'integer',
  'smallint',
  'smallint',
  'text',
  'text',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'integer',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
  'bigint',
];

/** ViewBatch's daily rows, columns in its order (ViewBatch.write). */
export const UPSERT_DAILY = `
  INSERT INTO daily AS d (date, market, instrument, code, option_type, book_seq, bid_cents, bid_size, ask_cents,
    ask_size, first_seq, first_cents, high_cents, low_cents, last_seq, last_cents, volume, trades, settle_seq,
    settle_time, settle_cents, published_at, implied_volatility, oi_seq, open_interest)
  SELECT * FROM unnest(${DAILY_TYPES.map((type, index) => `$${index + 1}::${type}[]`).join(', ')})
  ON CONFLICT (date, market, instrument, code) DO UPDATE SET
    bid_cents = CASE WHEN excluded.book_seq > coalesce(d.book_seq, 0) THEN excluded.bid_cents ELSE d.bid_cents END,
    bid_size = CASE WHEN excluded.book_seq > coalesce(d.book_seq, 0) THEN excluded.bid_size ELSE d.bid_size END,
    ask_cents = CASE WHEN excluded.book_seq > coalesce(d.book_seq, 0) THEN excluded.ask_cents ELSE d.ask_cents END,
    ask_size = CASE WHEN excluded.book_seq > coalesce(d.book_seq, 0) THEN excluded.ask_size ELSE d.ask_size END,
    book_seq = greatest(d.book_seq, excluded.book_seq),
    first_cents = CASE WHEN excluded.first_seq < coalesce(d.first_seq, 9007199254740991)
      THEN excluded.first_cents ELSE d.first_cents END,
    first_seq = least(d.first_seq, excluded.first_seq),
    high_cents = greatest(d.high_cents, excluded.high_cents),
    low_cents = least(d.low_cents, excluded.low_cents),
    last_cents = CASE WHEN excluded.last_seq > coalesce(d.last_seq, 0) THEN excluded.last_cents ELSE d.last_cents END,
    last_seq = greatest(d.last_seq, excluded.last_seq),
    volume = d.volume + excluded.volume,
    trades = d.trades + excluded.trades,
    settle_time = CASE WHEN excluded.settle_seq > coalesce(d.settle_seq, 0)
      THEN excluded.settle_time ELSE d.settle_time END,
    settle_cents = CASE WHEN excluded.settle_seq > coalesce(d.settle_seq, 0)
      THEN excluded.settle_cents ELSE d.settle_cents END,
    published_at = CASE WHEN excluded.settle_seq > coalesce(d.settle_seq, 0)
      THEN excluded.published_at ELSE d.published_at END,
    implied_volatility = CASE WHEN excluded.settle_seq > coalesce(d.settle_seq, 0)
      THEN excluded.implied_volatility ELSE d.implied_volatility END,
    settle_seq = greatest(d.settle_seq, excluded.settle_seq),
    open_interest = CASE WHEN excluded.oi_seq > coalesce(d.oi_seq, 0)
      THEN excluded.open_interest ELSE d.open_interest END,
    oi_seq = greatest(d.oi_seq, excluded.oi_seq)`;

export const UPSERT_DAY = `
  INSERT INTO days AS d (scope, date, last_time, events)
  SELECT * FROM unnest($1::text[], $2::integer[], $3::integer[], $4::bigint[])
  ON CONFLICT (scope, date) DO UPDATE SET
    last_time = greatest(d.last_time, excluded.last_time), events = d.events + excluded.events`;

export const UPSERT_DATAMINE = `
  INSERT INTO datamine_daily AS d (market, date, region, class, block, efp, volume, qe_thirds, mwh_tenths,
    face_value_millis, count)
  SELECT * FROM unnest($1::smallint[], $2::integer[], $3::text[], $4::text[], $5::smallint[], $6::smallint[],
    $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[])
  ON CONFLICT (market, date, region, class, block, efp) DO UPDATE SET
    volume = d.volume + excluded.volume, qe_thirds = d.qe_thirds + excluded.qe_thirds,
    mwh_tenths = d.mwh_tenths + excluded.mwh_tenths,
    face_value_millis = d.face_value_millis + excluded.face_value_millis, count = d.count + excluded.count`;

/** Rows per statement: large enough to amortise the round trip, small enough to bound memory. */
const ROWS_PER_STATEMENT = 10_000;

/** Runs an unnest statement over rows (values in column order), in chunks. */
export async function upsertRows(client: pg.ClientBase, sql: string, rows: readonly unknown[][]) {
  for (let start = 0; start < rows.length; start += ROWS_PER_STATEMENT) {
    const part = rows.slice(start, start + ROWS_PER_STATEMENT);
    const width = part[0]?.length ?? 0;
    const columns = Array.from({ length: width }, (_, column) => part.map((row) => row[column]));
    await client.query(sql, columns);
  }
}
