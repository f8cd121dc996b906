import type { EndOfDayResult } from '../query/end-of-day.js';
import type { EndOfDayRow } from '../store/store.js';
import { integer, price, volatility } from './numbers.js';
import { type Column, csvTable, jsonArray, jsonString, recordForm } from './records.js';

const COLUMNS: readonly Column<EndOfDayRow>[] = [
  { name: 'code', cell: (row) => row.code },
  { name: 'date', cell: (row) => row.date },
  { name: 'bid_size', cell: (row) => integer(row.bidSize) },
  { name: 'bid', cell: (row) => price(row.bidCents) },
  { name: 'ask_size', cell: (row) => integer(row.askSize) },
  { name: 'ask', cell: (row) => price(row.askCents) },
  { name: 'first', cell: (row) => price(row.firstCents) },
  { name: 'high', cell: (row) => price(row.highCents) },
  { name: 'low', cell: (row) => price(row.lowCents) },
  { name: 'settle', cell: (row) => price(row.settleCents) },
  { name: 'volume', cell: (row) => String(row.volume) },
  // "" (an empty CSV cell) until published: a live day's open interest is unknown, not 0
  { name: 'open_interest', cell: (row) => integer(row.openInterest) },
];

export const FUTURES = recordForm(COLUMNS);
export const OPTIONS = recordForm<EndOfDayRow>([
  ...COLUMNS,
  { name: 'implied_volatility', cell: (row) => volatility(row.impliedVolatility) },
]);

export function endOfDayJson(answer: EndOfDayResult): string {
  const head = `{"${answer.key}":${jsonString(answer.value)},"date":"${answer.date}","data":`;
  if (answer.key === 'futures') return `${head}${jsonArray(FUTURES, answer.rows, 'empty')}}`;
  const { put, call } = splitByType(answer.rows);
  return `${head}{"put":${jsonArray(OPTIONS, put, 'empty')},"call":${jsonArray(OPTIONS, call, 'empty')}}}`;
}

/** CSV rows stay flat, calls and puts in one list ordered by code (docs/api.md, GET /api/data). */
export function endOfDayCsv(answer: EndOfDayResult): string {
  return csvTable(answer.key === 'futures' ? FUTURES : OPTIONS, answer.rows);
}

export function splitByType<R extends { readonly optionType?: 'C' | 'P' }>(
  rows: readonly R[],
): { put: R[]; call: R[] } {
  const put: R[] = [];
  const call: R[] = [];
  for (const row of rows) (row.optionType === 'P' ? put : call).push(row);
  return { put, call };
}
