import { tradeLogCsv, tradeLogJson } from '../../format/tradelog.js';
import { queryTradeLog } from '../../query/tradelog.js';
import { defineRoute } from '../operation.js';
import { dateParam, futuresParam, marketParam, optionsParam, theOne } from '../params.js';
import { tradelogResponse } from '../response-schemas.js';

/** GET /api/tradelog (docs/api.md). */
export const tradelogRoute = defineRoute({
  path: '/api/tradelog',
  spec: {
    params: { market: marketParam, futures: futuresParam, options: optionsParam, date: dateParam },
    exactlyOne: [['market', 'futures', 'options']],
  },
  run: (context, params) =>
    queryTradeLog(context, {
      scope:
        params.market === undefined
          ? theOne(params.futures, params.options)
          : { name: 'market', text: params.market },
      date: params.date,
    }),
  json: tradeLogJson,
  csv: tradeLogCsv,
  docs: {
    summary: "A trading day's trade log",
    tag: 'end of day',
    description:
      'Every trade of a day in time order, with a summary (JSON only). A market means its futures and, in ' +
      'electricity, its options. Futures codes carry the F suffix; electricity rows add `hours` and ' +
      '`face_value` (volume x price x hours x MW per lot). Trade types: N normal (on screen, or a strip), ' +
      'Z strip leg at its allocated price, B block trade, E exchange for physical.',
    params: {
      date:
        "The day; default: the latest closed day of the code's market (its settlement published); name the " +
        'live day for its trades so far.',
    },
    examples: {
      market: 'market=au_electricity',
      'futures-day': 'futures={futures:HNM}&date={pastDay}',
      gas: 'market=au_gas&format=csv',
    },
    response: tradelogResponse,
    csv:
      'Columns date, time, code, trade_type, volume, price, and hours, face_value in the electricity ' +
      'markets; no summary.',
  },
  dateOf: (result) => result.date,
});
