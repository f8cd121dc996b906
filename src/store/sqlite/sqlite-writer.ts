import type Database from 'better-sqlite3';
import type { Contract } from '../../domain/contract.js';
import { multiplyExact } from '../../domain/decimal.js';
import type {
  AppendNotice,
  AppendResult,
  MarketWriter,
  ValidatedEvent,
  ValidatedTrade,
  WriteBatch,
} from '../store.js';
import { type ContractInfo, contractInfo } from './contract-info.js';
import { type Classified, EventIdentity } from './event-identity.js';
import { dateToInt, INSTRUMENT_IDS, MARKET_IDS, TICK_KIND_IDS, timeToInt } from './ids.js';
import { RowBuffer } from './row-buffer.js';
import type { Synchronous } from './synchronous.js';
import { type ContractKey, prepareViewStatements, type Settle, ViewBatch } from './view-batch.js';

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
      `INSERT OR IGNORE INTO contracts (code, market, instrument, root, month, year, strike_cents, option_type,
        hours, mw_tenths, datamine_class, region, qe_thirds) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertMessage: db.prepare(
      'INSERT INTO messages (date, seq, time, market, board, text) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertCustomMarket: db.prepare(
      `INSERT INTO custom_markets (date, seq, time, market, contract, net_cents, size, legs)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    upsertIndex: db.prepare(
      `INSERT INTO index_values (name, date, year, value_cents, seq) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (name, date, year) DO UPDATE SET
          value_cents = CASE WHEN excluded.seq > seq THEN excluded.value_cents ELSE value_cents END,
          seq = max(seq, excluded.seq)`,
    ),
  };
  const eventRows = new RowBuffer(db, 'events', ['date', 'seq', 'id', 'type', 'line']);
  const tickRows = new RowBuffer(db, 'ticks', [
    'date',
    'seq',
    'time',
    'market',
    'instrument',
    'code',
    'option_type',
    'kind',
    'bid_cents',
    'bid_size',
    'ask_cents',
    'ask_size',
    'price_cents',
    'volume',
    'settle_cents',
    'published_at',
    'implied_volatility',
  ]);
  const tradeRows = new RowBuffer(db, 'trades', [
    'date',
    'seq',
    'time',
    'market',
    'instrument',
    'code',
    'option_type',
    'trade_type',
    'block',
    'volume',
    'price_cents',
    'hours',
    'face_value_millis',
    'mwh_tenths',
    'grp',
  ]);
  const identity = new EventIdentity(db);
  const viewStatements = prepareViewStatements(db);
  const views = new ViewBatch();
  /** Codes known to be in the contracts table; a cache, dropped whenever a transaction fails. */
  let knownCodes = new Set<string>();
  /** Per code: what the store derives from the domain, and the key of its daily rows. */
  const contracts = new Map<string, { info: ContractInfo; key: ContractKey }>();

  /** What the store derives from a contract, and the key of its daily rows (cached per code). */
  function entryOf(contract: Contract): { info: ContractInfo; key: ContractKey } {
    let entry = contracts.get(contract.code);
    if (!entry) {
      const info = contractInfo(contract);
      const key: ContractKey = {
        market: MARKET_IDS[info.market],
        instrument: INSTRUMENT_IDS[info.instrument],
        code: info.code,
        optionType: info.optionType,
      };
      entry = { info, key };
      contracts.set(contract.code, entry);
    }
    return entry;
  }

  /** The contract's entry, inserting its contracts row the first time it is seen. */
  function register(contract: Contract): { info: ContractInfo; key: ContractKey } {
    const entry = entryOf(contract);
    if (!knownCodes.has(contract.code)) {
      const { info, key } = entry;
      statements.insertContract.run(
        info.code,
        key.market,
        key.instrument,
        info.root,
        info.month,
        info.year,
        info.strikeCents,
        info.optionType,
        info.hours,
        info.mwTenths,
        info.datamineClass,
        info.region,
        info.qeThirds,
      );
      knownCodes.add(contract.code);
    }
    return entry;
  }

  /**
   * One ticker row: identity and contract columns, then the type's values in the column order
   * bid, bid_size, ask, ask_size, price, volume, settle, published_at, implied_volatility.
   */
  function pushTick(
    date: number,
    seq: number,
    time: number,
    key: ContractKey,
    kind: number,
    values: readonly (number | null)[],
  ): void {
    tickRows
      .start()
      .push(date, seq, time, key.market, key.instrument, key.code, key.optionType, kind, ...values);
    tickRows.end();
  }

  /** A settle that is no longer its contract's latest of the date: the ticker reads it from ticks. */
  function pushSupersededSettle(date: number, key: ContractKey, settle: Settle): void {
    pushTick(date, settle.seq, settle.time, key, TICK_KIND_IDS.settle, [
      null,
      null,
      null,
      null,
      null,
      null,
      settle.settleCents,
      settle.publishedAt,
      settle.impliedVolatility,
    ]);
  }

  /** A trade's face value and MWh (electricity only; null elsewhere). */
  function tradeAmounts(event: ValidatedTrade, info: ContractInfo) {
    const hours = info.hours;
    return {
      hours,
      faceValueMillis:
        hours === null ? null : multiplyExact(event.volume, event.priceCents, hours, info.mwTenths),
      mwhTenths: hours === null ? null : multiplyExact(event.volume, hours, info.mwTenths),
    };
  }

  /** Writes one new event's rows in its own tables (buffered); the log's row is the caller's. */
  function writeRows(event: ValidatedEvent, date: number): void {
    const time = timeToInt(event.time);
    switch (event.type) {
      case 'book': {
        const { key } = register(event.contract);
        pushTick(date, event.seq, time, key, TICK_KIND_IDS.book, [
          event.bidCents,
          event.bidSize,
          event.askCents,
          event.askSize,
          null,
          null,
          null,
          null,
          null,
        ]);
        return;
      }
      case 'trade': {
        const { info, key } = register(event.contract);
        const { hours, faceValueMillis, mwhTenths } = tradeAmounts(event, info);
        pushTick(date, event.seq, time, key, TICK_KIND_IDS.trade, [
          null,
          null,
          null,
          null,
          event.priceCents,
          event.volume,
          null,
          null,
          null,
        ]);
        tradeRows
          .start()
          .push(
            date,
            event.seq,
            time,
            key.market,
            key.instrument,
            key.code,
            key.optionType,
            event.tradeType,
            event.block ? 1 : 0,
            event.volume,
            event.priceCents,
            hours,
            faceValueMillis,
            mwhTenths,
            event.group,
          );
        tradeRows.end();
        return;
      }
      case 'settle':
      case 'open_interest':
        // summary views only (a settle's ticker row is its daily row, see sumViews)
        register(event.contract);
        return;
      case 'message':
        statements.insertMessage.run(
          date,
          event.seq,
          time,
          MARKET_IDS[event.market],
          event.board,
          event.text,
        );
        return;
      case 'custom_market':
        statements.insertCustomMarket.run(
          date,
          event.seq,
          time,
          MARKET_IDS[event.market],
          event.contract,
          event.netCents,
          event.size,
          JSON.stringify(event.legs.map((leg) => [leg.priceCents, leg.ratioHundredths])),
        );
        return;
      case 'index':
        statements.upsertIndex.run(event.index, date, event.year, event.valueCents, event.seq);
        return;
    }
  }

  /** Adds one new event to the summary views (in memory until they are written). */
  function sumViews(event: ValidatedEvent, date: number): void {
    const time = timeToInt(event.time);
    switch (event.type) {
      case 'book': {
        const { info, key } = entryOf(event.contract);
        views.touchDay(info.market, date, time);
        views.book(date, key, event.seq, event.bidCents, event.bidSize, event.askCents, event.askSize);
        return;
      }
      case 'trade': {
        const { info, key } = entryOf(event.contract);
        views.touchDay(info.market, date, time);
        // first/high/low/last come from on-screen trades of the contract itself (docs/market-rules.md, trade
        // types)
        const onScreen = event.tradeType === 'N' && !event.block;
        views.trade(date, key, event.seq, event.priceCents, event.volume, onScreen);
        if (info.datamineClass !== null) {
          const { faceValueMillis, mwhTenths } = tradeAmounts(event, info);
          views.datamineTrade(
            {
              market: key.market,
              date,
              region: info.region,
              productClass: info.datamineClass,
              block: event.block ? 1 : 0,
              efp: event.tradeType === 'E' ? 1 : 0,
            },
            {
              volume: event.volume,
              qeThirds: multiplyExact(event.volume, info.qeThirds),
              mwhTenths: mwhTenths ?? 0,
              faceValueMillis: faceValueMillis ?? 0,
            },
          );
        }
        return;
      }
      case 'settle': {
        const { info, key } = entryOf(event.contract);
        views.touchDay(info.market, date, time);
        views.settle(date, key, {
          seq: event.seq,
          time,
          settleCents: event.settleCents,
          publishedAt: event.publishedAt,
          impliedVolatility: event.impliedVolatility,
        });
        return;
      }
      case 'open_interest': {
        const { info, key } = entryOf(event.contract);
        views.touchDay(info.market, date, time);
        views.openInterest(date, key, event.seq, event.openInterest);
        return;
      }
      case 'message':
      case 'custom_market':
        views.touchDay(event.market, date, time);
        return;
      case 'index':
        views.touchDay(event.index, date, time);
        return;
    }
  }

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
      eventRows.start().push(date, event.seq, version, event.type, event.line);
      eventRows.end();
      writeRows(event, date);
      revisions.set(event.date, version);
    }
    if (classified.fresh.length > 0) statements.setVersion.run(version);
    for (const [date, revision] of revisions) statements.setRevision.run(dateToInt(date), revision);
    return { ...classified, revisions };
  }

  function sumAll(events: readonly ValidatedEvent[], fresh: readonly number[]): void {
    for (const index of fresh) {
      const event = events[index] as ValidatedEvent;
      sumViews(event, dateToInt(event.date));
    }
  }

  /**
   * Upserts the summed views; they may add superseded settles to the ticks rows, so flushRows
   * follows. The sums stay until views.clear(), once the transaction holding the write is safe.
   */
  function writeViews(): void {
    views.write(viewStatements, pushSupersededSettle);
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
    knownCodes = new Set();
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
