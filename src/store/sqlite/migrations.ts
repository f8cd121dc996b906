import type Database from 'better-sqlite3';

/**
 * Schema migrations, applied in order; PRAGMA user_version holds how many have run. Append new
 * migrations at the end and never edit one that has shipped: a database file outlives the code.
 *
 * Units (store.ts): money in cents, face value in millis, MWh in tenths, volatility in
 * hundredths of a percent, quarterly equivalents in thirds. Dates are integers yyyyMMdd, times
 * integers HHmmss, markets and instruments small integers (ids.ts).
 */
export const MIGRATIONS: readonly string[] = [
  `
  -- The store version: the id of the last stored event (0 when empty).
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO meta (key, value) VALUES ('version', 0);

  -- The event log: the source of truth, clustered by its identity (date, seq), which is also
  -- the export order. id is the global arrival sequence; line is the canonical NDJSON text.
  CREATE TABLE events (
    date INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    id INTEGER NOT NULL,
    type TEXT NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (date, seq)
  ) WITHOUT ROWID;

  -- Every contract seen in the data, with what the views need from the domain.
  CREATE TABLE contracts (
    code TEXT PRIMARY KEY,
    market INTEGER NOT NULL,
    instrument INTEGER NOT NULL,
    root TEXT NOT NULL,
    month INTEGER NOT NULL,
    year INTEGER NOT NULL,
    strike_cents INTEGER,
    option_type TEXT,
    hours INTEGER,
    mw_tenths INTEGER NOT NULL,
    datamine_class TEXT,
    region TEXT NOT NULL,
    qe_thirds INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX contracts_by_selection ON contracts (market, instrument, code);

  -- Ticker: book, trade and settle messages (kind 1, 2, 3), clustered in the order a market's
  -- ticker reads them; a code prefix reads the second index.
  CREATE TABLE ticks (
    date INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    time INTEGER NOT NULL,
    market INTEGER NOT NULL,
    instrument INTEGER NOT NULL,
    code TEXT NOT NULL,
    option_type TEXT,
    kind INTEGER NOT NULL,
    bid_cents INTEGER,
    bid_size INTEGER,
    ask_cents INTEGER,
    ask_size INTEGER,
    price_cents INTEGER,
    volume INTEGER,
    settle_cents INTEGER,
    published_at INTEGER,
    implied_volatility INTEGER,
    PRIMARY KEY (date, market, instrument, time, seq)
  ) WITHOUT ROWID;
  CREATE INDEX ticks_by_code ON ticks (date, market, instrument, code);

  -- Trades with what the trade log and datamine add: hours, face value, MWh; clustered in time
  -- order per market (the trade log's order).
  CREATE TABLE trades (
    date INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    time INTEGER NOT NULL,
    market INTEGER NOT NULL,
    instrument INTEGER NOT NULL,
    code TEXT NOT NULL,
    option_type TEXT,
    trade_type TEXT NOT NULL,
    block INTEGER NOT NULL,
    volume INTEGER NOT NULL,
    price_cents INTEGER NOT NULL,
    hours INTEGER,
    face_value_millis INTEGER,
    mwh_tenths INTEGER,
    grp TEXT,
    PRIMARY KEY (date, market, time, seq)
  ) WITHOUT ROWID;
  CREATE INDEX trades_by_code ON trades (date, market, instrument, code);

  -- One row per (date, contract) with any book, trade, settle or open interest event. The
  -- *_seq columns make the view independent of arrival order: the latest book, last price,
  -- settle and open interest are those of the highest seq, the first price of the lowest.
  CREATE TABLE daily (
    date INTEGER NOT NULL,
    market INTEGER NOT NULL,
    instrument INTEGER NOT NULL,
    code TEXT NOT NULL,
    option_type TEXT,
    book_seq INTEGER,
    bid_cents INTEGER,
    bid_size INTEGER,
    ask_cents INTEGER,
    ask_size INTEGER,
    first_seq INTEGER,
    first_cents INTEGER,
    high_cents INTEGER,
    low_cents INTEGER,
    last_seq INTEGER,
    last_cents INTEGER,
    volume INTEGER NOT NULL,
    trades INTEGER NOT NULL,
    settle_seq INTEGER,
    settle_cents INTEGER,
    implied_volatility INTEGER,
    oi_seq INTEGER,
    open_interest INTEGER,
    PRIMARY KEY (date, market, instrument, code)
  ) WITHOUT ROWID;

  CREATE TABLE messages (
    date INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    time INTEGER NOT NULL,
    market INTEGER NOT NULL,
    board TEXT NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (date, market, board, time, seq)
  ) WITHOUT ROWID;

  -- legs: JSON [[price_cents, ratio_hundredths], ...], 1 to 6 legs.
  CREATE TABLE custom_markets (
    date INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    time INTEGER NOT NULL,
    market INTEGER NOT NULL,
    contract TEXT NOT NULL,
    net_cents INTEGER NOT NULL,
    size INTEGER NOT NULL,
    legs TEXT NOT NULL,
    PRIMARY KEY (date, market, time, seq)
  ) WITHOUT ROWID;

  CREATE TABLE index_values (
    name TEXT NOT NULL,
    date INTEGER NOT NULL,
    year INTEGER NOT NULL,
    value_cents INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    PRIMARY KEY (name, date, year)
  ) WITHOUT ROWID;

  -- Dates holding data per scope (a market code, or epi / npi for the index series).
  CREATE TABLE days (
    scope TEXT NOT NULL,
    date INTEGER NOT NULL,
    last_time INTEGER NOT NULL,
    events INTEGER NOT NULL,
    PRIMARY KEY (scope, date)
  ) WITHOUT ROWID;

  -- Trade sums per (date, market, region, datamine class, block, efp).
  CREATE TABLE datamine_daily (
    market INTEGER NOT NULL,
    date INTEGER NOT NULL,
    region TEXT NOT NULL,
    class TEXT NOT NULL,
    block INTEGER NOT NULL,
    efp INTEGER NOT NULL,
    volume INTEGER NOT NULL,
    qe_thirds INTEGER NOT NULL,
    mwh_tenths INTEGER NOT NULL,
    face_value_millis INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (market, date, region, class, block, efp)
  ) WITHOUT ROWID;

  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    level TEXT NOT NULL,
    secret_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_on TEXT,
    revoked_at TEXT,
    per_second INTEGER,
    per_minute INTEGER
  );
  `,
  `
  -- Settle messages are about a third of the ticker's rows, and a contract's latest settle of a
  -- date is in daily already (settle_seq, settle_cents, implied_volatility): with its time and
  -- publication there too, the ticker reads it from daily, and ticks keeps only the settles
  -- that a later one (higher seq) of the same contract and date superseded.
  ALTER TABLE daily ADD COLUMN settle_time INTEGER;
  ALTER TABLE daily ADD COLUMN published_at INTEGER;
  UPDATE daily SET settle_time = t.time, published_at = t.published_at
    FROM ticks AS t
    WHERE t.date = daily.date AND t.market = daily.market AND t.instrument = daily.instrument
      AND t.code = daily.code AND t.seq = daily.settle_seq AND t.kind = 3;
  DELETE FROM ticks
    WHERE kind = 3 AND seq = (
      SELECT d.settle_seq FROM daily AS d
        WHERE d.date = ticks.date AND d.market = ticks.market AND d.instrument = ticks.instrument
          AND d.code = ticks.code
    );
  `,
  `
  -- Each date's revision (store.ts dayRevisions): the highest event id stored for it, kept by
  -- the writer, so that a late event for a past day changes that day's validators and another
  -- process can ask which days changed since a version it saw without scanning the events.
  CREATE TABLE day_revisions (
    date INTEGER PRIMARY KEY,
    revision INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT INTO day_revisions (date, revision) SELECT date, max(id) FROM events GROUP BY date;
  `,
  `
  -- A day's face value of a datamine group can pass 2^63 millis at the feed's limits
  -- (docs/feed-format.md, "Limits"), where SQLite's integer addition silently turns to floating
  -- point: face_value_millis keeps the remainder below 10^14 and face_value_high the multiples
  -- of 10^14 (one trade, below 2^53, plus a remainder stays exact in JavaScript too), exact
  -- with the same sign convention as SQLite's / and %.
  ALTER TABLE datamine_daily ADD COLUMN face_value_high INTEGER NOT NULL DEFAULT 0;
  UPDATE datamine_daily SET face_value_high = face_value_millis / 100000000000000,
    face_value_millis = face_value_millis % 100000000000000;
  `,
];

/** Brings the schema up to date, each migration in its own transaction; the versions it applied. */
export function migrate(db: Database.Database): number[] {
  const current = Number(db.pragma('user_version', { simple: true }));
  if (current > MIGRATIONS.length) {
    throw new Error(
      `database schema version ${current} is newer than this program knows (${MIGRATIONS.length})`,
    );
  }
  const applied: number[] = [];
  for (let index = current; index < MIGRATIONS.length; index += 1) {
    const sql = MIGRATIONS[index] ?? '';
    // The version is read again under the write lock: another process opening the same new file
    // at the same moment may have applied this migration since (it would fail as "table meta
    // already exists"), so two processes migrating at once migrate once.
    const ran = db
      .transaction(() => {
        if (Number(db.pragma('user_version', { simple: true })) > index) return false;
        db.exec(sql);
        db.pragma(`user_version = ${index + 1}`);
        return true;
      })
      .immediate();
    if (ran) applied.push(index + 1);
  }
  return applied;
}
