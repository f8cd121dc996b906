import type pg from 'pg';
import type { Contract } from '../../domain/contract.js';
import { multiplyExact } from '../../domain/decimal.js';
import { EventConflictError } from '../event-conflict-error.js';
import { type ContractInfo, contractInfo } from '../sqlite/contract-info.js';
import { dateToInt, INSTRUMENT_IDS, MARKET_IDS, TICK_KIND_IDS, timeToInt } from '../sqlite/ids.js';
import { type ContractKey, type Settle, ViewBatch, type ViewStatements } from '../sqlite/view-batch.js';
import type {
  AppendNotice,
  AppendResult,
  MarketWriter,
  ValidatedEvent,
  ValidatedTrade,
  WriteBatch,
} from '../store.js';
import { checkOut } from './check-out.js';
import { CopyRows } from './copy-rows.js';
import { Partitions } from './postgres-partitions.js';
import {
  CONTRACTS,
  DAILY,
  DATAMINE,
  DAY_REVISIONS,
  DAYS,
  INDEX_VALUES,
  type Row,
  type Upsert,
  upsertRows,
  upsertTogether,
  VERSION,
} from './upserts.js';

/**
 * Appends events and maintains every view in the same transaction, exactly as the SQLite
 * writer does (sqlite/sqlite-writer.ts): a batch is sorted into new events and replays, new
 * events go to the log and their own tables (COPY), and the summary views are summed in the
 * same ViewBatch (sqlite/view-batch.ts, so both stores merge by the same rules) and upserted
 * once per touched row with multi-row statements. Round trips are few (docs/benchmarks.md,
 * PostgreSQL): BEGIN, the lock and the stored seqs go as one query, the small upserts of a step
 * as one statement (upsertTogether), and a date with no event stored before the transaction has
 * no view rows either, so its daily rows are COPYed instead of upserted. The version row is
 * locked for the whole transaction, so writers of other processes queue behind it as SQLite's
 * BEGIN IMMEDIATE does. After each commit that added events, `notify` runs in this process and
 * NOTIFY tells the others (postgres-notices.ts).
 */
export function createPostgresWriter(
  pool: pg.Pool,
  notify: (notice: AppendNotice) => void,
  /** NOTIFY's channel of the store and this store's origin (postgres-notices.ts). */
  channel: string,
  origin: string,
  options: { readonly maxSummedRows?: number } = {},
): MarketWriter & { readonly rollbackOpenBatch: () => Promise<void> } {
  const maxSummedRows = options.maxSummedRows ?? MAX_SUMMED_ROWS;
  const eventRows = new CopyRows('events', [
    ['date', 'integer'],
    ['seq', 'bigint'],
    ['id', 'bigint'],
    ['type', 'text'],
    ['line', 'text'],
  ]);
  const tickRows = new CopyRows('ticks', [
    ['date', 'integer'],
    ['seq', 'bigint'],
    ['time', 'integer'],
    ['market', 'smallint'],
    ['instrument', 'smallint'],
    ['code', 'text'],
    ['option_type', 'text'],
    ['kind', 'smallint'],
    ['bid_cents', 'bigint'],
    ['bid_size', 'bigint'],
    ['ask_cents', 'bigint'],
    ['ask_size', 'bigint'],
    ['price_cents', 'bigint'],
    ['volume', 'bigint'],
    ['settle_cents', 'bigint'],
    ['published_at', 'bigint'],
    ['implied_volatility', 'bigint'],
  ]);
  const tradeRows = new CopyRows('trades', [
    ['date', 'integer'],
    ['seq', 'bigint'],
    ['time', 'integer'],
    ['market', 'smallint'],
    ['instrument', 'smallint'],
    ['code', 'text'],
    ['option_type', 'text'],
    ['trade_type', 'text'],
    ['block', 'smallint'],
    ['volume', 'bigint'],
    ['price_cents', 'bigint'],
    ['hours', 'integer'],
    ['face_value_millis', 'bigint'],
    ['mwh_tenths', 'bigint'],
    ['grp', 'text'],
  ]);
  /** Daily rows of fresh dates (freshDates), columns in ViewBatch's order as DAILY's. */
  const dailyRows = new CopyRows('daily', DAILY.columns);
  const messageRows = new CopyRows('messages', [
    ['date', 'integer'],
    ['seq', 'bigint'],
    ['time', 'integer'],
    ['market', 'smallint'],
    ['board', 'text'],
    ['text', 'text'],
  ]);
  const customRows = new CopyRows('custom_markets', [
    ['date', 'integer'],
    ['seq', 'bigint'],
    ['time', 'integer'],
    ['market', 'smallint'],
    ['contract', 'text'],
    ['net_cents', 'bigint'],
    ['size', 'bigint'],
    ['legs', 'text'],
  ]);
  /** Index values by (name, date, year): the highest seq of the append wins, as in the upsert. */
  let indexRows = new Map<string, [string, number, number, number, number]>();
  /** Contracts first seen by this append, inserted before the rows that name them. */
  let newContracts: ContractInfo[] = [];
  const partitions = new Partitions();
  const views = new ViewBatch();
  /** Dates with a settle in the view sums: their stored settles are read before the write. */
  const settleDates = new Set<number>();
  /**
   * Dates of the open transaction that had no stored event when it first met them, and whose
   * view rows it has not written yet: they have no daily rows, so theirs need no upsert and no
   * stored settles. Emptied at every commit or failure (an upsert is always right).
   */
  const freshDates = new Set<number>();
  /** Small upserts of the current step, sent together (upsertTogether) when its rows are flushed. */
  let pending: [Upsert, Row[]][] = [];
  /** Codes known to be in the contracts table; a cache, dropped whenever a transaction fails. */
  let knownCodes = new Set<string>();
  const contracts = new Map<string, { info: ContractInfo; key: ContractKey }>();

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

  function register(contract: Contract): { info: ContractInfo; key: ContractKey } {
    const entry = entryOf(contract);
    if (!knownCodes.has(contract.code)) {
      newContracts.push(entry.info);
      knownCodes.add(contract.code);
    }
    return entry;
  }

  function pushTick(
    date: number,
    seq: number,
    time: number,
    key: ContractKey,
    kind: number,
    values: readonly (number | null)[],
  ): void {
    tickRows.push(date, seq, time, key.market, key.instrument, key.code, key.optionType, kind, ...values);
  }

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

  function tradeAmounts(event: ValidatedTrade, info: ContractInfo) {
    const hours = info.hours;
    return {
      hours,
      faceValueMillis:
        hours === null ? null : multiplyExact(event.volume, event.priceCents, hours, info.mwTenths),
      mwhTenths: hours === null ? null : multiplyExact(event.volume, hours, info.mwTenths),
    };
  }

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
        tradeRows.push(
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
        return;
      }
      case 'settle':
      case 'open_interest':
        register(event.contract);
        return;
      case 'message':
        messageRows.push(date, event.seq, time, MARKET_IDS[event.market], event.board, event.text);
        return;
      case 'custom_market':
        customRows.push(
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
      case 'index': {
        const key = `${event.index}|${date}|${event.year}`;
        const known = indexRows.get(key);
        if (!known || known[4] < event.seq) {
          indexRows.set(key, [event.index, date, event.year, event.valueCents, event.seq]);
        }
        return;
      }
    }
  }

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
        settleDates.add(date);
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
      default:
        event satisfies never;
    }
  }

  /**
   * Opens the step (`opening`: BEGIN, or a savepoint in a batch), sorts the events into new
   * ones and replays, and buffers the new events' rows; the version and the touched dates'
   * revisions join the step's pending upserts.
   */
  async function writeEvents(
    client: pg.ClientBase,
    opening: string,
    events: readonly ValidatedEvent[],
  ): Promise<{ fresh: number[]; skipped: number; revisions: Map<string, number>; dates: number[] }> {
    const dates = events.map((event) => dateToInt(event.date));
    // The lock comes first: another process's writer may be about to store the same events.
    // One simple query (no parameters: the dates are integers written out) for all three.
    const results = (await client.query(
      `${opening}; SELECT value FROM meta WHERE key = 'version' FOR UPDATE;
       SELECT d, (SELECT max(seq) FROM events WHERE date = d) FROM unnest('{${integerList(new Set(dates))}}'::integer[]) AS d`,
    )) as unknown as pg.QueryResult[];
    const locked = results[1]?.rows[0] as { value: string | number } | undefined;
    const highest = new Map<number, number | null>();
    for (const row of results[2]?.rows ?? [])
      highest.set(Number(row.d), row.max === null ? null : Number(row.max));
    for (const [date, seq] of highest) if (seq === null) freshDates.add(date);
    const { fresh, skipped } = await classify(client, events, dates, highest);
    const revisions = new Map<string, number>();
    if (fresh.length === 0) return { fresh, skipped, revisions, dates };
    let version = Number(locked?.value ?? 0);
    const touched = new Set<number>();
    for (const index of fresh) {
      const event = events[index] as ValidatedEvent;
      const date = dates[index] as number;
      version += 1;
      eventRows.push(date, event.seq, version, event.type, event.line);
      writeRows(event, date);
      touched.add(date);
      revisions.set(event.date, version);
    }
    await partitions.ensure(client, touched);
    await insertContracts(client);
    pending.push([VERSION, [['version', version]]]);
    pending.push([DAY_REVISIONS, [...revisions].map(([date, revision]) => [dateToInt(date), revision])]);
    return { fresh, skipped, revisions, dates };
  }

  async function insertContracts(client: pg.ClientBase): Promise<void> {
    if (newContracts.length === 0) return;
    const rows = newContracts.map((info) => [
      info.code,
      MARKET_IDS[info.market],
      INSTRUMENT_IDS[info.instrument],
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
    ]);
    newContracts = [];
    await upsertRows(client, CONTRACTS, rows);
  }

  /** `dates`: each event's date as an integer (writeEvents made them once). */
  function sumAll(
    events: readonly ValidatedEvent[],
    fresh: readonly number[],
    dates: readonly number[],
  ): void {
    for (const index of fresh) sumViews(events[index] as ValidatedEvent, dates[index] as number);
  }

  /**
   * Upserts the summed views. ViewBatch.write is synchronous and made for prepared statements:
   * it gets the stored settles read beforehand and statements that collect its rows, which are
   * then upserted in bulk. Superseded settles land in tickRows, so flushRows follows.
   */
  async function writeViews(client: pg.ClientBase): Promise<void> {
    const stored = new Map<number, unknown[][]>();
    const storedSettleDates = [...settleDates].filter((date) => !freshDates.has(date));
    if (storedSettleDates.length > 0) {
      const result = await client.query({
        text: `SELECT date, code, settle_seq, settle_time, settle_cents, published_at, implied_volatility
          FROM daily WHERE date = ANY($1::integer[]) AND settle_seq IS NOT NULL`,
        values: [storedSettleDates],
        rowMode: 'array',
      });
      for (const [date, ...settle] of result.rows as [number, ...unknown[]][]) {
        let ofDate = stored.get(date);
        if (!ofDate) {
          ofDate = [];
          stored.set(date, ofDate);
        }
        ofDate.push(settle);
      }
    }
    const daily: Row[] = [];
    const days: Row[] = [];
    const datamine: Row[] = [];
    // ViewBatch passes numbers, strings and nulls only (its rows' fields)
    const collecting: ViewStatements = {
      daily: { run: (...row: unknown[]) => daily.push(row as Row) },
      day: { run: (...row: unknown[]) => days.push(row as Row) },
      datamine: { run: (...row: unknown[]) => datamine.push(row as Row) },
      storedSettles: { all: (date: unknown) => stored.get(date as number) ?? [] },
    };
    views.write(collecting, pushSupersededSettle);
    const stale: Row[] = [];
    for (const row of daily) {
      if (freshDates.has(row[0] as number)) dailyRows.push(...row);
      else stale.push(row);
    }
    await dailyRows.flush(client);
    await upsertRows(client, DAILY, stale);
    // From here on these dates have view rows: later writes of the transaction merge into them.
    freshDates.clear();
    pending.push([DAYS, days], [DATAMINE, datamine]);
  }

  function clearViews(): void {
    views.clear();
    settleDates.clear();
  }

  /**
   * Writes the buffered rows and the step's pending upserts; with `added` > 0 also the NOTIFY
   * that tells other processes (delivered at commit, and only if it commits).
   */
  async function flushRows(client: pg.ClientBase, added = 0): Promise<void> {
    await eventRows.flush(client);
    await tickRows.flush(client);
    await tradeRows.flush(client);
    await messageRows.flush(client);
    await customRows.flush(client);
    if (indexRows.size > 0) {
      pending.push([INDEX_VALUES, [...indexRows.values()]]);
      indexRows = new Map();
    }
    const parts = pending;
    pending = [];
    // The payload names the origin and when it was sent: replicas measure their notice delay.
    await upsertTogether(client, parts, added > 0 ? [channel, `${origin} ${Date.now()}`] : undefined);
  }

  function forgetRows(): void {
    for (const rows of [eventRows, tickRows, tradeRows, messageRows, customRows, dailyRows]) rows.clear();
    indexRows = new Map();
    pending = [];
    freshDates.clear();
    newContracts = [];
    knownCodes = new Set();
    partitions.forget();
  }

  /**
   * After a commit that added events: the version it committed is the last id it assigned, the
   * highest of its days' revisions (a later commit of another process does not blur it).
   */
  function announce(added: number, revisions: Map<string, number>): void {
    if (added === 0) return;
    const version = Math.max(...revisions.values());
    const dates = [...revisions.keys()].sort();
    notify({ version, added, dates, revisions });
  }

  let openBatch: WriteBatch | undefined;
  /** Appends alone run one at a time in this process: the views' sums are shared. */
  let queue: Promise<unknown> = Promise.resolve();

  async function appendAlone(events: readonly ValidatedEvent[]): Promise<AppendResult> {
    const client = await checkOut(pool);
    let result: { fresh: number[]; skipped: number; revisions: Map<string, number>; dates: number[] };
    try {
      try {
        result = await writeEvents(client, 'BEGIN', events);
        sumAll(events, result.fresh, result.dates);
        await writeViews(client);
        clearViews();
        await flushRows(client, result.fresh.length);
        await client.query('COMMIT');
      } catch (error) {
        forgetRows();
        clearViews();
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      announce(result.fresh.length, result.revisions);
    } finally {
      client.release();
    }
    return { added: result.fresh.length, skipped: result.skipped };
  }

  return {
    append(events) {
      if (openBatch) return Promise.reject(new Error('a write batch is open: append through it'));
      const run = queue.then(() => appendAlone(events));
      queue = run.catch(() => undefined);
      return run;
    },

    async begin() {
      if (openBatch) throw new Error('a write batch is already open');
      const placeholder: WriteBatch = {
        append: () => Promise.reject(new Error('the write batch is opening')),
        commit: () => Promise.reject(new Error('the write batch is opening')),
        rollback: async () => undefined,
      };
      openBatch = placeholder;
      let client: pg.PoolClient;
      try {
        await queue;
        client = await checkOut(pool);
        await client.query('BEGIN');
      } catch (error) {
        openBatch = undefined;
        throw error;
      }
      const revisions = new Map<string, number>();
      let added = 0;
      let skipped = 0;
      let open = true;
      let savepoints = 0;
      const close = () => {
        open = false;
        openBatch = undefined;
        client.release();
      };
      const batch: WriteBatch = {
        async append(events) {
          if (!open) throw new Error('the write batch is closed');
          // Each append is a savepoint: a failed append leaves the batch as it was before it.
          const savepoint = `append_${++savepoints}`;
          let outcome: { fresh: number[]; skipped: number; revisions: Map<string, number>; dates: number[] };
          let wroteViews = false;
          try {
            outcome = await writeEvents(client, `SAVEPOINT ${savepoint}`, events);
            // The sums of earlier appends go out before they grow too large (as SQLite does).
            wroteViews = views.size >= maxSummedRows;
            if (wroteViews) await writeViews(client);
            await flushRows(client);
            await client.query(`RELEASE SAVEPOINT ${savepoint}`);
          } catch (error) {
            forgetRows();
            await client.query(`ROLLBACK TO SAVEPOINT ${savepoint}`).catch(() => undefined);
            throw error;
          }
          if (wroteViews) clearViews();
          sumAll(events, outcome.fresh, outcome.dates);
          for (const [date, revision] of outcome.revisions) revisions.set(date, revision);
          added += outcome.fresh.length;
          skipped += outcome.skipped;
          return { added: outcome.fresh.length, skipped: outcome.skipped };
        },
        async commit() {
          if (!open) throw new Error('the write batch is closed');
          try {
            await writeViews(client);
            await flushRows(client, added);
            await client.query('COMMIT');
          } catch (error) {
            await batch.rollback();
            throw error;
          }
          clearViews();
          close();
          announce(added, revisions);
          return { added, skipped };
        },
        async rollback() {
          if (!open) return;
          forgetRows();
          clearViews();
          try {
            await client.query('ROLLBACK');
          } finally {
            close();
          }
        },
      };
      openBatch = batch;
      return batch;
    },

    /** On closing the store: a batch left open is rolled back, and its connection returned. */
    async rollbackOpenBatch() {
      await openBatch?.rollback();
    },
  };
}

/**
 * Idempotency (as sqlite/event-identity.ts): an event is a replay when its (date, seq) is
 * stored, or earlier in the same batch, with an identical line; with a different line it is a
 * conflict, and nothing of the batch is written. A feed mostly arrives in seq order, so the
 * highest stored seq of each date is read first (`stored`, by writeEvents), and only events at
 * or below it are looked up (in one query for the batch).
 */
async function classify(
  client: pg.ClientBase,
  events: readonly ValidatedEvent[],
  dates: readonly number[],
  stored: ReadonlyMap<number, number | null>,
): Promise<{ fresh: number[]; skipped: number }> {
  const probeDates: number[] = [];
  const probeSeqs: number[] = [];
  events.forEach((event, index) => {
    const date = dates[index] as number;
    if (event.seq <= (stored.get(date) ?? -1)) {
      probeDates.push(date);
      probeSeqs.push(event.seq);
    }
  });
  // lines by date, then seq: numeric keys, no string built per event
  const known = new Map<number, Map<number, string>>();
  const ofDate = (date: number): Map<number, string> => {
    let lines = known.get(date);
    if (!lines) {
      lines = new Map();
      known.set(date, lines);
    }
    return lines;
  };
  if (probeDates.length > 0) {
    const result = await client.query({
      text: `SELECT e.date, e.seq, e.line FROM events e
        JOIN unnest($1::integer[], $2::bigint[]) AS k(date, seq) ON e.date = k.date AND e.seq = k.seq`,
      values: [probeDates, probeSeqs],
      rowMode: 'array',
    });
    for (const [date, seq, line] of result.rows as [number, number, string][]) ofDate(date).set(seq, line);
  }
  const fresh: number[] = [];
  let skipped = 0;
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index] as ValidatedEvent;
    const lines = ofDate(dates[index] as number);
    const line = lines.get(event.seq);
    if (line === undefined) {
      lines.set(event.seq, event.line);
      fresh.push(index);
    } else if (line === event.line) {
      skipped += 1;
    } else {
      throw new EventConflictError(index, event.date, event.seq);
    }
  }
  return { fresh, skipped };
}

/** Integers written out for an array literal; anything else is a programming error. */
function integerList(values: Iterable<number>): string {
  const list = [...values];
  for (const value of list) if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return list.join(',');
}

/** Daily rows summed in memory across the appends of a batch before they are written (as SQLite). */
const MAX_SUMMED_ROWS = 50_000;
