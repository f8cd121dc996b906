import type pg from 'pg';
import type { Region } from '../../domain/catalogue.js';
import type { Selection } from '../../domain/codes.js';
import type { OptionType } from '../../domain/contract.js';
import type { DatamineClass } from '../../domain/datamine.js';
import type { TradeType } from '../../feed/events.js';
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
} from '../sqlite/ids.js';
import { FACE_VALUE_SPLIT } from '../sqlite/view-batch.js';
import type {
  ClosePublication,
  CustomMarketRow,
  DateScope,
  EndOfDayRow,
  IntradayRow,
  MarketReader,
  MarketScope,
  TradeRow,
} from '../store.js';

/**
 * MarketReader over the PostgreSQL views: the statements of the SQLite reader
 * (sqlite/sqlite-reader.ts) with the same orders and the same row building, as named prepared
 * statements read as arrays. Bigint and numeric columns arrive as exact numbers
 * (postgres-types.ts). Every statement runs under the pool's statement_timeout.
 */

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
  AND time BETWEEN @from AND @to AND (@optionType::text IS NULL OR option_type = @optionType)
  AND (@kind::smallint IS NULL OR kind = @kind)`;
/** Each contract's latest settle of the date, from daily, as ticker rows (TICK_COLUMNS). */
const SETTLE_TICKS = `SELECT settle_time, code, ${TICK_KIND_IDS.settle}::smallint, NULL::bigint, NULL::bigint,
    NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, settle_cents, published_at, implied_volatility, settle_seq
  FROM daily
  WHERE date = @date AND market = @market AND instrument = @instrument AND settle_seq IS NOT NULL
    AND settle_time BETWEEN @from AND @to AND (@optionType::text IS NULL OR option_type = @optionType)
    AND (@kind::smallint IS NULL OR @kind::smallint = ${TICK_KIND_IDS.settle})`;
const CODE_RANGE = 'code >= @lo AND code < @hi';

const TRADE_COLUMNS = `time, code, instrument, trade_type, block, volume, price_cents, hours,
  face_value_millis, mwh_tenths`;
const TRADE_FILTER = `date = @date AND market = @market AND time >= @from
  AND (@instrument::smallint IS NULL OR instrument = @instrument)
  AND (@optionType::text IS NULL OR option_type = @optionType)`;

const DAILY_COLUMNS = `code, option_type, bid_cents, bid_size, ask_cents, ask_size, first_cents, high_cents,
  low_cents, last_cents, volume, settle_cents, implied_volatility, open_interest`;
const DAILY_FILTER = `date = @date AND market = @market AND instrument = @instrument AND code >= @lo AND code < @hi
  AND (@optionType::text IS NULL OR option_type = @optionType)`;

/** The statements, with named parameters (@name) as in the SQLite reader; see compile(). */
const SQL = {
  version: "SELECT value FROM meta WHERE key = 'version'",
  revisions: 'SELECT date, revision FROM day_revisions WHERE revision > @since ORDER BY date',
  contracts: `SELECT code, instrument, market, option_type FROM contracts
    WHERE market = @market AND instrument = @instrument AND code >= @lo AND code < @hi
      AND (@optionType::text IS NULL OR option_type = @optionType)
    ORDER BY code`,
  datesOf: 'SELECT date FROM days WHERE scope = @scope ORDER BY date',
  allDates: 'SELECT DISTINCT date FROM days ORDER BY date',
  latestOf: 'SELECT max(date) FROM days WHERE scope = @scope',
  latestAll: 'SELECT max(date) FROM days',
  tickerByTime: `SELECT ${TICK_COLUMNS} FROM ticks WHERE ${TICK_FILTER}
    UNION ALL ${SETTLE_TICKS}
    ORDER BY time DESC, seq DESC`,
  tickerByCode: `SELECT ${TICK_COLUMNS} FROM ticks WHERE ${TICK_FILTER} AND ${CODE_RANGE}
    UNION ALL ${SETTLE_TICKS} AND ${CODE_RANGE}
    ORDER BY time DESC, seq DESC`,
  tradeLogByTime: `SELECT ${TRADE_COLUMNS} FROM trades WHERE ${TRADE_FILTER} ORDER BY time, seq`,
  tradeLogByCode: `SELECT ${TRADE_COLUMNS} FROM trades WHERE ${TRADE_FILTER} AND ${CODE_RANGE} ORDER BY time, seq`,
  tradesByTime: `SELECT ${TRADE_COLUMNS} FROM trades WHERE ${TRADE_FILTER} ORDER BY time DESC, seq DESC`,
  tradesByCode: `SELECT ${TRADE_COLUMNS} FROM trades WHERE ${TRADE_FILTER} AND ${CODE_RANGE}
    ORDER BY time DESC, seq DESC`,
  lastUpdate: 'SELECT last_time FROM days WHERE scope = @scope AND date = @date',
  messages: `SELECT time, text FROM messages
    WHERE date = @date AND market = @market AND board = @board AND time >= @from ORDER BY time DESC, seq DESC`,
  customMarkets: `SELECT time, contract, net_cents, size, legs FROM custom_markets
    WHERE date = @date AND market = @market AND time >= @from ORDER BY time DESC, seq DESC`,
  daily: `SELECT ${DAILY_COLUMNS} FROM daily WHERE ${DAILY_FILTER} ORDER BY code`,
  closes: `SELECT code, option_type, settle_cents, implied_volatility, open_interest FROM daily WHERE ${DAILY_FILTER}`,
  previousDates: 'SELECT date FROM days WHERE scope = @scope AND date < @date ORDER BY date DESC LIMIT 2',
  indexValues:
    'SELECT date, year, value_cents FROM index_values WHERE name = @name AND date = @date ORDER BY year',
  tradingDays: 'SELECT count(*) FROM days WHERE scope = @scope AND date BETWEEN @from AND @to',
  // Sums that may pass 2^53 (docs/feed-format.md, "Limits") come as text and become bigints.
  datamineVolume: `SELECT region, class, block, efp, sum(volume), sum(qe_thirds), sum(mwh_tenths)::text,
      (sum(face_value_high) * ${FACE_VALUE_SPLIT} + sum(face_value_millis))::text, sum(count)
    FROM datamine_daily WHERE market = @market AND date BETWEEN @from AND @to
    GROUP BY region, class, block, efp ORDER BY region, class, block, efp`,
  // The face value takes the contract's latest settlement up to the date (docs/market-rules.md,
  // "Datamine statistics").
  datamineOpenInterest: `SELECT c.region, c.datamine_class, sum(d.open_interest),
      sum(d.open_interest::numeric * c.qe_thirds),
      sum(d.open_interest::numeric * coalesce(c.hours, 0) * c.mw_tenths)::text,
      sum(d.open_interest::numeric * coalesce(d.settle_cents, (SELECT p.settle_cents FROM daily p
          WHERE p.market = d.market AND p.instrument = d.instrument AND p.code = d.code
            AND p.date < d.date AND p.settle_cents IS NOT NULL
          ORDER BY p.date DESC LIMIT 1), 0) * coalesce(c.hours, 0) * c.mw_tenths)::text
    FROM daily d JOIN contracts c ON c.code = d.code
    WHERE d.date = @date AND d.market = @market AND c.datamine_class IS NOT NULL AND d.open_interest IS NOT NULL
    GROUP BY c.region, c.datamine_class ORDER BY c.region, c.datamine_class`,
  // One probe per date of the market (as the SQLite reader): a closed day answers at its first rows.
  settledDates: `SELECT date FROM days WHERE scope = @scope AND EXISTS (SELECT 1 FROM daily
      WHERE daily.date = days.date AND daily.market = @market AND daily.settle_seq IS NOT NULL)
    ORDER BY date`,
  openInterestDates: `SELECT date FROM days WHERE scope = @scope AND EXISTS (SELECT 1 FROM daily
      WHERE daily.date = days.date AND daily.market = @market AND daily.oi_seq IS NOT NULL)
    ORDER BY date`,
} as const;

type StatementName = keyof typeof SQL;

const PUBLISHED: Readonly<Record<ClosePublication, StatementName>> = {
  settlement: 'settledDates',
  open_interest: 'openInterestDates',
};
type Params = Readonly<Record<string, unknown>>;

/** @name -> $n (a name used twice is one parameter), and the names in parameter order. */
function compile(sql: string): { readonly text: string; readonly names: readonly string[] } {
  const names: string[] = [];
  const text = sql.replace(/@(\w+)/g, (_, name: string) => {
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text, names };
}

const COMPILED = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, compile(sql)])) as Record<
  StatementName,
  ReturnType<typeof compile>
>;

export function createPostgresReader(pool: pg.Pool): MarketReader {
  /** Rows of a named prepared statement, as arrays in column order. */
  async function rows<T>(name: StatementName, params: Params = {}): Promise<T[]> {
    const { text, names } = COMPILED[name];
    const values = names.map((key) => {
      const value = params[key];
      if (value === undefined) throw new Error(`statement ${name} needs @${key}`);
      return value;
    });
    const result = await pool.query({ name, text, values, rowMode: 'array' });
    return result.rows as T[];
  }

  async function single<T>(name: StatementName, params: Params = {}): Promise<T | undefined> {
    const [row] = await rows<[T]>(name, params);
    return row?.[0];
  }

  function dailyRows(date: number, selection: Selection): Promise<DailyTuple[]> {
    return rows<DailyTuple>('daily', { date, ...selectionParams(selection) });
  }

  async function closes(date: number | undefined, selection: Selection): Promise<Map<string, CloseTuple>> {
    if (date === undefined) return new Map();
    const found = await rows<CloseTuple>('closes', { date, ...selectionParams(selection) });
    return new Map(found.map((row) => [row[0], row]));
  }

  return {
    version: async () => (await single<number>('version')) ?? 0,

    async dayRevisions(since) {
      const found = await rows<[number, number]>('revisions', { since: since ?? -1 });
      return new Map(found.map(([date, revision]) => [intToDate(date), revision]));
    },

    async contracts(selection) {
      const found = await rows<[string, number, number, string | null]>(
        'contracts',
        selectionParams(selection),
      );
      return found.map(([code, instrument, market, optionType]) => ({
        code,
        instrument: instrumentOfId(instrument),
        market: marketOfId(market),
        ...optionTypeField(optionType),
      }));
    },

    async dates(scope) {
      const found = scope
        ? await rows<[number]>('datesOf', { scope: scopeKey(scope) })
        : await rows<[number]>('allDates');
      return found.map(([date]) => intToDate(date));
    },

    async latestDate(scope) {
      const value = scope
        ? await single<number | null>('latestOf', { scope: scopeKey(scope) })
        : await single<number | null>('latestAll');
      return value === null || value === undefined ? undefined : intToDate(value);
    },

    async publishedDates(query) {
      const found = await rows<[number]>(PUBLISHED[query.publication], {
        scope: query.market,
        market: MARKET_IDS[query.market],
      });
      return found.map(([date]) => intToDate(date));
    },

    async ticker(query) {
      const params = {
        ...selectionParams(query.selection),
        date: dateToInt(query.date),
        from: timeToInt(query.from),
        to: timeToInt(query.to),
        kind: query.type === undefined ? null : TICK_KIND_IDS[query.type],
      };
      const found = await rows<TickTuple>(
        query.selection.prefix === undefined ? 'tickerByTime' : 'tickerByCode',
        params,
      );
      const { date } = query;
      return found.map((row) => ({
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

    async tradeLog(query) {
      const params = tradeParams(query.date, query.selection, '000000');
      const found = await rows<TradeTuple>(
        params.prefixed ? 'tradeLogByCode' : 'tradeLogByTime',
        params.values,
      );
      return found.map((row) => toTradeRow(query.date, row));
    },

    async trades(query) {
      const params = tradeParams(query.date, query.selection, query.from ?? '000000');
      const found = await rows<TradeTuple>(params.prefixed ? 'tradesByCode' : 'tradesByTime', params.values);
      return found.map((row) => toTradeRow(query.date, row));
    },

    async lastUpdate(query) {
      const value = await single<number>('lastUpdate', { scope: query.market, date: dateToInt(query.date) });
      return value === undefined ? undefined : intToTime(value);
    },

    async messages(query) {
      const found = await rows<[number, string]>('messages', {
        date: dateToInt(query.date),
        market: MARKET_IDS[query.market],
        board: query.board,
        from: timeToInt(query.from ?? '000000'),
      });
      return found.map(([time, text]) => ({ time: intToTime(time), text }));
    },

    async customMarkets(query) {
      const found = await rows<[number, string, number, number, string]>('customMarkets', {
        date: dateToInt(query.date),
        market: MARKET_IDS[query.market],
        from: timeToInt(query.from ?? '000000'),
      });
      return found.map(
        ([time, contract, netCents, size, legs]): CustomMarketRow => ({
          time: intToTime(time),
          contract,
          netCents,
          size,
          legs: (JSON.parse(legs) as [number, number][]).map(([priceCents, ratioHundredths]) => ({
            priceCents,
            ratioHundredths,
          })),
        }),
      );
    },

    async endOfDay(query) {
      const { date } = query;
      const found = await dailyRows(dateToInt(date), query.selection);
      return found.map(
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

    async intraday(query) {
      const date = dateToInt(query.date);
      const previousDates = await rows<[number]>('previousDates', { scope: query.selection.market, date });
      const [previous, beforePrevious] = previousDates.map(([value]) => value);
      const [todayRows, prior, earlier] = await Promise.all([
        dailyRows(date, query.selection),
        closes(previous, query.selection),
        closes(beforePrevious, query.selection),
      ]);
      const today = new Map(todayRows.map((row) => [row[0], row]));
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
          volume: volume > 0 ? volume : null,
          openInterest,
          openInterestChange: openInterest !== null && earlierOi !== null ? openInterest - earlierOi : null,
          settleCents: before?.[2] ?? null,
          impliedVolatility: before?.[3] ?? null,
        };
      });
    },

    async indexValues(query) {
      const found = await rows<[number, number, number]>('indexValues', {
        name: query.index,
        date: dateToInt(query.date),
      });
      return found.map(([date, year, valueCents]) => ({ date: intToDate(date), year, valueCents }));
    },

    async datamineVolume(query) {
      const from = dateToInt(query.from);
      const to = dateToInt(query.to);
      const [tradingDays, found] = await Promise.all([
        single<number>('tradingDays', { scope: query.market, from, to }),
        rows<[string, string, number, number, number, number, string, string, number]>('datamineVolume', {
          market: MARKET_IDS[query.market],
          from,
          to,
        }),
      ]);
      return {
        tradingDays: tradingDays ?? 0,
        groups: found.map(
          ([region, productClass, block, efp, volume, qeThirds, mwhTenths, faceValueMillis, count]) => ({
            region: region as Region,
            productClass: productClass as DatamineClass,
            block: block === 1,
            efp: efp === 1,
            volume,
            qeThirds,
            mwhTenths: BigInt(mwhTenths),
            faceValueMillis: BigInt(faceValueMillis),
            count,
          }),
        ),
      };
    },

    async datamineOpenInterest(query) {
      const found = await rows<[string, string, number, number, string, string]>('datamineOpenInterest', {
        date: dateToInt(query.date),
        market: MARKET_IDS[query.market],
      });
      return found.map(([region, productClass, openInterest, qeThirds, mwhTenths, faceValueMillis]) => ({
        region: region as Region,
        productClass: productClass as DatamineClass,
        openInterest,
        qeThirds,
        mwhTenths: BigInt(mwhTenths),
        faceValueMillis: BigInt(faceValueMillis),
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
