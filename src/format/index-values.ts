import type { IndexName } from '../feed/events.js';
import type { IndexResult } from '../query/index-values.js';
import type { IndexRow } from '../store/store.js';
import { price } from './numbers.js';
import { csvTable, jsonArray, recordForm } from './records.js';

function form(index: IndexName) {
  return recordForm<IndexRow>([
    { name: 'date', cell: (row) => row.date },
    { name: 'year', cell: (row) => String(row.year) },
    { name: index, cell: (row) => price(row.valueCents) },
  ]);
}

export const FORMS = { epi: form('epi'), npi: form('npi') } as const;

export function indexJson(answer: IndexResult): string {
  return `{"date":"${answer.date}","data":${jsonArray(FORMS[answer.index], answer.rows, 'empty')}}`;
}

export function indexCsv(answer: IndexResult): string {
  return csvTable(FORMS[answer.index], answer.rows);
}
