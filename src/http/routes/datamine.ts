import { datamineCsv, datamineJson, datamineLongCsv } from '../../format/datamine.js';
import { DATAMINE_TYPES, datamineParamIssues, queryDatamine } from '../../query/datamine.js';
import { defineRoute } from '../operation.js';
import { dateParam, enumParam, theOne } from '../params.js';
import { datamineResponse } from '../response-schemas.js';

/** The CSV forms: the specification's sections, or one tidy table (format/datamine.ts). */
export const DATAMINE_CSV_LAYOUTS = ['sections', 'long'] as const;

/** GET /api/datamine (docs/api.md). from and to are dates here, so end_of_day ignores them too. */
export const datamineRoute = defineRoute({
  path: '/api/datamine',
  spec: {
    params: {
      type: enumParam(DATAMINE_TYPES),
      from: dateParam,
      to: dateParam,
      date: dateParam,
      layout: enumParam(DATAMINE_CSV_LAYOUTS),
    },
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
  csv: (result, params) => (params.layout === 'long' ? datamineLongCsv(result) : datamineCsv(result)),
  docs: {
    summary: 'Exchange statistics: volume and open interest by region',
    tag: 'statistics',
    description:
      'Measures by region and product class. Volume types (`au-volume`, `nz-volume`) sum trades over ' +
      '`from`-`to` (at most 366 days apart) and add block, efp and the daily `average`; `au-oi` gives open ' +
      'interest at the close of `date`. Each cell is rounded half up to whole units; totals add the displayed ' +
      'cells. Sending `from`/`to` with `au-oi`, or `date` with a volume type, is a 400. A volume range ' +
      "wholly before the market's history or after its latest day is a 404 naming the nearest day with " +
      'data; one inside the history without a trading day (a weekend) is answered with zeros.',
    params: {
      type: 'The statistics.',
      from: 'Volume types: first day (inclusive); default 365 days before `to`.',
      to: "Volume types: last day (inclusive); default the market's latest closed day.",
      date:
        'au-oi: the day; default the latest day whose open interest is published (after the close); a day ' +
        'without it is a 404 naming the nearest one.',
      layout:
        "The CSV form: `sections` (default, the specification's: one section per measure) or `long` (one " +
        'row per measure, region and field under one header, for pandas, DuckDB and BI tools). JSON is ' +
        'the same either way.',
    },
    examples: {
      'nz-volume': 'type=nz-volume',
      'au-volume': 'type=au-volume&from={earlierDay}&to={latestDay}',
      'au-oi': 'type=au-oi&date={pastDay}',
      'au-oi-long-csv': 'type=au-oi&layout=long&format=csv',
    },
    response: datamineResponse,
    csv:
      'One section per measure (its name, a `state` header, one row per region), a blank line between ' +
      'sections; with `layout=long` one table `from,to,measure,state,field,value` (au-oi: ' +
      '`date,measure,state,field,value`).',
  },
  dateOf: (result) => (result.kind === 'volume' ? result.to : result.date),
  firstDateOf: (result) => (result.kind === 'volume' ? result.from : result.date),
});
