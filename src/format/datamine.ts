import { average } from './numbers.js';

/**
 * Datamine tables (docs/api.md, GET /api/datamine). The query layer hands over whole-unit bigints per
 * (measure, region, field); the field order differs between JSON and CSV,
 * and both orders follow from the type's futures and options classes.
 */

export interface DatamineRegionCells {
  readonly region: string;
  /** Every class cell plus block, efp (volume types), totalFutures, totalOptions and total. */
  readonly cells: Readonly<Record<string, bigint>>;
}

export interface DatamineMeasure {
  readonly name: string;
  readonly regions: readonly DatamineRegionCells[];
}

export interface DatamineLayout {
  readonly futuresClasses: readonly string[];
  readonly optionClasses: readonly string[];
  /** Volume types add block, efp and the daily average. */
  readonly volume: boolean;
}

export type DatamineAnswer =
  | {
      readonly kind: 'volume';
      readonly layout: DatamineLayout;
      readonly from: string;
      readonly to: string;
      readonly tradingDays: number;
      readonly measures: readonly DatamineMeasure[];
    }
  | {
      readonly kind: 'open-interest';
      readonly layout: DatamineLayout;
      readonly date: string;
      readonly measures: readonly DatamineMeasure[];
    };

const AVERAGE = 'average';

function jsonFields(layout: DatamineLayout): string[] {
  return [
    ...layout.futuresClasses,
    ...layout.optionClasses,
    ...(layout.volume ? ['block', 'efp'] : []),
    'totalFutures',
    'totalOptions',
    'total',
    ...(layout.volume ? [AVERAGE] : []),
  ];
}

function csvFields(layout: DatamineLayout): string[] {
  return [
    ...layout.futuresClasses,
    'totalFutures',
    ...layout.optionClasses,
    'totalOptions',
    'total',
    ...(layout.volume ? [AVERAGE, 'block', 'efp'] : []),
  ];
}

function cellText(cells: Readonly<Record<string, bigint>>, field: string, tradingDays: number): string {
  if (field === AVERAGE) return average(cells.total ?? 0n, tradingDays);
  return String(cells[field] ?? 0n);
}

function daysOf(answer: DatamineAnswer): number {
  return answer.kind === 'volume' ? answer.tradingDays : 0;
}

export function datamineJson(answer: DatamineAnswer): string {
  const fields = jsonFields(answer.layout);
  const days = daysOf(answer);
  let data = '{';
  answer.measures.forEach((measure, m) => {
    if (m > 0) data += ',';
    data += `"${measure.name}":{`;
    measure.regions.forEach((region, r) => {
      if (r > 0) data += ',';
      data += `"${region.region}":{`;
      fields.forEach((field, f) => {
        if (f > 0) data += ',';
        data += `"${field}":"${cellText(region.cells, field, days)}"`;
      });
      data += '}';
    });
    data += '}';
  });
  data += '}';
  if (answer.kind === 'open-interest') return `{"date":"${answer.date}","data":${data}}`;
  return `{"from":"${answer.from}","to":"${answer.to}","tradingDays":${answer.tradingDays},"data":${data}}`;
}

/** One section per measure: its name, a `state` header, one row per region; blank line between. */
export function datamineCsv(answer: DatamineAnswer): string {
  const fields = csvFields(answer.layout);
  const header = `state,${fields.join(',')}\n`;
  const days = daysOf(answer);
  return answer.measures
    .map((measure) => {
      let section = `${measure.name}\n${header}`;
      for (const region of measure.regions) {
        section += region.region;
        for (const field of fields) section += `,${cellText(region.cells, field, days)}`;
        section += '\n';
      }
      return section;
    })
    .join('\n');
}

/**
 * The tidy alternative (`layout=long`) for BI tools, which read the sectioned form as one
 * column: one row per measure, region and field, under one header, the range (volume types)
 * or the day (au-oi) on every row so that answers can be stacked. Fields in the CSV order.
 */
export function datamineLongCsv(answer: DatamineAnswer): string {
  const fields = csvFields(answer.layout);
  const days = daysOf(answer);
  const dates = answer.kind === 'volume' ? `${answer.from},${answer.to},` : `${answer.date},`;
  let csv =
    answer.kind === 'volume' ? 'from,to,measure,state,field,value\n' : 'date,measure,state,field,value\n';
  for (const measure of answer.measures) {
    for (const region of measure.regions) {
      const prefix = `${dates}${measure.name},${region.region},`;
      for (const field of fields) csv += `${prefix}${field},${cellText(region.cells, field, days)}\n`;
    }
  }
  return csv;
}
