import { indexCsv, indexJson } from '../../format/index-values.js';
import { queryIndex } from '../../query/index-values.js';
import { defineRoute } from '../operation.js';
import { dateParam } from '../params.js';

/** GET /api/npi (spec 4.3). */
export const npiRoute = defineRoute({
  path: '/api/npi',
  spec: { params: { date: dateParam } },
  run: (context, params) => queryIndex(context, { index: 'npi', date: params.date }),
  json: indexJson,
  csv: indexCsv,
});
