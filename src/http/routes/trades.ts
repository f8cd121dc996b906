import { tradesCsv, tradesJson } from '../../format/trades.js';
import { queryTrades } from '../../query/trades.js';
import { defineRoute } from '../operation.js';
import { futuresParam, marketParam, optionsParam, theOne, timeParam } from '../params.js';

/** GET /api/trades (spec 4.6). */
export const tradesRoute = defineRoute({
  path: '/api/trades',
  spec: {
    params: { market: marketParam, futures: futuresParam, options: optionsParam, from: timeParam },
    exactlyOne: [['market', 'futures', 'options']],
  },
  run: (context, params) =>
    queryTrades(context, {
      scope:
        params.market === undefined
          ? theOne(params.futures, params.options)
          : { name: 'market', text: params.market },
      from: params.from,
    }),
  json: tradesJson,
  csv: tradesCsv,
});
