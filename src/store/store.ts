import type { Region } from '../domain/catalogue.js';
import type { Selection } from '../domain/codes.js';
import type { Contract, OptionType } from '../domain/contract.js';
import type { DatamineClass } from '../domain/datamine.js';
import type { MarketCode } from '../domain/markets.js';
import type { IndexName, MessageBoard, TradeType } from '../feed/events.js';

/**
 * The store as the operations see it, in our own terms. Every amount is a scaled integer
 * (domain/decimal.ts): prices in cents, implied volatility in hundredths of a percent, face
 * value in thousandths of a dollar ("millis"), MWh in tenths, quarterly equivalents in thirds.
 * Formatting to the spec's strings happens only in format/. Each adapter (sqlite/, later
 * postgres/) implements this and passes the suite of store-contract.ts unchanged.
 */

export type Instrument = 'future' | 'option';

export interface ContractRecord {
  readonly code: string;
  readonly instrument: Instrument;
  readonly market: MarketCode;
  readonly optionType?: OptionType;
}

export interface TickerRow {
  readonly date: string;
  readonly time: string;
  readonly code: string;
  readonly type: 'book' | 'trade' | 'settle';
  readonly bidCents: number | null;
  readonly bidSize: number | null;
  readonly askCents: number | null;
  readonly askSize: number | null;
  readonly priceCents: number | null;
  readonly volume: number | null;
  readonly settleCents: number | null;
  /** Unix seconds of the settlement publication. */
  readonly publishedAt: number | null;
  readonly impliedVolatility: number | null;
}

export interface TradeRow {
  readonly date: string;
  readonly time: string;
  /** Canonical code (no F suffix; format/ adds it in the trade log). */
  readonly code: string;
  readonly instrument: Instrument;
  readonly tradeType: TradeType;
  readonly block: boolean;
  readonly volume: number;
  readonly priceCents: number;
  /** Delivery hours; null outside the electricity markets. */
  readonly hours: number | null;
  /** volume x price x hours x MW, exact, in millis; null outside electricity. */
  readonly faceValueMillis: number | null;
  /** volume x hours x MW in tenths of a MWh; null outside electricity. */
  readonly mwhTenths: number | null;
}

export interface EndOfDayRow {
  readonly code: string;
  readonly date: string;
  readonly optionType?: OptionType;
  readonly bidSize: number | null;
  readonly bidCents: number | null;
  readonly askSize: number | null;
  readonly askCents: number | null;
  readonly firstCents: number | null;
  readonly highCents: number | null;
  readonly lowCents: number | null;
  /** null until the contract's settlement of the date is published (at the close). */
  readonly settleCents: number | null;
  /** Traded so far that date: a real 0 when the contract did not trade. */
  readonly volume: number;
  /**
   * Open interest at the close of the date; null until it is published for the contract
   * (after the close; a live day has none), never a 0 standing for "unknown".
   */
  readonly openInterest: number | null;
  readonly impliedVolatility: number | null;
}

/** Snapshot of one contract on the current day (docs/market-rules.md, intraday values). */
export interface IntradayRow {
  readonly code: string;
  readonly optionType?: OptionType;
  readonly bidSize: number | null;
  readonly bidCents: number | null;
  readonly askSize: number | null;
  readonly askCents: number | null;
  readonly highCents: number | null;
  readonly lowCents: number | null;
  /** Last on-screen traded price today; null when nothing traded. */
  readonly lastCents: number | null;
  /** Today's traded volume (all trade types); null when nothing traded today. */
  readonly volume: number | null;
  /** Open interest at the previous close; null when not published for the contract. */
  readonly openInterest: number | null;
  /** Previous close's open interest minus the close before it; null unless both are known. */
  readonly openInterestChange: number | null;
  /** Previous day's settlement price; null when none was published. */
  readonly settleCents: number | null;
  /** Implied volatility of the previous settlement (options). */
  readonly impliedVolatility: number | null;
}

export interface MessageRow {
  readonly time: string;
  readonly text: string;
}

export interface CustomMarketRow {
  readonly time: string;
  readonly contract: string;
  readonly netCents: number;
  readonly size: number;
  /** 1..6 legs; prices in cents, ratios in hundredths. */
  readonly legs: readonly { readonly priceCents: number; readonly ratioHundredths: number }[];
}

export interface IndexRow {
  readonly date: string;
  readonly year: number;
  readonly valueCents: number;
}

/** Sums over a date range of one (region, class, block?, efp?) group of trades. */
export interface VolumeGroup {
  readonly region: Region;
  readonly productClass: DatamineClass;
  readonly block: boolean;
  readonly efp: boolean;
  readonly volume: number;
  readonly qeThirds: number;
  /** bigint: a year of the feed's largest days passes 2^53 (docs/feed-format.md, "Limits"). */
  readonly mwhTenths: bigint;
  readonly faceValueMillis: bigint;
  readonly count: number;
}

/** Open interest at the close of one date, per (region, class). */
export interface OpenInterestGroup {
  readonly region: Region;
  readonly productClass: DatamineClass;
  readonly openInterest: number;
  readonly qeThirds: number;
  /** bigint: many contracts at the feed's limits pass 2^53 (docs/feed-format.md, "Limits"). */
  readonly mwhTenths: bigint;
  readonly faceValueMillis: bigint;
}

/** A whole market, futures and options together (the tradelog/trades `market` parameter). */
export interface MarketScope {
  readonly market: MarketCode;
}

/** What a date-bearing question is asked about: a market (all its data) or the index series. */
export type DateScope = { readonly market: MarketCode } | { readonly index: IndexName };

/**
 * What a market's close publishes, each at its own time: the settlements (at the close: the day
 * has closed) and the open interest (after the close). A day still trading has neither.
 */
export type ClosePublication = 'settlement' | 'open_interest';

export interface MarketReader {
  /** Monotonic version of the stored data (the last assigned event sequence); 0 when empty. */
  version(): Promise<number>;
  /**
   * Each trading day's revision: the highest event id (version) stored for that date, so any
   * event added to a day, late corrections included, raises it. Only days whose revision is above
   * `since` when given (what changed after a version one has seen), every day otherwise.
   */
  dayRevisions(since?: number): Promise<Map<string, number>>;
  /** Listed contracts (seen in the data) of a selection, ordered by code. */
  contracts(selection: Selection): Promise<ContractRecord[]>;
  /** Dates holding data for the scope (any market when omitted), ascending. */
  dates(scope?: DateScope): Promise<string[]>;
  /** Latest date holding data for the scope; without a scope, the exchange's current day. */
  latestDate(scope?: DateScope): Promise<string | undefined>;
  /**
   * Dates of the market on which `publication` is stored for at least one contract, ascending:
   * a subset of dates({ market }) without the day still trading (and without any day whose
   * close has not been published yet).
   */
  publishedDates(query: { market: MarketCode; publication: ClosePublication }): Promise<string[]>;
  /** Book, trade and settle messages of a date, newest first (time desc, then arrival desc). */
  ticker(query: {
    date: string;
    selection: Selection;
    type?: 'book' | 'trade' | 'settle';
    from: string;
    to: string;
  }): Promise<TickerRow[]>;
  /** Trades of a date in time order (then arrival order); a MarketScope means both instruments. */
  tradeLog(query: { date: string; selection: Selection | MarketScope }): Promise<TradeRow[]>;
  /** Trades of a date from a time on, newest first; a MarketScope means both instruments. */
  trades(query: { date: string; selection: Selection | MarketScope; from?: string }): Promise<TradeRow[]>;
  /** HHmmss of the latest event of the market on that date (any type), if any. */
  lastUpdate(query: { date: string; market: MarketCode }): Promise<string | undefined>;
  /** Messages of a date from a time on, newest first (time desc, then arrival desc). */
  messages(query: {
    date: string;
    market: MarketCode;
    board: MessageBoard;
    from?: string;
  }): Promise<MessageRow[]>;
  /** Custom-market records of a date from a time on, newest first. */
  customMarkets(query: { date: string; market: MarketCode; from?: string }): Promise<CustomMarketRow[]>;
  /** End-of-day records of a date, by code ascending. */
  endOfDay(query: { date: string; selection: Selection }): Promise<EndOfDayRow[]>;
  /**
   * Intraday snapshot of a date, by code ascending: every contract of the selection with data
   * that date or the previous date of its market; previous-day fields from that prior date.
   */
  intraday(query: { date: string; selection: Selection }): Promise<IntradayRow[]>;
  indexValues(query: { index: IndexName; date: string }): Promise<IndexRow[]>;
  /** Trade sums per group over [from, to]; tradingDays = dates of the market with data in it. */
  datamineVolume(query: { market: 'au_electricity' | 'nz_electricity'; from: string; to: string }): Promise<{
    tradingDays: number;
    groups: VolumeGroup[];
  }>;
  datamineOpenInterest(query: { market: 'au_electricity'; date: string }): Promise<OpenInterestGroup[]>;
}

/**
 * One validated feed event in store terms: amounts already scaled, the contract already
 * parsed, and `line` the event's canonical NDJSON text (feed/ndjson.ts), which is both what
 * export returns and the event's content for idempotency: (date, seq) names the event, and a
 * replay with an identical line adds nothing.
 */
export type ValidatedEvent =
  | ValidatedBook
  | ValidatedTrade
  | ValidatedSettle
  | ValidatedOpenInterest
  | ValidatedMessage
  | ValidatedCustomMarket
  | ValidatedIndex;

interface ValidatedBase {
  readonly date: string;
  readonly seq: number;
  readonly time: string;
  readonly line: string;
}

export interface ValidatedBook extends ValidatedBase {
  readonly type: 'book';
  readonly contract: Contract;
  readonly bidCents: number | null;
  readonly bidSize: number | null;
  readonly askCents: number | null;
  readonly askSize: number | null;
}

export interface ValidatedTrade extends ValidatedBase {
  readonly type: 'trade';
  readonly contract: Contract;
  readonly priceCents: number;
  readonly volume: number;
  readonly tradeType: TradeType;
  readonly block: boolean;
  readonly group: string | null;
}

export interface ValidatedSettle extends ValidatedBase {
  readonly type: 'settle';
  readonly contract: Contract;
  readonly settleCents: number;
  readonly publishedAt: number;
  readonly impliedVolatility: number | null;
}

export interface ValidatedOpenInterest extends ValidatedBase {
  readonly type: 'open_interest';
  readonly contract: Contract;
  readonly openInterest: number;
}

export interface ValidatedMessage extends ValidatedBase {
  readonly type: 'message';
  readonly market: MarketCode;
  readonly board: MessageBoard;
  readonly text: string;
}

export interface ValidatedCustomMarket extends ValidatedBase {
  readonly type: 'custom_market';
  readonly market: MarketCode;
  readonly contract: string;
  readonly netCents: number;
  readonly size: number;
  readonly legs: readonly { readonly priceCents: number; readonly ratioHundredths: number }[];
}

export interface ValidatedIndex extends ValidatedBase {
  readonly type: 'index';
  readonly index: IndexName;
  readonly year: number;
  readonly valueCents: number;
}

export interface AppendResult {
  /** Events stored by this call. */
  readonly added: number;
  /** Events already stored with an identical line (replays). */
  readonly skipped: number;
}

/**
 * Appends events and maintains every derived view in the same transaction. Views do not
 * depend on arrival order (the latest book, last price, settle and open interest are taken by
 * seq), so a feed may arrive in any order and replays change nothing. An event whose (date,
 * seq) is stored with a different line throws EventConflictError (store/event-conflict-error.ts)
 * and the transaction is rolled back.
 */
export interface MarketWriter {
  /** One batch, one transaction: all of it is stored or none. */
  append(events: readonly ValidatedEvent[]): Promise<AppendResult>;
  /**
   * Opens a batch spanning several appends (streamed input too large for one array). Nothing
   * is visible to other connections until commit; rollback discards all of it. One at a time.
   */
  begin(): Promise<WriteBatch>;
}

export interface WriteBatch {
  append(events: readonly ValidatedEvent[]): Promise<AppendResult>;
  /** Commits and returns the totals of the batch. */
  commit(): Promise<AppendResult>;
  rollback(): Promise<void>;
}

/** One stored event of a date: its seq and its canonical line. */
export interface StoredEvent {
  readonly seq: number;
  readonly line: string;
}

/** The stored event stream itself, for export, round trips and the live stream. */
export interface EventLog {
  /** Canonical lines ordered by date then seq; one date when given. Lazy: for big exports. */
  lines(query?: { date?: string }): AsyncIterable<string>;
  /**
   * At most `limit` events of one date whose seq is above `seq`, in seq order: the pages the
   * event stream (http/stream/) reads to catch up and to follow commits. (date, seq) is the
   * stream's event id, so a client resumes exactly after the last event it received.
   */
  after(query: { date: string; seq: number; limit: number }): Promise<StoredEvent[]>;
}

/** What a committed append changed: the new version and the dates it touched. */
export interface AppendNotice {
  readonly version: number;
  /** Events added; 0 when unknown (a commit seen from another process). */
  readonly added: number;
  /** The dates the commit added events to, ascending. */
  readonly dates: readonly string[];
  /** The new revision of each of those dates (MarketReader.dayRevisions). */
  readonly revisions: ReadonlyMap<string, number>;
  /**
   * Another process's commit announced by a notice (PostgreSQL NOTIFY): when the oldest notice
   * this one answers was sent, on the writer's wall clock (ms). Absent for own commits and for
   * SQLite, which finds other processes' commits in its file itself.
   */
  readonly notifiedAtMs?: number;
}

/** An opened store: one value holding every interface of one adapter. */
export interface MarketStore {
  readonly reader: MarketReader;
  readonly writer: MarketWriter;
  readonly events: EventLog;
  readonly keys: KeyStore;
  /**
   * Called after each commit that added events: commits of this process at once, and, while a
   * listener is registered, commits of other processes sharing the store as soon as the store
   * learns of them (SQLite: its WAL file changed, or the poll of its data_version every
   * STORE_POLL_MS; PostgreSQL: NOTIFY). Returns the unsubscribe function.
   */
  onAppend(listener: (notice: AppendNotice) => void): () => void;
  /**
   * A writer of another thread or process says it has committed: look for its commits now and
   * notify the listeners, rather than at the next poll (SQLite). A no-op where commits of others
   * already arrive at once (PostgreSQL's LISTEN).
   */
  lookForCommits(): void;
  /**
   * Whether commits of other processes reach onAppend's listeners now (readiness asks): see
   * ChangeNotices. Driver-free, and cheap: it reads a flag.
   */
  changeNotices(): ChangeNotices;
  /**
   * How far the data this store reads trails its source, in seconds, where it can trail it
   * (PostgreSQL: 0 on a primary, a streaming replica's replay lag on a standby); undefined
   * while unknown (no connection to ask on). Absent for stores that read their source itself.
   */
  replicationLagSeconds?(): number | undefined;
  /**
   * Claims the store's simulated exchange for the caller (the demo, `gridquote cluster`): two
   * exchanges on one store would each continue the history from a trading day of their own, and
   * one would write the rest of the day the other is replaying. Undefined when it is claimed
   * already, by any process or by this one; a claim lasts until released, the store is closed or
   * the process ends (SQLite: a lock on a file beside the store; PostgreSQL: an advisory lock of
   * the schema on a connection of its own, taken again when that connection is lost, and `lost`
   * when another process took it meanwhile).
   */
  claimExchange(): Promise<StoreClaim | undefined>;
  /**
   * Writes a copy of the whole store, as it was at one moment, to a new file at `path`, while
   * other processes go on reading and writing it (SQLite: VACUUM INTO, in one read transaction;
   * the copy is compacted and in rollback-journal mode, ready for read-only media). Absent where
   * the database has its own tools for this (PostgreSQL: pg_dump).
   */
  copyTo?(path: string): Promise<void>;
  close(): Promise<void>;
}

/** What opening a store for writing did to its schema (open-store.ts, OpenStoreOptions.onSchema). */
export interface SchemaReport {
  /** The versions applied, in order; empty when the schema was current. */
  readonly applied: readonly number[];
  readonly version: number;
}

/** A claim on a store (MarketStore.claimExchange). */
export interface StoreClaim {
  release(): Promise<void>;
  /**
   * Settles, with the reason, if the claim is gone for good while held: another process holds
   * the exchange now, and the holder must stop its own. Never, for a claim that cannot be lost.
   */
  readonly lost: Promise<string>;
}

/**
 * How a store hears of other processes' commits. `local`: no connection to lose (SQLite watches
 * its own file). `listening`: PostgreSQL's LISTEN is established. `polling`: the PostgreSQL
 * server is a streaming replica (a hot standby), which refuses LISTEN: its version is read
 * every 250 ms instead, as SQLite's file is watched. `lost`: a listener is registered but the
 * LISTEN (or polling) connection is not (yet, or again) established, so commits of others are
 * not seen until it is (answers of the current day may be stale). `idle`: no listener is
 * registered (CLI commands), nothing is listened for.
 */
export type ChangeNotices = 'local' | 'listening' | 'polling' | 'lost' | 'idle';

export interface ApiKeyRecord {
  /** Public identifier, also the key's prefix; safe to log. */
  readonly id: string;
  readonly name: string;
  readonly level: 'historical' | 'end_of_day';
  /** Hex SHA-256 of the secret part. The key itself is never stored. */
  readonly secretHash: string;
  readonly createdAt: string;
  /** yyyyMMdd, last valid day (inclusive), Sydney time. */
  readonly expiresOn: string | null;
  readonly revokedAt: string | null;
  /** Requests per second / minute; null = the level's default; 0 = unlimited. */
  readonly perSecond: number | null;
  readonly perMinute: number | null;
}

export interface KeyStore {
  insertKey(record: ApiKeyRecord): Promise<void>;
  findKey(id: string): Promise<ApiKeyRecord | undefined>;
  /**
   * The record findKey would answer now, when this process holds it in memory and is not due to
   * look again (see each adapter's recheck interval); else undefined, and findKey must be asked.
   * At once, without I/O or a promise: the serving path checks a keep-alive connection's key with it
   * (http/connection-keys.ts). A key created, changed or revoked since is a new record.
   */
  rememberedKey?(id: string): ApiKeyRecord | undefined;
  listKeys(): Promise<ApiKeyRecord[]>;
  /** Returns false when no such key exists. */
  revokeKey(id: string, at: string): Promise<boolean>;
}
