import { formatScaled, formatScaledBig, rescaleDown } from '../domain/decimal.js';
import type { TradeLogResult } from '../query/tradelog.js';
import type { TradeRow } from '../store/store.js';
import { colonTime, integer, millisToCents, price } from './numbers.js';
import { type Column, csvTable, jsonArray, recordForm } from './records.js';

const COMMON: readonly Column<TradeRow>[] = [
  { name: 'date', cell: (row) => row.date },
  { name: 'time', cell: (row) => colonTime(row.time) },
  // The trade log writes futures with an F suffix (docs/market-rules.md, contract codes).
  { name: 'code', cell: (row) => (row.instrument === 'future' ? `${row.code}F` : row.code) },
  { name: 'trade_type', cell: (row) => row.tradeType },
  { name: 'volume', cell: (row) => String(row.volume) },
  { name: 'price', cell: (row) => price(row.priceCents) },
];

export const ELECTRICITY = recordForm<TradeRow>([
  ...COMMON,
  { name: 'hours', cell: (row) => integer(row.hours) },
  {
    name: 'face_value',
    cell: (row) =>
      row.faceValueMillis === null ? null : formatScaled(millisToCents(row.faceValueMillis), 2),
  },
]);
export const OTHER = recordForm<TradeRow>(COMMON);

export function tradeLogJson(answer: TradeLogResult): string {
  const { summary } = answer;
  const form = answer.electricity ? ELECTRICITY : OTHER;
  return (
    `{"date":"${answer.date}","summary":{"trades":"${summary.trades}","volume":"${summary.volume}",` +
    `"traded_mwh":"${rescaleDown(summary.mwhTenths, 1)}",` +
    `"face_value":"${formatScaledBig(summary.faceValueCents, 2)}"},` +
    `"data":${jsonArray(form, answer.rows, 'empty')}}`
  );
}

export function tradeLogCsv(answer: TradeLogResult): string {
  return csvTable(answer.electricity ? ELECTRICITY : OTHER, answer.rows);
}
