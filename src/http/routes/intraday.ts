import { intradayCsv, intradayJson } from '../../format/intraday.js';
import { queryIntraday } from '../../query/intraday.js';
import { defineRoute } from '../operation.js';
import { futuresParam, optionsParam, theOne } from '../params.js';

/** GET /api/intraday (spec 4.8). */
export const intradayRoute = defineRoute({
  path: '/api/intraday',
  spec: {
    params: { futures: futuresParam, options: optionsParam },
    exactlyOne: [['futures', 'options']],
  },
  run: (context, params) => queryIntraday(context, { code: theOne(params.futures, params.options) }),
  json: intradayJson,
  csv: intradayCsv,
});
