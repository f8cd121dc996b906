import { tradeLogCsv, tradeLogJson } from '../../format/tradelog.js';
import { queryTradeLog } from '../../query/tradelog.js';
import { defineRoute } from '../operation.js';
import { dateParam, futuresParam, marketParam, optionsParam, theOne } from '../params.js';

/** GET /api/tradelog (spec 4.4). */
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
});
