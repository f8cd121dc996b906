import type { IntradayResult } from '../query/intraday.js';
import type { IntradayRow } from '../store/store.js';
import { splitByType } from './end-of-day.js';
import { integer, price, volatility } from './numbers.js';
import { type Column, csvTable, jsonArray, jsonString, recordForm } from './records.js';

const code: Column<IntradayRow> = { name: 'code', cell: (row) => row.code };
const BOOK_AND_PRICES: readonly Column<IntradayRow>[] = [
  { name: 'bid_size', cell: (row) => integer(row.bidSize) },
  { name: 'bid', cell: (row) => price(row.bidCents) },
  { name: 'ask_size', cell: (row) => integer(row.askSize) },
  { name: 'ask', cell: (row) => price(row.askCents) },
  { name: 'high', cell: (row) => price(row.highCents) },
  { name: 'low', cell: (row) => price(row.lowCents) },
  { name: 'last', cell: (row) => price(row.lastCents) },
];
// last minus the previous settle; null when nothing traded today (docs/market-rules.md, intraday values).
const netChange: Column<IntradayRow> = {
  name: 'net_change',
  cell: (row) =>
    row.lastCents === null || row.settleCents === null ? null : price(row.lastCents - row.settleCents),
};
const REST: readonly Column<IntradayRow>[] = [
  { name: 'volume', cell: (row) => integer(row.volume) },
  { name: 'open_interest', cell: (row) => integer(row.openInterest) },
  { name: 'open_interest_net_change', cell: (row) => integer(row.openInterestChange) },
  { name: 'settle', cell: (row) => price(row.settleCents) },
];

export const FUTURES = recordForm<IntradayRow>([code, ...BOOK_AND_PRICES, netChange, ...REST]);
export const OPTIONS = recordForm<IntradayRow>([
  code,
  ...BOOK_AND_PRICES,
  ...REST,
  { name: 'implied_volatility', cell: (row) => volatility(row.impliedVolatility) },
]);

/** Absent values are JSON null here, the spec's one exception to "every value a string". */
export function intradayJson(answer: IntradayResult): string {
  const head = `{"${answer.key}":${jsonString(answer.value)},"data":`;
  if (answer.key === 'futures') return `${head}${jsonArray(FUTURES, answer.rows, 'null')}}`;
  const { put, call } = splitByType(answer.rows);
  return `${head}{"put":${jsonArray(OPTIONS, put, 'null')},"call":${jsonArray(OPTIONS, call, 'null')}}}`;
}

export function intradayCsv(answer: IntradayResult): string {
  return csvTable(answer.key === 'futures' ? FUTURES : OPTIONS, answer.rows);
}
