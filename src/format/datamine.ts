import type { DatamineLayoutView, DatamineResult } from '../query/datamine.js';
import { average } from './numbers.js';

/**
 * Datamine tables (docs/api.md, GET /api/datamine). The query layer hands over whole-unit bigints per
 * (measure, region, field); the field order differs between JSON and CSV,
 * and both orders follow from the type's futures and options classes.
 */

const AVERAGE = 'average';

function jsonFields(layout: DatamineLayoutView): string[] {
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

function csvFields(layout: DatamineLayoutView): string[] {
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

function daysOf(answer: DatamineResult): number {
  return answer.kind === 'volume' ? answer.tradingDays : 0;
}

export function datamineJson(answer: DatamineResult): string {
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
export function datamineCsv(answer: DatamineResult): string {
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
export function datamineLongCsv(answer: DatamineResult): string {
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
