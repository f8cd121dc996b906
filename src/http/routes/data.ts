import { endOfDayCsv, endOfDayJson } from '../../format/end-of-day.js';
import { queryEndOfDay } from '../../query/end-of-day.js';
import { defineRoute } from '../operation.js';
import { dateParam, futuresParam, optionsParam, theOne } from '../params.js';
import { dataResponse } from '../response-schemas.js';

/** GET /api/data (docs/api.md): end-of-day records. */
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
  docs: {
    summary: 'End-of-day records by contract',
    tag: 'end of day',
    description:
      'One record per contract of a day, by code. `first`, `high` and `low` come from on-screen trades of ' +
      'the contract itself (empty when it did not trade on screen). `settle` and `open_interest` are empty ' +
      'until published (at and after the close), never 0. Options come as `put` and `call` lists in JSON.',
    params: {
      date:
        "The day; default: the market's latest closed day (its settlement published; while the live day " +
        'runs, the day before).',
    },
    examples: {
      futures: 'futures=BNH',
      'futures-day': 'futures=BNH&date={pastDay}',
      options: 'options={options:EAH}',
    },
    response: dataResponse,
    csv:
      'Columns code, date, bid_size, bid, ask_size, ask, first, high, low, settle, volume, open_interest, ' +
      'and implied_volatility for options; options flat in one list by code.',
  },
  dateOf: (result) => result.date,
});
