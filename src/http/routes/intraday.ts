import { intradayCsv, intradayJson } from '../../format/intraday.js';
import { queryIntraday } from '../../query/intraday.js';
import { defineRoute } from '../operation.js';
import { futuresParam, optionsParam, theOne } from '../params.js';
import { intradayResponse } from '../response-schemas.js';

/** GET /api/intraday (docs/api.md). */
export const intradayRoute = defineRoute({
  path: '/api/intraday',
  spec: {
    params: { futures: futuresParam, options: optionsParam },
    exactlyOne: [['futures', 'options']],
  },
  run: (context, params) => queryIntraday(context, { code: theOne(params.futures, params.options) }),
  json: intradayJson,
  csv: intradayCsv,
  docs: {
    summary: 'Intraday snapshot by contract',
    tag: 'intraday',
    description:
      "Per-contract snapshot of the current trading day, by code. `settle` is the previous day's " +
      'settlement, `last` the last on-screen price today, `net_change` = last - settle (null when nothing ' +
      'traded today or no previous settle was published), `open_interest` as at the previous close and ' +
      '`open_interest_net_change` its change from the close before (null unless both were published). ' +
      'Absent values are null, never 0.',
    examples: {
      futures: 'futures=BNH',
      'options-puts': 'options={options:BNH}P',
      market: 'futures=nz_electricity',
    },
    response: intradayResponse,
    csv:
      'Columns code, bid_size, bid, ask_size, ask, high, low, last, net_change (futures), volume, ' +
      'open_interest, open_interest_net_change, settle, implied_volatility (options); absent values empty.',
  },
});
