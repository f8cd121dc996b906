import type Database from 'better-sqlite3';
import type { Region } from '../../domain/catalogue.js';
import type { Selection } from '../../domain/codes.js';
import type { OptionType } from '../../domain/contract.js';
import type { DatamineClass } from '../../domain/datamine.js';
import type { TradeType } from '../../feed/events.js';
import type {
  CustomMarketRow,
  DateScope,
  EndOfDayRow,
  IntradayRow,
  MarketReader,
  MarketScope,
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

/**
 * MarketReader over the SQLite views. Every statement is prepared once; rows become domain
 * records here (store.ts types), never above. A whole market reads a table in its clustered
 * (time) order; a code prefix is pinned to the code index with INDEXED BY, as the planner,
 * without statistics, cannot know a prefix is narrow.
 */

interface TickDbRow {
  date: number;
  time: number;
  code: string;
  kind: number;
  bid_cents: number | null;
  bid_size: number | null;
  ask_cents: number | null;
  ask_size: number | null;
  price_cents: number | null;
  volume: number | null;
  settle_cents: number | null;
  published_at: number | null;
  implied_volatility: number | null;
}

interface TradeDbRow {
  date: number;
  time: number;
  code: string;
  instrument: number;
  trade_type: string;
  block: number;
  volume: number;
  price_cents: number;
  hours: number | null;
  face_value_millis: number | null;
  mwh_tenths: number | null;
}

interface DailyDbRow {
  date: number;
  code: string;
  option_type: string | null;
  bid_cents: number | null;
  bid_size: number | null;
  ask_cents: number | null;
  ask_size: number | null;
  first_cents: number | null;
  high_cents: number | null;
  low_cents: number | null;
  last_cents: number | null;
  volume: number;
  settle_cents: number | null;
  implied_volatility: number | null;
  open_interest: number | null;
}

const TICK_COLUMNS = `date, time, code, kind, bid_cents, bid_size, ask_cents, ask_size, price_cents, volume,
  settle_cents, published_at, implied_volatility`;
const TICK_FILTER = `date = @date AND market = @market AND instrument = @instrument
  AND time BETWEEN @from AND @to AND (@optionType IS NULL OR option_type = @optionType)
  AND (@kind IS NULL OR kind = @kind)`;

const TRADE_COLUMNS = `date, time, code, instrument, trade_type, block, volume, price_cents, hours,
  face_value_millis, mwh_tenths`;
const TRADE_FILTER = `date = @date AND market = @market AND time >= @from
  AND (@instrument IS NULL OR instrument = @instrument) AND (@optionType IS NULL OR option_type = @optionType)`;

const DAILY_COLUMNS = `date, code, option_type, bid_cents, bid_size, ask_cents, ask_size, first_cents, high_cents,
  low_cents, last_cents, volume, settle_cents, implied_volatility, open_interest`;
const DAILY_FILTER = `date = @date AND market = @market AND instrument = @instrument AND code >= @lo AND code < @hi
  AND (@optionType IS NULL OR option_type = @optionType)`;

export function createSqliteReader(db: Database.Database): MarketReader {
  const s = {
    version: db.prepare("SELECT value FROM meta WHERE key = 'version'").pluck(),
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
    tickerByTime: db.prepare(
      `SELECT ${TICK_COLUMNS} FROM ticks WHERE ${TICK_FILTER}
        ORDER BY time DESC, seq DESC`,
    ),
    tickerByCode: db.prepare(
      `SELECT ${TICK_COLUMNS} FROM ticks INDEXED BY ticks_by_code
        WHERE ${TICK_FILTER} AND code >= @lo AND code < @hi ORDER BY time DESC, seq DESC`,
    ),
    tradeLogByTime: db.prepare(
      `SELECT ${TRADE_COLUMNS} FROM trades WHERE ${TRADE_FILTER} ORDER BY time, seq`,
    ),
    tradeLogByCode: db.prepare(
      `SELECT ${TRADE_COLUMNS} FROM trades INDEXED BY trades_by_code
        WHERE ${TRADE_FILTER} AND code >= @lo AND code < @hi ORDER BY time, seq`,
    ),
    tradesByTime: db.prepare(
      `SELECT ${TRADE_COLUMNS} FROM trades WHERE ${TRADE_FILTER}
        ORDER BY time DESC, seq DESC`,
    ),
    tradesByCode: db.prepare(
      `SELECT ${TRADE_COLUMNS} FROM trades INDEXED BY trades_by_code
        WHERE ${TRADE_FILTER} AND code >= @lo AND code < @hi ORDER BY time DESC, seq DESC`,
    ),
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
    daily: db.prepare(`SELECT ${DAILY_COLUMNS} FROM daily WHERE ${DAILY_FILTER} ORDER BY code`),
    previousDates: db
      .prepare('SELECT date FROM days WHERE scope = ? AND date < ? ORDER BY date DESC LIMIT 2')
      .pluck(),
    indexValues: db.prepare(
      'SELECT date, year, value_cents FROM index_values WHERE name = ? AND date = ? ORDER BY year',
    ),
    tradingDays: db.prepare('SELECT count(*) FROM days WHERE scope = ? AND date BETWEEN ? AND ?').pluck(),
    datamineVolume: db.prepare(
      `SELECT region, class, block, efp, sum(volume) AS volume, sum(qe_thirds) AS qe_thirds,
          sum(mwh_tenths) AS mwh_tenths, sum(face_value_millis) AS face_value_millis, sum(count) AS count
        FROM datamine_daily WHERE market = ? AND date BETWEEN ? AND ?
        GROUP BY region, class, block, efp ORDER BY region, class, block, efp`,
    ),
    datamineOpenInterest: db.prepare(
      `SELECT c.region AS region, c.datamine_class AS class, sum(d.open_interest) AS open_interest,
          sum(d.open_interest * c.qe_thirds) AS qe_thirds,
          sum(d.open_interest * c.hours * c.mw_tenths) AS mwh_tenths,
          sum(d.open_interest * coalesce(d.settle_cents, 0) * c.hours * c.mw_tenths) AS face_value_millis
        FROM daily d JOIN contracts c ON c.code = d.code
        WHERE d.date = ? AND d.market = ? AND c.datamine_class IS NOT NULL AND d.open_interest IS NOT NULL
        GROUP BY c.region, c.datamine_class ORDER BY c.region, c.datamine_class`,
    ),
  };

  function dailyRows(date: number, selection: Selection): DailyDbRow[] {
    return s.daily.all({ date, ...selectionParams(selection) }) as DailyDbRow[];
  }

  return {
    version: () => Number(s.version.get()),

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

    ticker(query) {
      const params = {
        ...selectionParams(query.selection),
        date: dateToInt(query.date),
        from: timeToInt(query.from),
        to: timeToInt(query.to),
        kind: query.type === undefined ? null : TICK_KIND_IDS[query.type],
      };
      const statement = query.selection.prefix === undefined ? s.tickerByTime : s.tickerByCode;
      const rows = statement.all(params) as TickDbRow[];
      return rows.map((row) => ({
        date: intToDate(row.date),
        time: intToTime(row.time),
        code: row.code,
        type: tickKindOfId(row.kind),
        bidCents: row.bid_cents,
        bidSize: row.bid_size,
        askCents: row.ask_cents,
        askSize: row.ask_size,
        priceCents: row.price_cents,
        volume: row.volume,
        settleCents: row.settle_cents,
        publishedAt: row.published_at,
        impliedVolatility: row.implied_volatility,
      }));
    },

    tradeLog(query) {
      const params = tradeParams(query.date, query.selection, '000000');
      const statement = params.prefixed ? s.tradeLogByCode : s.tradeLogByTime;
      return (statement.all(params.values) as TradeDbRow[]).map(toTradeRow);
    },

    trades(query) {
      const params = tradeParams(query.date, query.selection, query.from ?? '000000');
      const statement = params.prefixed ? s.tradesByCode : s.tradesByTime;
      return (statement.all(params.values) as TradeDbRow[]).map(toTradeRow);
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
      return dailyRows(dateToInt(query.date), query.selection).map(
        (row): EndOfDayRow => ({
          code: row.code,
          date: intToDate(row.date),
          ...optionTypeField(row.option_type),
          bidSize: row.bid_size,
          bidCents: row.bid_cents,
          askSize: row.ask_size,
          askCents: row.ask_cents,
          firstCents: row.first_cents,
          highCents: row.high_cents,
          lowCents: row.low_cents,
          settleCents: row.settle_cents,
          volume: row.volume,
          openInterest: row.open_interest ?? 0,
          impliedVolatility: row.implied_volatility,
        }),
      );
    },

    intraday(query) {
      const date = dateToInt(query.date);
      const [previous, beforePrevious] = s.previousDates.all(query.selection.market, date) as number[];
      const today = dailyRows(date, query.selection);
      const prior = previous === undefined ? [] : dailyRows(previous, query.selection);
      const priorByCode = new Map(prior.map((row) => [row.code, row]));
      const earlierOi = new Map<string, number | null>();
      if (beforePrevious !== undefined) {
        for (const row of dailyRows(beforePrevious, query.selection))
          earlierOi.set(row.code, row.open_interest);
      }
      const todayByCode = new Map(today.map((row) => [row.code, row]));
      const codes = [...new Set([...todayByCode.keys(), ...priorByCode.keys()])].sort();
      return codes.map((code): IntradayRow => {
        const now = todayByCode.get(code);
        const before = priorByCode.get(code);
        const openInterest = before?.open_interest ?? null;
        const earlier = earlierOi.get(code) ?? null;
        return {
          code,
          ...optionTypeField(now?.option_type ?? before?.option_type ?? null),
          bidSize: now?.bid_size ?? null,
          bidCents: now?.bid_cents ?? null,
          askSize: now?.ask_size ?? null,
          askCents: now?.ask_cents ?? null,
          highCents: now?.high_cents ?? null,
          lowCents: now?.low_cents ?? null,
          lastCents: now?.last_cents ?? null,
          // nothing traded today reads as no value, like high/low/last
          volume: now && now.volume > 0 ? now.volume : null,
          openInterest,
          openInterestChange: openInterest !== null && earlier !== null ? openInterest - earlier : null,
          settleCents: before?.settle_cents ?? null,
          impliedVolatility: before?.implied_volatility ?? null,
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
      const rows = s.datamineVolume.all(MARKET_IDS[query.market], from, to) as {
        region: string;
        class: string;
        block: number;
        efp: number;
        volume: number;
        qe_thirds: number;
        mwh_tenths: number;
        face_value_millis: number;
        count: number;
      }[];
      return {
        tradingDays,
        groups: rows.map((row) => ({
          region: row.region as Region,
          productClass: row.class as DatamineClass,
          block: row.block === 1,
          efp: row.efp === 1,
          volume: row.volume,
          qeThirds: row.qe_thirds,
          mwhTenths: row.mwh_tenths,
          faceValueMillis: row.face_value_millis,
          count: row.count,
        })),
      };
    },

    datamineOpenInterest(query) {
      const rows = s.datamineOpenInterest.all(dateToInt(query.date), MARKET_IDS[query.market]) as {
        region: string;
        class: string;
        open_interest: number;
        qe_thirds: number;
        mwh_tenths: number;
        face_value_millis: number;
      }[];
      return rows.map((row) => ({
        region: row.region as Region,
        productClass: row.class as DatamineClass,
        openInterest: row.open_interest,
        qeThirds: row.qe_thirds,
        mwhTenths: row.mwh_tenths,
        faceValueMillis: row.face_value_millis,
      }));
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

function toTradeRow(row: TradeDbRow): TradeRow {
  return {
    date: intToDate(row.date),
    time: intToTime(row.time),
    code: row.code,
    instrument: instrumentOfId(row.instrument),
    tradeType: row.trade_type as TradeType,
    block: row.block === 1,
    volume: row.volume,
    priceCents: row.price_cents,
    hours: row.hours,
    faceValueMillis: row.face_value_millis,
    mwhTenths: row.mwh_tenths,
  };
}

function scopeKey(scope: DateScope): string {
  return 'market' in scope ? scope.market : scope.index;
}

function optionTypeField(value: string | null): { optionType?: OptionType } {
  return value === 'C' || value === 'P' ? { optionType: value } : {};
}
