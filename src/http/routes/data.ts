import { endOfDayCsv, endOfDayJson } from '../../format/end-of-day.js';
import { queryEndOfDay } from '../../query/end-of-day.js';
import { defineRoute } from '../operation.js';
import { dateParam, futuresParam, optionsParam, theOne } from '../params.js';

/** GET /api/data (spec 4.7): end-of-day records. */
export const dataRoute = defineRoute({
  path: '/api/data',
  spec: {
    params: { futures: futuresParam, options: optionsParam, date: dateParam },
    exactlyOne: [['futures', 'options']],
  },
  run: (context, params) =>
    queryEndOfDay(context, { code: theOne(params.futures, params.options), date: params.date }),
  json: endOfDayJson,
  csv: endOfDayCsv,
});
