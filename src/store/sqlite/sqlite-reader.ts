import type Database from 'better-sqlite3';
import type { Region } from '../../domain/catalogue.js';
import type { Selection } from '../../domain/codes.js';
import type { DatamineClass } from '../../domain/datamine.js';
import {
  type CloseTuple,
  type DailyTuple,
  intradayRows,
  optionTypeField,
  parseLegs,
  scopeKey,
  selectionParams,
  type TickTuple,
  type TradeTuple,
  tickerParams,
  toEndOfDayRow,
  toTickRow,
  toTradeRow,
  tradeParams,
} from '../rows/answer-rows.js';
import {
  dateToInt,
  instrumentOfId,
  intToDate,
  intToTime,
  MARKET_IDS,
  marketOfId,
  TICK_KIND_IDS,
  timeToInt,
} from '../rows/ids.js';
import { FACE_VALUE_SPLIT } from '../rows/view-batch.js';
import type { ClosePublication, CustomMarketRow, MarketReader, OpenInterestGroup } from '../store.js';
import type { Synchronous } from './synchronous.js';

/**
 * MarketReader over the SQLite views. Every statement is prepared once; rows become domain
 * records here (store.ts types), never above. A whole market reads a table in its clustered
 * (time) order; a code prefix is pinned to the code index with INDEXED BY, as the planner,
 * without statistics, cannot know a prefix is narrow.
 */

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

/** Past days' closes kept per (day, selection) for the intraday snapshot; each a few hundred rows at most. */
const KEPT_CLOSES = 64;

export function createSqliteReader(db: Database.Database): Synchronous<MarketReader> {
  const s = {
    version: db.prepare("SELECT value FROM meta WHERE key = 'version'").pluck(),
    revisions: db.prepare('SELECT date, revision FROM day_revisions WHERE revision > ?').raw(),
    revisionOf: db.prepare('SELECT revision FROM day_revisions WHERE date = ?').pluck(),
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

  /**
   * A past day's closes by code (the intraday snapshot's previous settle and open interest), kept
   * under the day's revision: the market-wide snapshot is computed again after every commit of the
   * live day, and would otherwise read both previous days whole each time (half its cost). A late
   * event for that day raises its revision, so a kept copy is never served stale; the revision is
   * read before the rows, so a commit between the two reads only costs a second read.
   */
  const keptCloses = new Map<
    string,
    { readonly revision: number; readonly closes: Map<string, CloseTuple> }
  >();

  function closes(date: number | undefined, selection: Selection): ReadonlyMap<string, CloseTuple> {
    if (date === undefined) return new Map();
    const revision = Number(s.revisionOf.get(date) ?? 0);
    const params = selectionParams(selection);
    const key = `${date}|${params.market}|${params.instrument}|${params.optionType}|${params.lo}|${params.hi}`;
    const kept = keptCloses.get(key);
    if (kept !== undefined && kept.revision === revision) return kept.closes;
    const rows = s.closes.all({ date, ...params }) as CloseTuple[];
    const fresh = new Map(rows.map((row) => [row[0], row]));
    keptCloses.delete(key);
    keptCloses.set(key, { revision, closes: fresh });
    // The oldest first: a few dozen selections cover every snapshot being polled.
    if (keptCloses.size > KEPT_CLOSES) keptCloses.delete(keptCloses.keys().next().value as string);
    return fresh;
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
      const params = tickerParams(query);
      const statement = params.byCode ? s.tickerByCode : s.tickerByTime;
      const rows = statement.all(params.values) as TickTuple[];
      const { date } = query;
      return rows.map((row) => toTickRow(date, row));
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
          legs: parseLegs(row.legs),
        }),
      );
    },

    endOfDay(query) {
      const { date } = query;
      return dailyRows(dateToInt(date), query.selection).map((row) => toEndOfDayRow(date, row));
    },

    intraday(query) {
      const date = dateToInt(query.date);
      const [previous, beforePrevious] = s.previousDates.all(query.selection.market, date) as number[];
      const prior = closes(previous, query.selection);
      const earlier = closes(beforePrevious, query.selection);
      return intradayRows(dailyRows(date, query.selection), prior, earlier);
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
