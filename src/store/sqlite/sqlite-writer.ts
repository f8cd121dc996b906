import type Database from 'better-sqlite3';
import {
  CONTRACT_COLUMNS,
  type Columns,
  CUSTOM_MARKET_COLUMNS,
  EVENT_COLUMNS,
  EventRows,
  MESSAGE_COLUMNS,
  TICK_COLUMNS,
  TRADE_COLUMNS,
} from '../rows/event-rows.js';
import { dateToInt } from '../rows/ids.js';
import type { Classified } from '../rows/replays.js';
import { ViewBatch } from '../rows/view-batch.js';
import type { AppendNotice, AppendResult, MarketWriter, ValidatedEvent, WriteBatch } from '../store.js';
import { EventIdentity } from './event-identity.js';
import { RowBuffer } from './row-buffer.js';
import type { Synchronous } from './synchronous.js';
import { prepareViewStatements } from './view-statements.js';

/**
 * Appends events and maintains every view in the same transaction. A batch is first sorted
 * into new events and replays (EventIdentity); new events then go to the log and to their own
 * table in multi-row inserts, and the summary views are summed in a ViewBatch and upserted once
 * per touched row. A contract's latest settle of a date lives in its daily row only; ticks gets
 * the settles a later one superseded (see migrations.ts).
 */
export function createSqliteWriter(
  db: Database.Database,
  notify: (notice: AppendNotice) => void,
  options: { readonly maxSummedRows?: number } = {},
): Synchronous<MarketWriter> {
  const maxSummedRows = options.maxSummedRows ?? MAX_SUMMED_ROWS;
  const statements = {
    version: db.prepare("SELECT value FROM meta WHERE key = 'version'").pluck(),
    setVersion: db.prepare("UPDATE meta SET value = ? WHERE key = 'version'"),
    setRevision: db.prepare(
      `INSERT INTO day_revisions (date, revision) VALUES (?, ?)
        ON CONFLICT (date) DO UPDATE SET revision = max(revision, excluded.revision)`,
    ),
    insertContract: db.prepare(
      `INSERT OR IGNORE INTO contracts (${CONTRACT_COLUMNS.join(', ')}) VALUES (${marks(CONTRACT_COLUMNS)})`,
    ),
    insertMessage: db.prepare(
      `INSERT INTO messages (${names(MESSAGE_COLUMNS).join(', ')}) VALUES (${marks(MESSAGE_COLUMNS)})`,
    ),
    insertCustomMarket: db.prepare(
      `INSERT INTO custom_markets (${names(CUSTOM_MARKET_COLUMNS).join(', ')}) VALUES (${marks(CUSTOM_MARKET_COLUMNS)})`,
    ),
    upsertIndex: db.prepare(
      `INSERT INTO index_values (name, date, year, value_cents, seq) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (name, date, year) DO UPDATE SET
          value_cents = CASE WHEN excluded.seq > seq THEN excluded.value_cents ELSE value_cents END,
          seq = max(seq, excluded.seq)`,
    ),
  };
  const eventRows = new RowBuffer(db, 'events', names(EVENT_COLUMNS));
  const tickRows = new RowBuffer(db, 'ticks', names(TICK_COLUMNS));
  const tradeRows = new RowBuffer(db, 'trades', names(TRADE_COLUMNS));
  const identity = new EventIdentity(db);
  const viewStatements = prepareViewStatements(db);
  const views = new ViewBatch();
  const rows = new EventRows(
    {
      contract: (row) => statements.insertContract.run(row),
      tick: (row) => tickRows.push(row),
      trade: (row) => tradeRows.push(row),
      message: (row) => statements.insertMessage.run(row),
      customMarket: (row) => statements.insertCustomMarket.run(row),
      indexValue: (name, date, year, valueCents, seq) =>
        statements.upsertIndex.run(name, date, year, valueCents, seq),
    },
    views,
  );

  /**
   * Sorts a batch into new events and replays, and writes the new events' rows: to the log and
   * their own tables (buffered until flushRows), the store version and the revisions of the
   * dates they touched, which are returned (date -> revision).
   */
  function writeEvents(events: readonly ValidatedEvent[]): Classified & { revisions: Revisions } {
    const classified = identity.classify(events);
    const revisions: Revisions = new Map();
    let version = Number(statements.version.get());
    for (const index of classified.fresh) {
      const event = events[index] as ValidatedEvent;
      const date = dateToInt(event.date);
      version += 1;
      eventRows.push([date, event.seq, version, event.type, event.line]);
      rows.write(event, date);
      revisions.set(event.date, version);
    }
    if (classified.fresh.length > 0) statements.setVersion.run(version);
    for (const [date, revision] of revisions) statements.setRevision.run(dateToInt(date), revision);
    return { ...classified, revisions };
  }

  function sumAll(events: readonly ValidatedEvent[], fresh: readonly number[]): void {
    for (const index of fresh) {
      const event = events[index] as ValidatedEvent;
      rows.sum(event, dateToInt(event.date));
    }
  }

  /**
   * Upserts the summed views; they may add superseded settles to the ticks rows, so flushRows
   * follows. The sums stay until views.clear(), once the transaction holding the write is safe.
   */
  function writeViews(): void {
    views.write(viewStatements, rows.supersededSettle);
  }

  function flushRows(): void {
    eventRows.flush();
    tickRows.flush();
    tradeRows.flush();
  }

  /** A single append: one transaction holding its rows and its views. */
  const appendAlone = db.transaction((events: readonly ValidatedEvent[]) => {
    const { fresh, skipped, revisions } = writeEvents(events);
    sumAll(events, fresh);
    writeViews();
    views.clear();
    flushRows();
    return { added: fresh.length, skipped, revisions };
  });

  /**
   * One append of an open batch, as a savepoint. The views are summed over the whole batch and
   * written at commit, or here once the sums are large, so that a batch streamed in small
   * appends upserts each daily row about once. Written here, they roll back with the savepoint
   * if it fails, and stay summed; this append's own sums are added only once it succeeded.
   */
  const appendToBatch = db.transaction((events: readonly ValidatedEvent[]) => {
    const wroteViews = views.size >= maxSummedRows;
    if (wroteViews) writeViews();
    const classified = writeEvents(events);
    flushRows();
    return { ...classified, wroteViews };
  });

  /** After a failed transaction or savepoint: drop the rows held for it in memory. */
  function forgetRows(): void {
    eventRows.clear();
    tickRows.clear();
    tradeRows.clear();
    rows.forgetContracts();
  }

  function announce(added: number, revisions: Revisions): void {
    if (added === 0) return;
    const dates = [...revisions.keys()].sort();
    notify({ version: Number(statements.version.get()), added, dates, revisions });
  }

  let openBatch: SyncWriteBatch | undefined;

  return {
    append(events) {
      if (openBatch) throw new Error('a write batch is open: append through it');
      let result: AppendResult & { revisions: Revisions };
      try {
        result = appendAlone.immediate(events);
      } catch (error) {
        forgetRows();
        views.clear();
        throw error;
      }
      announce(result.added, result.revisions);
      return { added: result.added, skipped: result.skipped };
    },

    begin() {
      if (openBatch) throw new Error('a write batch is already open');
      db.exec('BEGIN IMMEDIATE');
      const revisions: Revisions = new Map();
      let added = 0;
      let skipped = 0;
      let open = true;
      const close = () => {
        open = false;
        openBatch = undefined;
      };
      const batch: SyncWriteBatch = {
        append(events) {
          if (!open) throw new Error('the write batch is closed');
          // Inside BEGIN, better-sqlite3 runs the transaction as a savepoint: a failed append
          // leaves the batch as it was before it.
          let outcome: Classified & { revisions: Revisions; wroteViews: boolean };
          try {
            outcome = appendToBatch.immediate(events);
          } catch (error) {
            forgetRows();
            throw error;
          }
          if (outcome.wroteViews) views.clear();
          sumAll(events, outcome.fresh);
          for (const [date, revision] of outcome.revisions) revisions.set(date, revision);
          added += outcome.fresh.length;
          skipped += outcome.skipped;
          return { added: outcome.fresh.length, skipped: outcome.skipped };
        },
        commit() {
          if (!open) throw new Error('the write batch is closed');
          try {
            writeViews();
            flushRows();
            // A failed COMMIT (disk full, I/O error) leaves the transaction open: roll it back
            // here, or the next append would land inside it.
            db.exec('COMMIT');
          } catch (error) {
            batch.rollback();
            throw error;
          }
          views.clear();
          close();
          announce(added, revisions);
          return { added, skipped };
        },
        rollback() {
          if (!open) return;
          close();
          forgetRows();
          views.clear();
          if (db.inTransaction) db.exec('ROLLBACK');
        },
      };
      openBatch = batch;
      return batch;
    },
  };
}

type Revisions = Map<string, number>;
type SyncWriteBatch = Synchronous<WriteBatch>;

/**
 * Daily rows summed in memory across the appends of a batch before they are written (about
 * 15 MB). Each write splits the sums of the day in progress, and its contracts' rows then take
 * an insert and an update instead of one insert: fewer, larger writes are cheaper.
 */
const MAX_SUMMED_ROWS = 50_000;

function names(columns: Columns): string[] {
  return columns.map(([name]) => name);
}

/** One `?` per column. */
function marks(columns: readonly unknown[]): string {
  return columns.map(() => '?').join(', ');
}
