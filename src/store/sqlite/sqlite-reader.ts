import type Database from 'better-sqlite3';
import type { Region } from '../../domain/catalogue.js';
import type { Selection } from '../../domain/codes.js';
import type { OptionType } from '../../domain/contract.js';
import type { DatamineClass } from '../../domain/datamine.js';
import type { TradeType } from '../../feed/events.js';
import type {
  ClosePublication,
  CustomMarketRow,
  DateScope,
  EndOfDayRow,
  IntradayRow,
  MarketReader,
  MarketScope,
  OpenInterestGroup,
  TradeRow,
} from '../store.js';
import {
  codeRange,
  dateToInt,
  INSTRUMENT_IDS,
  instrumentOfId,
  intToDate,
  intToTime,
  MARKET_IDS,
  marketOfId,
  TICK_KIND_IDS,
  tickKindOfId,
  timeToInt,
} from './ids.js';
import type { Synchronous } from './synchronous.js';
import { FACE_VALUE_SPLIT } from './view-batch.js';

/**
 * MarketReader over the SQLite views. Every statement is prepared once; rows become domain
 * records here (store.ts types), never above. A whole market reads a table in its clustered
 * (time) order; a code prefix is pinned to the code index with INDEXED BY, as the planner,
 * without statistics, cannot know a prefix is narrow.
 */

/** Hot reads come back as raw tuples (about half the cost of row objects), in column order. */
type TickTuple = [
  time: number,
  code: string,
  kind: number,
  bidCents: number | null,
  bidSize: number | null,
  askCents: number | null,
  askSize: number | null,
  priceCents: number | null,
  volume: number | null,
  settleCents: number | null,
  publishedAt: number | null,
  impliedVolatility: number | null,
  /** Orders the merge of ticks and daily settles only. */
  seq: number,
];

type TradeTuple = [
  time: number,
  code: string,
  instrument: number,
  tradeType: string,
  block: number,
  volume: number,
  priceCents: number,
  hours: number | null,
  faceValueMillis: number | null,
  mwhTenths: number | null,
];

type DailyTuple = [
  code: string,
  optionType: string | null,
  bidCents: number | null,
  bidSize: number | null,
  askCents: number | null,
  askSize: number | null,
  firstCents: number | null,
  highCents: number | null,
  lowCents: number | null,
  lastCents: number | null,
  volume: number,
  settleCents: number | null,
  impliedVolatility: number | null,
  openInterest: number | null,
];

type VolumeTuple = [
  region: string,
  productClass: string,
  block: bigint,
  efp: bigint,
  volume: bigint,
  qeThirds: bigint,
  mwhTenths: bigint,
  faceValueHigh: bigint,
  faceValueMillis: bigint,
  count: bigint,
];

type OiTuple = [
  region: Region,
  productClass: DatamineClass,
  openInterest: number,
  qeThirds: number,
  hours: number,
  mwTenths: number,
  settleCents: number,
];

type OpenInterestSums = { -readonly [K in keyof OpenInterestGroup]: OpenInterestGroup[K] };

/** What intraday needs of the previous close. */
type CloseTuple = [
  code: string,
  optionType: string | null,
  settleCents: number | null,
  iv: number | null,
  oi: number | null,
];

const TICK_COLUMNS = `time, code, kind, bid_cents, bid_size, ask_cents, ask_size, price_cents, volume,
  settle_cents, published_at, implied_volatility, seq`;
const TICK_FILTER = `date = @date AND market = @market AND instrument = @instrument
  AND time BETWEEN @from AND @to AND (@optionType IS NULL OR option_type = @optionType)
  AND (@kind IS NULL OR kind = @kind)`;
/** Each contract's latest settle of the date, from daily, as ticker rows (TICK_COLUMNS). */
const SETTLE_TICKS = `SELECT settle_time, code, ${TICK_KIND_IDS.settle}, NULL, NULL, NULL, NULL, NULL, NULL,
    settle_cents, published_at, implied_volatility, settle_seq
  FROM daily
  WHERE date = @date AND market = @market AND instrument = @instrument AND settle_seq IS NOT NULL
    AND settle_time BETWEEN @from AND @to AND (@optionType IS NULL OR option_type = @optionType)
    AND (@kind IS NULL OR @kind = ${TICK_KIND_IDS.settle})`;

const TRADE_COLUMNS = `time, code, instrument, trade_type, block, volume, price_cents, hours,
  face_value_millis, mwh_tenths`;
const TRADE_FILTER = `date = @date AND market = @market AND time >= @from
  AND (@instrument IS NULL OR instrument = @instrument) AND (@optionType IS NULL OR option_type = @optionType)`;

const DAILY_COLUMNS = `code, option_type, bid_cents, bid_size, ask_cents, ask_size, first_cents, high_cents,
  low_cents, last_cents, volume, settle_cents, implied_volatility, open_interest`;
const DAILY_FILTER = `date = @date AND market = @market AND instrument = @instrument AND code >= @lo AND code < @hi
  AND (@optionType IS NULL OR option_type = @optionType)`;

export function createSqliteReader(db: Database.Database): Synchronous<MarketReader> {
  const s = {
    version: db.prepare("SELECT value FROM meta WHERE key = 'version'").pluck(),
    revisions: db.prepare('SELECT date, revision FROM day_revisions WHERE revision > ?').raw(),
    contracts: db.prepare(
      `SELECT code, instrument, market, option_type FROM contracts
        WHERE market = @market AND instrument = @instrument AND code >= @lo AND code < @hi
          AND (@optionType IS NULL OR option_type = @optionType)
        ORDER BY code`,
    ),
    datesOf: db.prepare('SELECT date FROM days WHERE scope = ? ORDER BY date').pluck(),
    allDates: db.prepare('SELECT DISTINCT date FROM days ORDER BY date').pluck(),
    latestOf: db.prepare('SELECT max(date) FROM days WHERE scope = ?').pluck(),
    latestAll: db.prepare('SELECT max(date) FROM days').pluck(),
    // One probe per date of the market on daily's (date, market) key prefix; a closed day
    // answers at its first rows, only a day still trading is read through.
    settledDates: db
      .prepare(
        `SELECT date FROM days WHERE scope = @scope AND EXISTS (SELECT 1 FROM daily
          WHERE daily.date = days.date AND daily.market = @market AND daily.settle_seq IS NOT NULL)
        ORDER BY date`,
      )
      .pluck(),
    openInterestDates: db
      .prepare(
        `SELECT date FROM days WHERE scope = @scope AND EXISTS (SELECT 1 FROM daily
          WHERE daily.date = days.date AND daily.market = @market AND daily.oi_seq IS NOT NULL)
        ORDER BY date`,
      )
      .pluck(),
    // The ticker merges ticks (in clustered order) with the latest settles kept in daily.
    tickerByTime: db
      .prepare(
        `SELECT ${TICK_COLUMNS} FROM ticks WHERE ${TICK_FILTER}
        UNION ALL ${SETTLE_TICKS}
        ORDER BY time DESC, seq DESC`,
      )
      .raw(),
    tickerByCode: db
      .prepare(
        `SELECT ${TICK_COLUMNS} FROM ticks INDEXED BY ticks_by_code
        WHERE ${TICK_FILTER} AND code >= @lo AND code < @hi
        UNION ALL ${SETTLE_TICKS} AND code >= @lo AND code < @hi
        ORDER BY time DESC, seq DESC`,
      )
      .raw(),
    tradeLogByTime: db
      .prepare(`SELECT ${TRADE_COLUMNS} FROM trades WHERE ${TRADE_FILTER} ORDER BY time, seq`)
      .raw(),
    tradeLogByCode: db
      .prepare(
        `SELECT ${TRADE_COLUMNS} FROM trades INDEXED BY trades_by_code
        WHERE ${TRADE_FILTER} AND code >= @lo AND code < @hi ORDER BY time, seq`,
      )
      .raw(),
    tradesByTime: db
      .prepare(
        `SELECT ${TRADE_COLUMNS} FROM trades WHERE ${TRADE_FILTER}
        ORDER BY time DESC, seq DESC`,
      )
      .raw(),
    tradesByCode: db
      .prepare(
        `SELECT ${TRADE_COLUMNS} FROM trades INDEXED BY trades_by_code
        WHERE ${TRADE_FILTER} AND code >= @lo AND code < @hi ORDER BY time DESC, seq DESC`,
      )
      .raw(),
    lastUpdate: db.prepare('SELECT last_time FROM days WHERE scope = ? AND date = ?').pluck(),
    messages: db.prepare(
      `SELECT time, text FROM messages
        WHERE date = @date AND market = @market AND board = @board AND time >= @from
        ORDER BY time DESC, seq DESC`,
    ),
    customMarkets: db.prepare(
      `SELECT time, contract, net_cents, size, legs FROM custom_markets
        WHERE date = @date AND market = @market AND time >= @from ORDER BY time DESC, seq DESC`,
    ),
    daily: db.prepare(`SELECT ${DAILY_COLUMNS} FROM daily WHERE ${DAILY_FILTER} ORDER BY code`).raw(),
    closes: db
      .prepare(
        `SELECT code, option_type, settle_cents, implied_volatility, open_interest FROM daily WHERE ${DAILY_FILTER}`,
      )
      .raw(),
    previousDates: db
      .prepare('SELECT date FROM days WHERE scope = ? AND date < ? ORDER BY date DESC LIMIT 2')
      .pluck(),
    indexValues: db.prepare(
      'SELECT date, year, value_cents FROM index_values WHERE name = ? AND date = ? ORDER BY year',
    ),
    tradingDays: db.prepare('SELECT count(*) FROM days WHERE scope = ? AND date BETWEEN ? AND ?').pluck(),
    // Sums over up to 366 days pass 2^53 but not 2^63 (docs/feed-format.md, "Limits"): read
    // as bigints. The face value's high part counts multiples of FACE_VALUE_SPLIT (migration 4).
    datamineVolume: db
      .prepare(
        `SELECT region, class, block, efp, sum(volume), sum(qe_thirds), sum(mwh_tenths),
          sum(face_value_high), sum(face_value_millis), sum(count)
        FROM datamine_daily WHERE market = ? AND date BETWEEN ? AND ?
        GROUP BY region, class, block, efp ORDER BY region, class, block, efp`,
      )
      .raw()
      .safeIntegers(true),
    // One row per contract, summed below as bigints: a sum over contracts of open interest x
    // settle x hours can pass even SQLite's 2^63, where sum() fails. The face value takes the
    // contract's latest settlement up to the date (docs/market-rules.md, "Datamine statistics").
    datamineOpenInterest: db
      .prepare(
        `SELECT c.region, c.datamine_class, d.open_interest, c.qe_thirds, coalesce(c.hours, 0), c.mw_tenths,
          coalesce(d.settle_cents, (SELECT p.settle_cents FROM daily p
            WHERE p.market = d.market AND p.instrument = d.instrument AND p.code = d.code
              AND p.date < d.date AND p.settle_cents IS NOT NULL
            ORDER BY p.date DESC LIMIT 1), 0)
        FROM daily d JOIN contracts c ON c.code = d.code
        WHERE d.date = ? AND d.market = ? AND c.datamine_class IS NOT NULL AND d.open_interest IS NOT NULL
        ORDER BY c.region, c.datamine_class`,
      )
      .raw(),
  };

  const publishedStatements: Record<ClosePublication, Database.Statement> = {
    settlement: s.settledDates,
    open_interest: s.openInterestDates,
  };

  function dailyRows(date: number, selection: Selection): DailyTuple[] {
    return s.daily.all({ date, ...selectionParams(selection) }) as DailyTuple[];
  }

  function closes(date: number | undefined, selection: Selection): Map<string, CloseTuple> {
    if (date === undefined) return new Map();
    const rows = s.closes.all({ date, ...selectionParams(selection) }) as CloseTuple[];
    return new Map(rows.map((row) => [row[0], row]));
  }

  return {
    version: () => Number(s.version.get()),

    dayRevisions(since) {
      const rows = s.revisions.all(since ?? -1) as [number, number][];
      return new Map(rows.map(([date, revision]) => [intToDate(date), revision]));
    },

    contracts(selection) {
      const rows = s.contracts.all(selectionParams(selection)) as {
        code: string;
        instrument: number;
        market: number;
        option_type: string | null;
      }[];
      return rows.map((row) => ({
        code: row.code,
        instrument: instrumentOfId(row.instrument),
        market: marketOfId(row.market),
        ...optionTypeField(row.option_type),
      }));
    },

    dates(scope) {
      const rows = (scope ? s.datesOf.all(scopeKey(scope)) : s.allDates.all()) as number[];
      return rows.map(intToDate);
    },

    latestDate(scope) {
      const value = (scope ? s.latestOf.get(scopeKey(scope)) : s.latestAll.get()) as number | null;
      return value === null ? undefined : intToDate(value);
    },

    publishedDates(query) {
      const rows = publishedStatements[query.publication].all({
        scope: query.market,
        market: MARKET_IDS[query.market],
      }) as number[];
      return rows.map(intToDate);
    },

    ticker(query) {
      const params = {
        ...selectionParams(query.selection),
        date: dateToInt(query.date),
        from: timeToInt(query.from),
        to: timeToInt(query.to),
        kind: query.type === undefined ? null : TICK_KIND_IDS[query.type],
      };
      const statement = query.selection.prefix === undefined ? s.tickerByTime : s.tickerByCode;
      const rows = statement.all(params) as TickTuple[];
      const { date } = query;
      return rows.map((row) => ({
        date,
        time: intToTime(row[0]),
        code: row[1],
        type: tickKindOfId(row[2]),
        bidCents: row[3],
        bidSize: row[4],
        askCents: row[5],
        askSize: row[6],
        priceCents: row[7],
        volume: row[8],
        settleCents: row[9],
        publishedAt: row[10],
        impliedVolatility: row[11],
      }));
    },

    tradeLog(query) {
      const params = tradeParams(query.date, query.selection, '000000');
      const statement = params.prefixed ? s.tradeLogByCode : s.tradeLogByTime;
      return (statement.all(params.values) as TradeTuple[]).map((row) => toTradeRow(query.date, row));
    },

    trades(query) {
      const params = tradeParams(query.date, query.selection, query.from ?? '000000');
      const statement = params.prefixed ? s.tradesByCode : s.tradesByTime;
      return (statement.all(params.values) as TradeTuple[]).map((row) => toTradeRow(query.date, row));
    },

    lastUpdate(query) {
      const value = s.lastUpdate.get(query.market, dateToInt(query.date)) as number | undefined;
      return value === undefined ? undefined : intToTime(value);
    },

    messages(query) {
      const rows = s.messages.all({
        date: dateToInt(query.date),
        market: MARKET_IDS[query.market],
        board: query.board,
        from: timeToInt(query.from ?? '000000'),
      }) as { time: number; text: string }[];
      return rows.map((row) => ({ time: intToTime(row.time), text: row.text }));
    },

    customMarkets(query) {
      const rows = s.customMarkets.all({
        date: dateToInt(query.date),
        market: MARKET_IDS[query.market],
        from: timeToInt(query.from ?? '000000'),
      }) as { time: number; contract: string; net_cents: number; size: number; legs: string }[];
      return rows.map(
        (row): CustomMarketRow => ({
          time: intToTime(row.time),
          contract: row.contract,
          netCents: row.net_cents,
          size: row.size,
          legs: (JSON.parse(row.legs) as [number, number][]).map(([priceCents, ratioHundredths]) => ({
            priceCents,
            ratioHundredths,
          })),
        }),
      );
    },

    endOfDay(query) {
      const { date } = query;
      return dailyRows(dateToInt(date), query.selection).map(
        (row): EndOfDayRow => ({
          code: row[0],
          date,
          ...optionTypeField(row[1]),
          bidSize: row[3],
          bidCents: row[2],
          askSize: row[5],
          askCents: row[4],
          firstCents: row[6],
          highCents: row[7],
          lowCents: row[8],
          settleCents: row[11],
          volume: row[10],
          openInterest: row[13],
          impliedVolatility: row[12],
        }),
      );
    },

    intraday(query) {
      const date = dateToInt(query.date);
      const [previous, beforePrevious] = s.previousDates.all(query.selection.market, date) as number[];
      const today = new Map(dailyRows(date, query.selection).map((row) => [row[0], row]));
      const prior = closes(previous, query.selection);
      const earlier = closes(beforePrevious, query.selection);
      const codes = [...new Set([...today.keys(), ...prior.keys()])].sort();
      return codes.map((code): IntradayRow => {
        const now = today.get(code);
        const before = prior.get(code);
        const openInterest = before?.[4] ?? null;
        const earlierOi = earlier.get(code)?.[4] ?? null;
        const volume = now?.[10] ?? 0;
        return {
          code,
          ...optionTypeField(now?.[1] ?? before?.[1] ?? null),
          bidSize: now?.[3] ?? null,
          bidCents: now?.[2] ?? null,
          askSize: now?.[5] ?? null,
          askCents: now?.[4] ?? null,
          highCents: now?.[7] ?? null,
          lowCents: now?.[8] ?? null,
          lastCents: now?.[9] ?? null,
          // nothing traded today reads as no value, like high/low/last
          volume: volume > 0 ? volume : null,
          openInterest,
          openInterestChange: openInterest !== null && earlierOi !== null ? openInterest - earlierOi : null,
          settleCents: before?.[2] ?? null,
          impliedVolatility: before?.[3] ?? null,
        };
      });
    },

    indexValues(query) {
      const rows = s.indexValues.all(query.index, dateToInt(query.date)) as {
        date: number;
        year: number;
        value_cents: number;
      }[];
      return rows.map((row) => ({ date: intToDate(row.date), year: row.year, valueCents: row.value_cents }));
    },

    datamineVolume(query) {
      const from = dateToInt(query.from);
      const to = dateToInt(query.to);
      const tradingDays = Number(s.tradingDays.get(query.market, from, to));
      const rows = s.datamineVolume.all(MARKET_IDS[query.market], from, to) as VolumeTuple[];
      return {
        tradingDays,
        groups: rows.map(
          ([region, productClass, block, efp, volume, qeThirds, mwhTenths, high, millis, count]) => ({
            region: region as Region,
            productClass: productClass as DatamineClass,
            block: block === 1n,
            efp: efp === 1n,
            volume: Number(volume),
            qeThirds: Number(qeThirds),
            mwhTenths,
            faceValueMillis: high * BigInt(FACE_VALUE_SPLIT) + millis,
            count: Number(count),
          }),
        ),
      };
    },

    datamineOpenInterest(query) {
      const rows = s.datamineOpenInterest.all(dateToInt(query.date), MARKET_IDS[query.market]) as OiTuple[];
      const groups = new Map<string, OpenInterestSums>();
      for (const [region, productClass, openInterest, qeThirds, hours, mwTenths, settleCents] of rows) {
        const key = `${region}|${productClass}`;
        let group = groups.get(key);
        if (!group) {
          group = { region, productClass, openInterest: 0, qeThirds: 0, mwhTenths: 0n, faceValueMillis: 0n };
          groups.set(key, group);
        }
        // at most 10^6 contracts of 10^6 lots x 12 thirds: exact numbers; MWh and face value
        // as bigints from the start, exact even for a store written before the feed's limits
        group.openInterest += openInterest;
        group.qeThirds += openInterest * qeThirds;
        const mwhTenths = BigInt(openInterest) * BigInt(hours) * BigInt(mwTenths);
        group.mwhTenths += mwhTenths;
        group.faceValueMillis += mwhTenths * BigInt(settleCents);
      }
      return [...groups.values()];
    },
  };
}

function selectionParams(selection: Selection) {
  const { lo, hi } = codeRange(selection.prefix);
  return {
    market: MARKET_IDS[selection.market],
    instrument: INSTRUMENT_IDS[selection.instrument],
    optionType: selection.optionType ?? null,
    lo,
    hi,
  };
}

/** Trade queries take a selection or a whole market (both instruments). */
function tradeParams(date: string, scope: Selection | MarketScope, from: string) {
  const selection = 'instrument' in scope ? (scope as Selection) : undefined;
  const { lo, hi } = codeRange(selection?.prefix);
  return {
    prefixed: selection?.prefix !== undefined,
    values: {
      date: dateToInt(date),
      market: MARKET_IDS[scope.market],
      instrument: selection ? INSTRUMENT_IDS[selection.instrument] : null,
      optionType: selection?.optionType ?? null,
      from: timeToInt(from),
      lo,
      hi,
    },
  };
}

function toTradeRow(date: string, row: TradeTuple): TradeRow {
  return {
    date,
    time: intToTime(row[0]),
    code: row[1],
    instrument: instrumentOfId(row[2]),
    tradeType: row[3] as TradeType,
    block: row[4] === 1,
    volume: row[5],
    priceCents: row[6],
    hours: row[7],
    faceValueMillis: row[8],
    mwhTenths: row[9],
  };
}

function scopeKey(scope: DateScope): string {
  return 'market' in scope ? scope.market : scope.index;
}

function optionTypeField(value: string | null): { optionType?: OptionType } {
  return value === 'C' || value === 'P' ? { optionType: value } : {};
}
