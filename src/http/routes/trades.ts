import { tradesCsv, tradesJson } from '../../format/trades.js';
import { queryTrades } from '../../query/trades.js';
import { defineRoute } from '../operation.js';
import { futuresParam, marketParam, optionsParam, theOne, timeParam } from '../params.js';
import { tradesResponse } from '../response-schemas.js';

/** GET /api/trades (docs/api.md). */
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
  docs: {
    summary: "The current day's trades",
    tag: 'intraday',
    description:
      "Trades of the current trading day, newest first. `last_trade` is the selection's latest trade time " +
      '("" when none), `last_update` the market\'s latest event time. A market means its futures and, in ' +
      'electricity, its options; the envelope echoes the parameter sent.',
    params: { from: 'Trades from this time on (inclusive).' },
    examples: {
      market: 'market=au_electricity',
      'futures-from': 'futures=BNH&from=120000',
      options: 'options=BNH',
    },
    response: tradesResponse,
    csv: 'Columns time, code, volume, price, block (0 or 1).',
  },
});
