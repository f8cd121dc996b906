import { formatScaled } from '../domain/decimal.js';
import type { MessagesResult } from '../query/messages.js';
import type { CustomMarketRow, MessageRow } from '../store/store.js';
import { price } from './numbers.js';
import { type Column, csvTable, jsonArray, jsonRecord, recordForm } from './records.js';

/** The spec's samples separate this operation's CSV cells with a tab (docs/api.md, GET /api/messages). */
const TAB = '\t';
const LEGS = 6;

export const MESSAGE = recordForm<MessageRow>([
  { name: 'time', cell: (row) => row.time },
  { name: 'message', cell: (row) => row.text, text: true },
]);

function legColumns(part: 'price' | 'ratio'): Column<CustomMarketRow>[] {
  return Array.from({ length: LEGS }, (_, i) => ({
    name: `${part}_${i + 1}`,
    cell: (row: CustomMarketRow) => {
      const leg = row.legs[i];
      // Unused legs read "0.00" (docs/api.md, decisions: custom market legs).
      if (!leg) return '0.00';
      return part === 'price' ? formatScaled(leg.priceCents, 2) : formatScaled(leg.ratioHundredths, 2);
    },
  }));
}

export const CUSTOM = recordForm<CustomMarketRow>([
  { name: 'contract', cell: (row) => row.contract, text: true },
  { name: 'net', cell: (row) => price(row.netCents) },
  { name: 'size', cell: (row) => String(row.size) },
  ...legColumns('price'),
  ...legColumns('ratio'),
]);

/** One message-board or registered-trades record as messages writes it (also the stream's events). */
export function messageRecordJson(row: MessageRow): string {
  return jsonRecord(MESSAGE, row, 'empty');
}

/** One custom-market record as messages writes it (also the stream's events). */
export function customMarketRecordJson(row: CustomMarketRow): string {
  return jsonRecord(CUSTOM, row, 'empty');
}

export function messagesJson(answer: MessagesResult): string {
  const head = `{"market":"${answer.market}","type":"${answer.type}"`;
  if (answer.type === 'custom_market') return `${head},"data":${jsonArray(CUSTOM, answer.rows, 'empty')}}`;
  return `${head},"date":"${answer.date}","data":${jsonArray(MESSAGE, answer.rows, 'empty')}}`;
}

export function messagesCsv(answer: MessagesResult): string {
  return answer.type === 'custom_market'
    ? csvTable(CUSTOM, answer.rows, TAB)
    : csvTable(MESSAGE, answer.rows, TAB);
}
