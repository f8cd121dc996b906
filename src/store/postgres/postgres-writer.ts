import type pg from 'pg';
import { EventConflictError } from '../event-conflict-error.js';
import {
  CUSTOM_MARKET_COLUMNS,
  EVENT_COLUMNS,
  EventRows,
  MESSAGE_COLUMNS,
  TICK_COLUMNS,
  TRADE_COLUMNS,
} from '../rows/event-rows.js';
import { dateToInt } from '../rows/ids.js';
import { type Classified, sortReplays } from '../rows/replays.js';
import { ViewBatch, type ViewStatements } from '../rows/view-batch.js';
import type { AppendNotice, AppendResult, MarketWriter, ValidatedEvent, WriteBatch } from '../store.js';
import { checkOut } from './check-out.js';
import { type CopyData, CopyRows, runCopyScript } from './copy-rows.js';
import { Partitions } from './postgres-partitions.js';
import { StatementQueue } from './statement-queue.js';
import {
  copyWithContracts,
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
 * events go to the log and their own tables, and the summary views are summed, both by the
 * adapters' shared rows/event-rows.ts and rows/view-batch.ts (so both stores build and merge
 * by the same rules), then upserted once per touched row with multi-row statements.
 *
 * The server works while the process does (docs/benchmarks.md, PostgreSQL): statements are
 * queued on the transaction's connection (statement-queue.ts) and the process waits only for
 * answers it needs. BEGIN, the lock and the stored seqs go as one query; rows are buffered and
 * sent in parts (PART_EVENTS), each part one statement of a COPY per table whose data
 * follow at once (runCopyScript), loaded while the process builds the next part; the version,
 * revisions, days, datamine and index values go as one statement with the NOTIFY
 * (upsertTogether); a date with no event stored before the transaction has no view rows
 * either, so its daily rows are COPYed instead of upserted. Appends of a batch write nothing
 * before they are classified, so a refused one needs no savepoint; any other failure leaves
 * the batch only to roll back. The version row is locked for the whole transaction, so
 * writers of other processes queue behind it as SQLite's BEGIN IMMEDIATE does. After each
 * commit that added events, `notify` runs in this process and NOTIFY tells the others
 * (postgres-notices.ts).
 */
export function createPostgresWriter(
  pool: pg.Pool,
  notify: (notice: AppendNotice) => void,
  /** NOTIFY's channel of the store and this store's origin (postgres-notices.ts). */
  channel: string,
  origin: string,
  options: {
    readonly maxSummedRows?: number;
    /** Events in the smallest part of rows sent to an idle server, and in the largest (PART_EVENTS). */
    readonly partEvents?: readonly [smallest: number, largest: number];
    /**
     * Other connections, for the stored highest seqs of dates a transaction meets after its
     * first append (classifyAppend); without them, or with none free, those go on the
     * transaction's connection.
     */
    readonly sideReads?: pg.Pool;
  } = {},
): MarketWriter & { readonly rollbackOpenBatch: () => Promise<void> } {
  const maxSummedRows = options.maxSummedRows ?? MAX_SUMMED_ROWS;
  const [smallestPart, largestPart] = options.partEvents ?? PART_EVENTS;
  /** The side reads' pool when it has a connection for a query at once: a writer never queues behind readers. */
  const freeSideReads = (): pg.Pool | undefined => {
    const side = options.sideReads;
    if (!side || side.waitingCount > 0) return undefined;
    return side.idleCount > 0 || side.totalCount < (side.options.max ?? 10) ? side : undefined;
  };
  const eventRows = new CopyRows('events', EVENT_COLUMNS);
  const tickRows = new CopyRows('ticks', TICK_COLUMNS);
  const tradeRows = new CopyRows('trades', TRADE_COLUMNS);
  /** Daily rows of fresh dates (freshDates), columns in ViewBatch's order as DAILY's. */
  const dailyRows = new CopyRows('daily', DAILY.columns);
  const messageRows = new CopyRows('messages', MESSAGE_COLUMNS);
  const customRows = new CopyRows('custom_markets', CUSTOM_MARKET_COLUMNS);
  /** Index values by (name, date, year): the highest seq of the transaction wins, as in the upsert. */
  let indexRows = new Map<string, [string, number, number, number, number]>();
  /** Rows of the contracts first seen by the transaction, not yet sent. */
  let newContracts: Row[] = [];
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
  /** The latest date in the view sums (0: none summed since they were last written). */
  let summedUntil = 0;
  /** Small upserts of the views last written, sent together (upsertTogether) with the commit's. */
  let pending: [Upsert, Row[]][] = [];
  const rows = new EventRows(
    {
      contract: (row) => newContracts.push(row),
      tick: (row) => tickRows.pushRow(row),
      trade: (row) => tradeRows.pushRow(row),
      message: (row) => messageRows.pushRow(row),
      customMarket: (row) => customRows.pushRow(row),
      indexValue(name, date, year, valueCents, seq) {
        const key = `${name}|${date}|${year}`;
        const known = indexRows.get(key);
        if (!known || known[4] < seq) indexRows.set(key, [name, date, year, valueCents, seq]);
      },
    },
    views,
  );

  /**
   * Sorts the events into new ones and replays; `opening` (BEGIN) goes with the first query.
   * The transaction's first append takes the version lock and the version; a date met for the
   * first time costs one query for its highest stored seq, which classify needs (after the
   * first append, on another connection: `sideReads`). Nothing is
   * written here, so a refused append (EventConflictError) leaves the transaction as it was: no
   * savepoint is needed.
   */
  async function classifyAppend(
    open: Transaction,
    events: readonly ValidatedEvent[],
    opening?: string,
  ): Promise<{ fresh: number[]; skipped: number; dates: number[] }> {
    const { queue, highest } = open;
    const dates = events.map((event) => dateToInt(event.date));
    const unmet = new Set(dates.filter((date) => !highest.has(date)));
    const statements = opening === undefined ? [] : [opening];
    const locking = open.version === undefined;
    // The lock comes first: another process's writer may be about to store the same events.
    if (locking) statements.push("SELECT value FROM meta WHERE key = 'version' FOR UPDATE");
    // No parameters (the dates are integers written out), so the statements go as one query.
    const highestQuery =
      unmet.size > 0
        ? `SELECT d, (SELECT max(seq) FROM events WHERE date = d) AS max FROM unnest('{${integerList(unmet)}}'::integer[]) AS d`
        : undefined;
    let highestRows: { d: number; max: string | number | null }[] = [];
    if (highestQuery !== undefined) {
      // Once the lock is held, no other writer can store events, and this transaction has
      // written none of these dates: another connection reads what this one would, without
      // waiting behind the rows still loading on it (a stall at every new date of a long batch).
      const aside = locking ? undefined : freeSideReads();
      if (aside) highestRows = (await aside.query(highestQuery)).rows;
      else statements.push(highestQuery);
    }
    if (statements.length > 0) {
      const query = statements.join('; ');
      const sent = (await queue.ask((client) => client.query(query))) as pg.QueryResult | pg.QueryResult[];
      const results = Array.isArray(sent) ? sent : [sent];
      let next = opening === undefined ? 0 : 1;
      if (locking) {
        const locked = results[next++]?.rows[0] as { value: string | number } | undefined;
        open.version = Number(locked?.value ?? 0);
      }
      // the highest stored seqs, when they were asked here
      highestRows = results[next]?.rows ?? highestRows;
    }
    for (const row of highestRows) {
      const date = Number(row.d);
      highest.set(date, row.max === null ? -1 : Number(row.max));
      if (row.max === null) freshDates.add(date);
    }
    // A replay is looked up in the table: rows still buffered are written first.
    const { fresh, skipped } = await classify(events, dates, highest, (probeDates, probeSeqs) => {
      sendRows(open);
      return queue.ask((client) => lookUp(client, probeDates, probeSeqs));
    });
    return { fresh, skipped, dates };
  }

  /**
   * Buffers the new events' rows and sums their views, sending the rows in parts as they fill:
   * the server loads a part while this process builds the next (it is another process, on
   * another core). A date after every date summed so far means a feed in
   * date order has finished those: their views are written then (copied, on dates new to the
   * store), not all at the commit.
   */
  async function writeEvents(
    open: Transaction,
    events: readonly ValidatedEvent[],
    fresh: readonly number[],
    dates: readonly number[],
  ): Promise<void> {
    const { highest, queue } = open;
    // The months' partitions are created before any row of theirs is loaded: queued ahead of them.
    const months = partitions.claim(fresh.map((index) => dates[index] as number));
    if (months.length > 0) queue.send((client) => partitions.create(client, months));
    let sinceTurn = 0;
    for (const index of fresh) {
      const event = events[index] as ValidatedEvent;
      const date = dates[index] as number;
      if (date > summedUntil) {
        if (views.size > 0) await writeViews(open);
        summedUntil = date;
      }
      const version = (open.version ?? 0) + 1;
      open.version = version;
      eventRows.pushRow([date, event.seq, version, event.type, event.line]);
      rows.write(event, date);
      // stored settles of these dates are read before the views are written
      if (event.type === 'settle') settleDates.add(date);
      rows.sum(event, date);
      open.revisions.set(event.date, version);
      if (event.seq > (highest.get(date) ?? -1)) highest.set(date, event.seq);
      if (eventRows.size >= largestPart) {
        await sendPart(open);
        sinceTurn = 0;
      } else if (++sinceTurn === TURN_EVERY) {
        sinceTurn = 0;
        // The event loop turns: the server's answers come in and a statement waiting starts.
        await new Promise((resolve) => setImmediate(resolve));
        // A server with nothing to do gets the rows buffered so far at once.
        if (queue.idle && eventRows.size >= smallestPart) await sendPart(open);
      }
    }
    // the same before the caller goes on to read or validate the batch's next part
    if (queue.idle && eventRows.size >= smallestPart) await sendPart(open);
  }

  /**
   * Sends the buffered rows as a part. At most two parts are queued: this one waits for the
   * server to finish the part before the previous one (memory stays bounded on a slow server).
   */
  async function sendPart(open: Transaction): Promise<void> {
    sendRows(open);
    const earlier = open.previousPart;
    open.previousPart = open.queue.drained();
    await earlier;
    open.queue.throwIfFailed();
  }

  /** Rows for the contracts first seen since the last call (inserted before the rows naming them). */
  function takeContracts(): Row[] {
    const taken = newContracts;
    newContracts = [];
    return taken;
  }

  /**
   * Upserts the summed views. ViewBatch.write is synchronous and made for prepared statements:
   * it gets the stored settles read beforehand and statements that collect its rows, which are
   * then upserted in bulk; the daily rows of fresh dates are copied, with the buffered rows
   * (superseded settles land in tickRows). The statements are sent, not awaited.
   */
  async function writeViews(open: Transaction): Promise<void> {
    const { queue } = open;
    const stored = new Map<number, unknown[][]>();
    const storedSettleDates = [...settleDates].filter((date) => !freshDates.has(date));
    if (storedSettleDates.length > 0) {
      const result = await queue.ask((client) =>
        client.query({
          text: `SELECT date, code, settle_seq, settle_time, settle_cents, published_at, implied_volatility
            FROM daily WHERE date = ANY($1::integer[]) AND settle_seq IS NOT NULL`,
          values: [storedSettleDates],
          rowMode: 'array',
        }),
      );
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
    views.write(collecting, rows.supersededSettle);
    clearViews();
    const stale: Row[] = [];
    const written = new Set<number>();
    for (const row of daily) {
      const date = row[0] as number;
      written.add(date);
      if (freshDates.has(date)) dailyRows.pushRow(row);
      else stale.push(row);
    }
    // the fresh daily rows go with the buffered rows, and before any upsert of theirs
    sendRows(open);
    if (stale.length > 0) queue.send((client) => upsertRows(client, DAILY, stale));
    // From here on these dates have view rows: later writes of the transaction merge into them.
    for (const date of written) freshDates.delete(date);
    // The summary rows of an earlier write of the views go first (an upsert names a row once).
    if (pending.length > 0) {
      const earlier = pending;
      queue.send((client) => upsertTogether(client, earlier));
    }
    pending = [
      [DAYS, days],
      [DATAMINE, datamine],
    ];
  }

  function clearViews(): void {
    views.clear();
    settleDates.clear();
    summedUntil = 0;
  }

  /**
   * Sends the new contracts and the buffered rows, a COPY per table, all in one statement
   * (runCopyScript: one round trip, the data right behind it). They are taken out of the
   * buffers now and written while the process goes on.
   */
  function sendRows(open: Transaction): void {
    const contractRows = takeContracts();
    const copies: CopyData[] = [];
    for (const table of [eventRows, tickRows, tradeRows, messageRows, customRows, dailyRows]) {
      const data = table.take();
      if (data) copies.push(data);
    }
    if (contractRows.length > 0) open.queue.send((client) => copyWithContracts(client, contractRows, copies));
    else if (copies.length > 0) open.queue.send((client) => runCopyScript(client, copies));
  }

  /**
   * Everything still to write, and COMMIT: the summed views, the buffered rows, the version,
   * the days' revisions, the index values and, when the transaction added events, the NOTIFY
   * that tells other processes (delivered at commit, and only if it commits).
   */
  async function commit(open: Transaction): Promise<void> {
    await writeViews(open);
    if (indexRows.size > 0) {
      pending.push([INDEX_VALUES, [...indexRows.values()]]);
      indexRows = new Map();
    }
    if (open.added > 0) {
      pending.push([VERSION, [['version', open.version ?? 0]]]);
      pending.push([
        DAY_REVISIONS,
        [...open.revisions].map(([date, revision]) => [dateToInt(date), revision]),
      ]);
    }
    const parts = pending;
    pending = [];
    // The payload names the origin and when it was sent: replicas measure their notice delay.
    const notice = open.added > 0 ? ([channel, `${origin} ${Date.now()}`] as const) : undefined;
    open.queue.send((client) => upsertTogether(client, parts, notice));
    await open.queue.ask((client) => client.query('COMMIT'));
  }

  function forgetRows(): void {
    for (const table of [eventRows, tickRows, tradeRows, messageRows, customRows, dailyRows]) table.clear();
    indexRows = new Map();
    pending = [];
    freshDates.clear();
    newContracts = [];
    rows.forgetContracts();
    partitions.forget();
    clearViews();
  }

  /**
   * After a commit that added events: the version it committed is the last id it assigned, the
   * highest of its days' revisions (a later commit of another process does not blur it).
   */
  function announce(open: Transaction): void {
    if (open.added === 0) return;
    const version = Math.max(...open.revisions.values());
    const dates = [...open.revisions.keys()].sort();
    notify({ version, added: open.added, dates, revisions: open.revisions });
  }

  /** One append's events: classified, then their rows buffered or sent and their views summed. */
  async function appendTo(
    open: Transaction,
    events: readonly ValidatedEvent[],
    opening?: string,
  ): Promise<AppendResult> {
    const { fresh, skipped, dates } = await classifyAppend(open, events, opening);
    // The sums of earlier appends go out before they grow too large (as SQLite does).
    if (fresh.length > 0 && views.size >= maxSummedRows) await writeViews(open);
    await writeEvents(open, events, fresh, dates);
    open.added += fresh.length;
    open.skipped += skipped;
    return { added: fresh.length, skipped };
  }

  function transaction(client: pg.ClientBase): Transaction {
    return {
      queue: new StatementQueue(client),
      version: undefined,
      highest: new Map(),
      revisions: new Map(),
      added: 0,
      skipped: 0,
      previousPart: Promise.resolve(),
    };
  }

  /** After a failure: the transaction's rows and sums are dropped, and it is rolled back. */
  async function rollback(open: Transaction): Promise<void> {
    forgetRows();
    await open.queue.drained();
    await open.queue.client.query('ROLLBACK');
  }

  let openBatch: WriteBatch | undefined;
  /** Appends alone run one at a time in this process: the views' sums are shared. */
  let queue: Promise<unknown> = Promise.resolve();

  async function appendAlone(events: readonly ValidatedEvent[]): Promise<AppendResult> {
    const client = await checkOut(pool);
    const open = transaction(client);
    try {
      let result: AppendResult;
      try {
        result = await appendTo(open, events, 'BEGIN');
        await commit(open);
      } catch (error) {
        await rollback(open).catch(() => undefined);
        throw error;
      }
      announce(open);
      return result;
    } finally {
      client.release();
    }
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
      const open = transaction(client);
      let state: 'open' | 'closed' | Error = 'open';
      const usable = () => {
        if (state === 'closed') throw new Error('the write batch is closed');
        if (state !== 'open') throw new Error(`the write batch failed (${state.message}): roll it back`);
      };
      const close = () => {
        state = 'closed';
        openBatch = undefined;
        client.release();
      };
      const batch: WriteBatch = {
        async append(events) {
          usable();
          try {
            // what was sent before goes on loading: only a failure of it matters here
            open.queue.throwIfFailed();
            return await appendTo(open, events);
          } catch (error) {
            // A refused append wrote nothing and changed nothing: the batch goes on. Anything
            // else may have lost buffered rows or aborted the transaction: only rollback is left.
            if (!(error instanceof EventConflictError)) {
              state = error instanceof Error ? error : new Error(String(error));
              forgetRows();
            }
            throw error;
          }
        },
        async commit() {
          usable();
          try {
            await commit(open);
          } catch (error) {
            await batch.rollback();
            throw error;
          }
          close();
          announce(open);
          return { added: open.added, skipped: open.skipped };
        },
        async rollback() {
          if (state === 'closed') return;
          try {
            await rollback(open);
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

/** What a transaction of the writer knows beyond its buffered rows. */
interface Transaction {
  /** Its connection, used through the queue only. */
  readonly queue: StatementQueue;
  /** The last event id assigned; read under the version lock by the first append. */
  version: number | undefined;
  /** Per date met: the highest seq stored or written by this transaction, -1 for none. */
  readonly highest: Map<number, number>;
  /** Per date: the highest event id this transaction gave it. */
  readonly revisions: Map<string, number>;
  added: number;
  skipped: number;
  /** Where the queue stood when the last part was sent (sendPart). */
  previousPart: Promise<void>;
}

/**
 * Idempotency (as sqlite/event-identity.ts): an event is a replay when its (date, seq) is
 * stored, or earlier in the same transaction, with an identical line; with a different line it
 * is a conflict, and nothing of the append is written. A feed mostly arrives in seq order, so
 * only events at or below the highest seq of their date (`highest`: stored or written by the
 * transaction) are looked up, in one query for the append (`lookUp`).
 */
async function classify(
  events: readonly ValidatedEvent[],
  dates: readonly number[],
  highest: ReadonlyMap<number, number>,
  lookUp: (dates: number[], seqs: number[]) => Promise<[number, number, string][]>,
): Promise<Classified> {
  const probeDates: number[] = [];
  const probeSeqs: number[] = [];
  events.forEach((event, index) => {
    const date = dates[index] as number;
    if (event.seq <= (highest.get(date) ?? -1)) {
      probeDates.push(date);
      probeSeqs.push(event.seq);
    }
  });
  const known = new Map<number, Map<number, string>>();
  if (probeDates.length > 0) {
    for (const [date, seq, line] of await lookUp(probeDates, probeSeqs)) {
      let lines = known.get(date);
      if (!lines) {
        lines = new Map();
        known.set(date, lines);
      }
      lines.set(seq, line);
    }
  }
  return sortReplays(events, dates, (date, seq) => known.get(date)?.get(seq));
}

/** The stored lines of these (date, seq) pairs, in one query. */
async function lookUp(
  client: pg.ClientBase,
  dates: number[],
  seqs: number[],
): Promise<[number, number, string][]> {
  const result = await client.query({
    text: `SELECT e.date, e.seq, e.line FROM events e
      JOIN unnest($1::integer[], $2::bigint[]) AS k(date, seq) ON e.date = k.date AND e.seq = k.seq`,
    values: [dates, seqs],
    rowMode: 'array',
  });
  return result.rows as [number, number, string][];
}

/** Integers written out for an array literal; anything else is a programming error. */
function integerList(values: Iterable<number>): string {
  const list = [...values];
  for (const value of list) if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return list.join(',');
}

/** Events between two turns of the event loop while rows are built (writeEvents). */
const TURN_EVERY = 256;

/** Daily rows summed in memory across the appends of a batch before they are written (as SQLite). */
const MAX_SUMMED_ROWS = 50_000;
/**
 * New events whose rows make a part, at least and at most (about 400 bytes of COPY data an
 * event with its ticker and trade rows). The rows go out whenever the server has finished
 * what it was sent and at least the smallest part is buffered, so it is never left waiting
 * while there is work; while it is busy they build up to the largest part, so a server slower
 * than the process gets few statements (each COPY costs something of its own: its partitions
 * and indexes opened, its buffers flushed) and memory stays bounded.
 */
const PART_EVENTS = [1_024, 8_192] as const;
