import { indexCsv, indexJson } from '../../format/index-values.js';
import { queryIndex } from '../../query/index-values.js';
import { defineRoute } from '../operation.js';
import { dateParam } from '../params.js';

/** GET /api/epi (spec 4.2). */
export const epiRoute = defineRoute({
  path: '/api/epi',
  spec: { params: { date: dateParam } },
  run: (context, params) => queryIndex(context, { index: 'epi', date: params.date }),
  json: indexJson,
  csv: indexCsv,
});
