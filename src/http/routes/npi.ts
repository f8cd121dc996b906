import { indexCsv, indexJson } from '../../format/index-values.js';
import { queryIndex } from '../../query/index-values.js';
import { defineRoute } from '../operation.js';
import { dateParam } from '../params.js';
import { npiResponse } from '../response-schemas.js';

/** GET /api/npi (docs/api.md). */
export const npiRoute = defineRoute({
  path: '/api/npi',
  spec: { params: { date: dateParam } },
  run: (context, params) => queryIndex(context, { index: 'npi', date: params.date }),
  json: indexJson,
  csv: indexCsv,
  docs: {
    summary: 'Electricity price index (NZ) by calendar year',
    tag: 'end of day',
    description:
      'npi: for each calendar year on the curve, the mean of the Otahuhu and Benmore base-load ' +
      'calendar-year strip settlement prices on that date. One row per year.',
    params: { date: 'The day; default: the latest day with index values.' },
    examples: { latest: '', 'a-day-csv': 'date={earlierDay}&format=csv' },
    response: npiResponse,
    csv: 'Columns date, year, npi.',
  },
  dateOf: (result) => result.date,
});
