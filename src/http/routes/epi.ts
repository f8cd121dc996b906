import { indexCsv, indexJson } from '../../format/index-values.js';
import { queryIndex } from '../../query/index-values.js';
import { defineRoute } from '../operation.js';
import { dateParam } from '../params.js';
import { epiResponse } from '../response-schemas.js';

/** GET /api/epi (docs/api.md). */
export const epiRoute = defineRoute({
  path: '/api/epi',
  spec: { params: { date: dateParam } },
  run: (context, params) => queryIndex(context, { index: 'epi', date: params.date }),
  json: indexJson,
  csv: indexCsv,
  docs: {
    summary: 'Electricity price index (AU) by calendar year',
    tag: 'end of day',
    description:
      "epi: for each calendar year on the curve, the mean of the four AU regions' base-load calendar-year " +
      'strip settlement prices on that date. One row per year.',
    params: { date: 'The day; default: the latest day with index values.' },
    examples: { latest: '', 'a-day': 'date={pastDay}' },
    response: epiResponse,
    csv: 'Columns date, year, epi.',
  },
  dateOf: (result) => result.date,
});
