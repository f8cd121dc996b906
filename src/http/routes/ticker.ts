import { tickerCsv, tickerJson } from '../../format/ticker.js';
import { queryTicker, TICKER_TYPES, tickerParamIssues } from '../../query/ticker.js';
import { defineRoute } from '../operation.js';
import { dateParam, enumParam, futuresParam, optionsParam, theOne, timeParam } from '../params.js';

/** GET /api/ticker (spec 4.1). */
export const tickerRoute = defineRoute({
  path: '/api/ticker',
  spec: {
    params: {
      futures: futuresParam,
      options: optionsParam,
      type: enumParam(TICKER_TYPES),
      date: dateParam,
      from: timeParam,
      to: timeParam,
    },
    exactlyOne: [['futures', 'options']],
    // Spec 7: with date, from and to are disregarded, not an error.
    disregard: { when: 'date', names: ['from', 'to'] },
    check: tickerParamIssues,
  },
  run: (context, params) =>
    queryTicker(context, {
      code: theOne(params.futures, params.options),
      type: params.type,
      date: params.date,
      from: params.from,
      to: params.to,
    }),
  json: tickerJson,
  csv: tickerCsv,
});
