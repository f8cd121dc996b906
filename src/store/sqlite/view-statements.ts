import type Database from 'better-sqlite3';
import { FACE_VALUE_SPLIT, type ViewStatements } from '../rows/view-batch.js';

/**
 * The statements ViewBatch.write runs on SQLite (rows/view-batch.ts sums the views; its merge
 * rules are these upserts').
 */
export function prepareViewStatements(db: Database.Database): ViewStatements {
  return {
    daily: db.prepare(UPSERT_DAILY),
    storedSettles: db.prepare(STORED_SETTLES).raw(),
    day: db.prepare(UPSERT_DAY),
    datamine: db.prepare(UPSERT_DATAMINE),
  };
}

const UPSERT_DAILY = `
  INSERT INTO daily (date, market, instrument, code, option_type, book_seq, bid_cents, bid_size, ask_cents,
    ask_size, first_seq, first_cents, high_cents, low_cents, last_seq, last_cents, volume, trades, settle_seq,
    settle_time, settle_cents, published_at, implied_volatility, oi_seq, open_interest)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (date, market, instrument, code) DO UPDATE SET
    bid_cents = CASE WHEN excluded.book_seq > coalesce(book_seq, 0) THEN excluded.bid_cents ELSE bid_cents END,
    bid_size = CASE WHEN excluded.book_seq > coalesce(book_seq, 0) THEN excluded.bid_size ELSE bid_size END,
    ask_cents = CASE WHEN excluded.book_seq > coalesce(book_seq, 0) THEN excluded.ask_cents ELSE ask_cents END,
    ask_size = CASE WHEN excluded.book_seq > coalesce(book_seq, 0) THEN excluded.ask_size ELSE ask_size END,
    book_seq = max(coalesce(book_seq, excluded.book_seq), coalesce(excluded.book_seq, book_seq)),
    first_cents = CASE WHEN excluded.first_seq < coalesce(first_seq, 9007199254740991)
      THEN excluded.first_cents ELSE first_cents END,
    first_seq = min(coalesce(first_seq, excluded.first_seq), coalesce(excluded.first_seq, first_seq)),
    high_cents = max(coalesce(high_cents, excluded.high_cents), coalesce(excluded.high_cents, high_cents)),
    low_cents = min(coalesce(low_cents, excluded.low_cents), coalesce(excluded.low_cents, low_cents)),
    last_cents = CASE WHEN excluded.last_seq > coalesce(last_seq, 0) THEN excluded.last_cents ELSE last_cents END,
    last_seq = max(coalesce(last_seq, excluded.last_seq), coalesce(excluded.last_seq, last_seq)),
    volume = volume + excluded.volume,
    trades = trades + excluded.trades,
    settle_time = CASE WHEN excluded.settle_seq > coalesce(settle_seq, 0)
      THEN excluded.settle_time ELSE settle_time END,
    settle_cents = CASE WHEN excluded.settle_seq > coalesce(settle_seq, 0)
      THEN excluded.settle_cents ELSE settle_cents END,
    published_at = CASE WHEN excluded.settle_seq > coalesce(settle_seq, 0)
      THEN excluded.published_at ELSE published_at END,
    implied_volatility = CASE WHEN excluded.settle_seq > coalesce(settle_seq, 0)
      THEN excluded.implied_volatility ELSE implied_volatility END,
    settle_seq = max(coalesce(settle_seq, excluded.settle_seq), coalesce(excluded.settle_seq, settle_seq)),
    open_interest = CASE WHEN excluded.oi_seq > coalesce(oi_seq, 0)
      THEN excluded.open_interest ELSE open_interest END,
    oi_seq = max(coalesce(oi_seq, excluded.oi_seq), coalesce(excluded.oi_seq, oi_seq))`;

const UPSERT_DAY = `
  INSERT INTO days (scope, date, last_time, events) VALUES (?, ?, ?, ?)
  ON CONFLICT (scope, date) DO UPDATE SET
    last_time = max(last_time, excluded.last_time), events = events + excluded.events`;

/**
 * Every right-hand side reads the row before the update, so the face value's carry and
 * remainder use the same old millis. Bounds (docs/feed-format.md, "Limits"): a day of a group
 * holds at most 10^10 lots and 8.8 x 10^14 tenths of a MWh, far inside SQLite's 2^63.
 */
const UPSERT_DATAMINE = `
  INSERT INTO datamine_daily (market, date, region, class, block, efp, volume, qe_thirds, mwh_tenths,
    face_value_high, face_value_millis, count)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (market, date, region, class, block, efp) DO UPDATE SET
    volume = volume + excluded.volume, qe_thirds = qe_thirds + excluded.qe_thirds,
    mwh_tenths = mwh_tenths + excluded.mwh_tenths,
    face_value_high = face_value_high + excluded.face_value_high
      + (face_value_millis + excluded.face_value_millis) / ${FACE_VALUE_SPLIT},
    face_value_millis = (face_value_millis + excluded.face_value_millis) % ${FACE_VALUE_SPLIT},
    count = count + excluded.count`;

/** The stored latest settles of a date, to compare with the summed ones before the upsert. */
const STORED_SETTLES = `
  SELECT code, settle_seq, settle_time, settle_cents, published_at, implied_volatility FROM daily
    WHERE date = ? AND settle_seq IS NOT NULL`;
