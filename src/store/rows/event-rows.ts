import type { Contract } from '../../domain/contract.js';
import { multiplyExact } from '../../domain/decimal.js';
import type { ValidatedEvent, ValidatedTrade } from '../store.js';
import { type ContractInfo, contractInfo } from './contract-info.js';
import { INSTRUMENT_IDS, MARKET_IDS, TICK_KIND_IDS, timeToInt } from './ids.js';
import type { ContractKey, Settle, ViewBatch } from './view-batch.js';

/** A row's value as both stores take it. */
export type Value = string | number | null;

/** A table's columns with their SQL types: SQLite reads the names, PostgreSQL's COPY both. */
export type Columns = readonly (readonly [name: string, type: 'smallint' | 'integer' | 'bigint' | 'text'])[];

export const EVENT_COLUMNS: Columns = [
  ['date', 'integer'],
  ['seq', 'bigint'],
  ['id', 'bigint'],
  ['type', 'text'],
  ['line', 'text'],
];

/** An event's identity and time, and its contract's key: the ticker and trade rows start alike. */
const CONTRACT_EVENT: Columns = [
  ['date', 'integer'],
  ['seq', 'bigint'],
  ['time', 'integer'],
  ['market', 'smallint'],
  ['instrument', 'smallint'],
  ['code', 'text'],
  ['option_type', 'text'],
];

/** Identity and contract columns, then the kind's values (EventRows.tick's order). */
export const TICK_COLUMNS: Columns = [
  ...CONTRACT_EVENT,
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
];

export const TRADE_COLUMNS: Columns = [
  ...CONTRACT_EVENT,
  ['trade_type', 'text'],
  ['block', 'smallint'],
  ['volume', 'bigint'],
  ['price_cents', 'bigint'],
  ['hours', 'integer'],
  ['face_value_millis', 'bigint'],
  ['mwh_tenths', 'bigint'],
  ['grp', 'text'],
];

export const MESSAGE_COLUMNS: Columns = [
  ['date', 'integer'],
  ['seq', 'bigint'],
  ['time', 'integer'],
  ['market', 'smallint'],
  ['board', 'text'],
  ['text', 'text'],
];

export const CUSTOM_MARKET_COLUMNS: Columns = [
  ['date', 'integer'],
  ['seq', 'bigint'],
  ['time', 'integer'],
  ['market', 'smallint'],
  ['contract', 'text'],
  ['net_cents', 'bigint'],
  ['size', 'bigint'],
  ['legs', 'text'],
];

/** The contracts table's columns, in contractRow's order. */
export const CONTRACT_COLUMNS = [
  'code',
  'market',
  'instrument',
  'root',
  'month',
  'year',
  'strike_cents',
  'option_type',
  'hours',
  'mw_tenths',
  'datamine_class',
  'region',
  'qe_thirds',
] as const;

/**
 * Where each store puts the rows of new events: the SQLite writer runs statements or fills
 * multi-row inserts, the PostgreSQL writer fills COPY buffers. A row's values come in its
 * table's column order above; the row is the sink's to keep.
 */
export interface RowSinks {
  /** A contract met for the first time since EventRows.forgetContracts(): its contracts row. */
  contract(row: Value[]): void;
  tick(row: Value[]): void;
  trade(row: Value[]): void;
  message(row: Value[]): void;
  customMarket(row: Value[]): void;
  indexValue(name: string, date: number, year: number, valueCents: number, seq: number): void;
}

/**
 * What both stores derive from a new event, free of any driver: its rows in the ticker, trade,
 * message, custom market and index tables (to the sinks), and its part of the summary views
 * (to the ViewBatch). A contract's latest settle of a date lives in its daily row only; ticks
 * gets the settles a later one superseded (supersededSettle, ViewBatch.write's callback).
 */
export class EventRows {
  /** Per code: what the store derives from the domain, and the key of its daily rows. */
  private readonly contracts = new Map<string, { info: ContractInfo; key: ContractKey }>();
  /** Codes whose contracts row went to the sink; dropped whenever a transaction fails. */
  private knownCodes = new Set<string>();
  /** The contract looked up last and its entry: write and sum of an event look up the same one. */
  private lastContract: Contract | undefined;
  private lastEntry: { info: ContractInfo; key: ContractKey } | undefined;

  constructor(
    private readonly sinks: RowSinks,
    private readonly views: ViewBatch,
  ) {}

  /** After a failed transaction: the contracts rows it took are gone with it. */
  forgetContracts(): void {
    this.knownCodes = new Set();
  }

  /** Writes one new event's rows in its own tables; the log's row is the caller's. */
  write(event: ValidatedEvent, date: number): void {
    const time = timeToInt(event.time);
    switch (event.type) {
      case 'book': {
        const { key } = this.register(event.contract);
        this.tick(date, event.seq, time, key, TICK_KIND_IDS.book, [
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
        const { info, key } = this.register(event.contract);
        const { hours, faceValueMillis, mwhTenths } = tradeAmounts(event, info);
        this.tick(date, event.seq, time, key, TICK_KIND_IDS.trade, [
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
        this.sinks.trade([
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
        ]);
        return;
      }
      case 'settle':
      case 'open_interest':
        // summary views only (a settle's ticker row is its daily row, see sum)
        this.register(event.contract);
        return;
      case 'message':
        this.sinks.message([date, event.seq, time, MARKET_IDS[event.market], event.board, event.text]);
        return;
      case 'custom_market':
        this.sinks.customMarket([
          date,
          event.seq,
          time,
          MARKET_IDS[event.market],
          event.contract,
          event.netCents,
          event.size,
          JSON.stringify(event.legs.map((leg) => [leg.priceCents, leg.ratioHundredths])),
        ]);
        return;
      case 'index':
        this.sinks.indexValue(event.index, date, event.year, event.valueCents, event.seq);
        return;
    }
  }

  /** Adds one new event to the summary views (in memory until they are written). */
  sum(event: ValidatedEvent, date: number): void {
    const views = this.views;
    const time = timeToInt(event.time);
    switch (event.type) {
      case 'book': {
        const { info, key } = this.entryOf(event.contract);
        views.touchDay(info.market, date, time);
        views.book(date, key, event.seq, event.bidCents, event.bidSize, event.askCents, event.askSize);
        return;
      }
      case 'trade': {
        const { info, key } = this.entryOf(event.contract);
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
        const { info, key } = this.entryOf(event.contract);
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
        const { info, key } = this.entryOf(event.contract);
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

  /** A settle that is no longer its contract's latest of the date: the ticker reads it from ticks. */
  readonly supersededSettle = (date: number, key: ContractKey, settle: Settle): void => {
    this.tick(date, settle.seq, settle.time, key, TICK_KIND_IDS.settle, [
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
  };

  /** What the store derives from a contract, and the key of its daily rows (cached per code). */
  private entryOf(contract: Contract): { info: ContractInfo; key: ContractKey } {
    if (contract === this.lastContract && this.lastEntry) return this.lastEntry;
    let entry = this.contracts.get(contract.code);
    if (!entry) {
      const info = contractInfo(contract);
      const key: ContractKey = {
        market: MARKET_IDS[info.market],
        instrument: INSTRUMENT_IDS[info.instrument],
        code: info.code,
        optionType: info.optionType,
      };
      entry = { info, key };
      this.contracts.set(contract.code, entry);
    }
    this.lastContract = contract;
    this.lastEntry = entry;
    return entry;
  }

  /** The contract's entry, its contracts row to the sink the first time it is seen. */
  private register(contract: Contract): { info: ContractInfo; key: ContractKey } {
    const entry = this.entryOf(contract);
    if (!this.knownCodes.has(contract.code)) {
      this.sinks.contract(contractRow(entry.info));
      this.knownCodes.add(contract.code);
    }
    return entry;
  }

  /**
   * One ticker row: identity and contract columns, then the type's values in the column order
   * bid, bid_size, ask, ask_size, price, volume, settle, published_at, implied_volatility.
   */
  private tick(
    date: number,
    seq: number,
    time: number,
    key: ContractKey,
    kind: number,
    values: readonly (number | null)[],
  ): void {
    this.sinks.tick([date, seq, time, key.market, key.instrument, key.code, key.optionType, kind, ...values]);
  }
}

/** A contract's row in the contracts table (CONTRACT_COLUMNS). */
function contractRow(info: ContractInfo): Value[] {
  return [
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
  ];
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
