import type { TickerResult } from '../query/ticker.js';
import type { TickerRow } from '../store/store.js';
import { integer, price, volatility } from './numbers.js';
import { type Column, csvTable, jsonRecord, jsonString, recordForm } from './records.js';

const time: Column<TickerRow> = { name: 'time', cell: (row) => `${row.date}${row.time}` };
const code: Column<TickerRow> = { name: 'code', cell: (row) => row.code };
const type: Column<TickerRow> = { name: 'type', cell: (row) => row.type };
const bid: Column<TickerRow> = { name: 'bid', cell: (row) => price(row.bidCents) };
const bidSize: Column<TickerRow> = { name: 'bid_size', cell: (row) => integer(row.bidSize) };
const ask: Column<TickerRow> = { name: 'ask', cell: (row) => price(row.askCents) };
const askSize: Column<TickerRow> = { name: 'ask_size', cell: (row) => integer(row.askSize) };
const tradePrice: Column<TickerRow> = {
  name: 'price',
  cell: (row) => (row.type === 'trade' ? price(row.priceCents) : null),
};
const volume: Column<TickerRow> = {
  name: 'volume',
  cell: (row) => (row.type === 'trade' ? integer(row.volume) : null),
};
const timestampSettle: Column<TickerRow> = {
  name: 'timestamp_settle',
  cell: (row) => (row.type === 'settle' ? integer(row.publishedAt) : null),
};
const settle: Column<TickerRow> = {
  name: 'settle',
  cell: (row) => (row.type === 'settle' ? price(row.settleCents) : null),
};
const impliedVolatility: Column<TickerRow> = {
  name: 'implied_volatility',
  cell: (row) => (row.type === 'settle' ? volatility(row.impliedVolatility) : null),
};

/** JSON: the common fields, then the fields of the message's type (docs/api.md, GET /api/ticker). */
export const JSON_FORMS = {
  futures: {
    book: recordForm([time, code, type, bid, bidSize, ask, askSize]),
    trade: recordForm([time, code, type, tradePrice, volume]),
    settle: recordForm([time, code, type, settle, timestampSettle]),
  },
  options: {
    book: recordForm([time, code, type, bid, bidSize, ask, askSize]),
    trade: recordForm([time, code, type, tradePrice, volume]),
    settle: recordForm([time, code, type, settle, timestampSettle, impliedVolatility]),
  },
} as const;

/** CSV: every column on every row, cells of other types empty (docs/api.md, GET /api/ticker). */
const CSV_FORM = recordForm([
  time,
  code,
  type,
  bid,
  bidSize,
  ask,
  askSize,
  tradePrice,
  volume,
  timestampSettle,
  settle,
  impliedVolatility,
]);

/** One message as the ticker of `key` writes it: also each book, trade and settle event of the stream. */
export function tickerRecordJson(key: 'futures' | 'options', row: TickerRow): string {
  return jsonRecord(JSON_FORMS[key][row.type], row, 'empty');
}

export function tickerJson(answer: TickerResult): string {
  let data = '[';
  for (let i = 0; i < answer.rows.length; i++) {
    if (i > 0) data += ',';
    data += tickerRecordJson(answer.key, answer.rows[i] as TickerRow);
  }
  data += ']';
  return (
    `{"${answer.key}":${jsonString(answer.value)},"date":"${answer.date}",` +
    `"from":"${answer.from}","to":"${answer.to}","data":${data}}`
  );
}

export function tickerCsv(answer: TickerResult): string {
  return csvTable(CSV_FORM, answer.rows);
}
