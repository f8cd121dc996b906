import { tickerCsv, tickerJson } from '../../format/ticker.js';
import { queryTicker, TICKER_TYPES, tickerParamIssues } from '../../query/ticker.js';
import { defineRoute } from '../operation.js';
import { dateParam, enumParam, futuresParam, optionsParam, theOne, timeParam } from '../params.js';
import { tickerResponse } from '../response-schemas.js';

/** GET /api/ticker (docs/api.md). */
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
  docs: {
    summary: 'Ticker messages: book, trade and settlement',
    tag: 'intraday',
    description:
      'Book, trade and settlement messages of the selected contracts, newest first (time, then arrival). ' +
      'Without `date`: the current trading day (the latest day the store holds) within the `from`-`to` window. ' +
      'With `date`: that whole day. The effective day and bounds are echoed in the envelope.',
    params: {
      type: 'Only messages of this type.',
      date: 'A whole past day (the window is then 000000-235959).',
      from: "Lower bound of the current day's window; default 000000. Must not be after `to`.",
      to: "Upper bound of the window; default: the exchange clock's time when the current day is today, else 235959.",
    },
    examples: {
      'futures-trades': 'futures=BNH&type=trade',
      'options-settle': 'options={options:BNH}C&type=settle',
      'past-day': 'futures={futures:BNH}&date={pastDay}',
      'market-window': 'futures=au_gas&from=100000&to=160000',
    },
    response: tickerResponse,
    csv:
      'Columns time, code, type, bid, bid_size, ask, ask_size, price, volume, timestamp_settle, settle, ' +
      "implied_volatility; cells that do not apply to the row's type are empty; no envelope fields.",
  },
  dateOf: (result) => result.date,
});
