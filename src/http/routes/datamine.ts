import { datamineCsv, datamineJson } from '../../format/datamine.js';
import { DATAMINE_TYPES, datamineParamIssues, queryDatamine } from '../../query/datamine.js';
import { defineRoute } from '../operation.js';
import { dateParam, enumParam, theOne } from '../params.js';

/** GET /api/datamine (spec 4.9). from and to are dates here, so end_of_day ignores them too. */
export const datamineRoute = defineRoute({
  path: '/api/datamine',
  spec: {
    params: { type: enumParam(DATAMINE_TYPES), from: dateParam, to: dateParam, date: dateParam },
    required: ['type'],
    check: (params) =>
      params.type === undefined
        ? []
        : datamineParamIssues({ type: params.type, from: params.from, to: params.to, date: params.date }),
  },
  run: (context, params) =>
    queryDatamine(context, {
      type: theOne(params.type),
      from: params.from,
      to: params.to,
      date: params.date,
    }),
  json: datamineJson,
  csv: datamineCsv,
});
