import type { TradeRow } from '../store/store.js';
import { price } from './numbers.js';
import { csvTable, jsonArray, jsonString, recordForm } from './records.js';

export interface TradesAnswer {
  /** HHmmss of the latest trade of the selection; "" when none. */
  readonly lastTrade: string;
  /** HHmmss of the market's latest event of the day; "" when none. */
  readonly lastUpdate: string;
  readonly date: string;
  readonly key: 'market' | 'futures' | 'options';
  readonly value: string;
  readonly rows: readonly TradeRow[];
}

const TRADE = recordForm<TradeRow>([
  { name: 'time', cell: (row) => row.time },
  { name: 'code', cell: (row) => row.code },
  { name: 'volume', cell: (row) => String(row.volume) },
  { name: 'price', cell: (row) => price(row.priceCents) },
  // Boolean in JSON, 0/1 in CSV (docs/api.md, GET /api/trades).
  { name: 'block', cell: (row) => (row.block ? '1' : '0'), json: (row) => (row.block ? 'true' : 'false') },
]);

export function tradesJson(answer: TradesAnswer): string {
  return (
    `{"last_trade":"${answer.lastTrade}","last_update":"${answer.lastUpdate}","date":"${answer.date}",` +
    `"${answer.key}":${jsonString(answer.value)},"trades":${jsonArray(TRADE, answer.rows, 'empty')}}`
  );
}

export function tradesCsv(answer: TradesAnswer): string {
  return csvTable(TRADE, answer.rows);
}
