import type { Selection } from '../../domain/codes.js';
import type { OptionType } from '../../domain/contract.js';
import type { TradeType } from '../../feed/events.js';
import type {
  DateScope,
  EndOfDayRow,
  IntradayRow,
  MarketReader,
  MarketScope,
  TickerRow,
  TradeRow,
} from '../store.js';
import {
  codeRange,
  dateToInt,
  INSTRUMENT_IDS,
  instrumentOfId,
  intToTime,
  MARKET_IDS,
  TICK_KIND_IDS,
  tickKindOfId,
  timeToInt,
} from './ids.js';

/**
 * Stored rows back into the store's records (store.ts), shared by both readers: the statements
 * differ by database, the tuples they answer and what is made of them do not. Hot reads come
 * back as raw tuples (about half the cost of row objects in SQLite), in column order.
 */

export type TickTuple = [
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

export type TradeTuple = [
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

export type DailyTuple = [
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

export type CloseTuple = [
  code: string,
  optionType: string | null,
  settleCents: number | null,
  iv: number | null,
  oi: number | null,
];

type TickerQuery = Parameters<MarketReader['ticker']>[0];

export function selectionParams(selection: Selection) {
  const { lo, hi } = codeRange(selection.prefix);
  return {
    market: MARKET_IDS[selection.market],
    instrument: INSTRUMENT_IDS[selection.instrument],
    optionType: selection.optionType ?? null,
    lo,
    hi,
  };
}

/** The ticker statement's parameters; `byCode` when a code prefix narrows it. */
export function tickerParams(query: TickerQuery) {
  return {
    byCode: query.selection.prefix !== undefined,
    values: {
      ...selectionParams(query.selection),
      date: dateToInt(query.date),
      from: timeToInt(query.from),
      to: timeToInt(query.to),
      kind: query.type === undefined ? null : TICK_KIND_IDS[query.type],
    },
  };
}

/** Trade queries take a selection or a whole market (both instruments). */
export function tradeParams(date: string, scope: Selection | MarketScope, from: string) {
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

export function toTickRow(date: string, row: TickTuple): TickerRow {
  return {
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
  };
}

export function toTradeRow(date: string, row: TradeTuple): TradeRow {
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

export function toEndOfDayRow(date: string, row: DailyTuple): EndOfDayRow {
  return {
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
  };
}

/**
 * The intraday view: today's daily rows with the previous trading day's closes (settle, implied
 * volatility, open interest) and the open interest's change from the day before that, by code.
 */
export function intradayRows(
  todayRows: readonly DailyTuple[],
  prior: ReadonlyMap<string, CloseTuple>,
  earlier: ReadonlyMap<string, CloseTuple>,
): IntradayRow[] {
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
      // nothing traded today reads as no value, like high/low/last
      volume: volume > 0 ? volume : null,
      openInterest,
      openInterestChange: openInterest !== null && earlierOi !== null ? openInterest - earlierOi : null,
      settleCents: before?.[2] ?? null,
      impliedVolatility: before?.[3] ?? null,
    };
  });
}

/** Custom market legs as stored (JSON pairs) back into records. */
export function parseLegs(legs: string): { priceCents: number; ratioHundredths: number }[] {
  return (JSON.parse(legs) as [number, number][]).map(([priceCents, ratioHundredths]) => ({
    priceCents,
    ratioHundredths,
  }));
}

export function scopeKey(scope: DateScope): string {
  return 'market' in scope ? scope.market : scope.index;
}

export function optionTypeField(value: string | null): { optionType?: OptionType } {
  return value === 'C' || value === 'P' ? { optionType: value } : {};
}
