import type { IndexName } from '../feed/events.js';
import type { IndexRow } from '../store/store.js';
import type { QueryContext } from './context.js';
import { latestDateOf, requireDate } from './resolve.js';

export interface IndexParams {
  readonly index: IndexName;
  readonly date?: string;
}

export interface IndexResult {
  readonly index: IndexName;
  readonly date: string;
  readonly rows: readonly IndexRow[];
}

/**
 * epi and npi (docs/api.md, GET /api/epi and GET /api/npi): one row per curve year. An index's dates are
 * those with values
 * published (after the close), so its latest date is never a day still trading.
 */
export async function queryIndex(context: QueryContext, params: IndexParams): Promise<IndexResult> {
  const { reader } = context;
  const scope = { index: params.index };
  const requested = context.access === 'historical' ? params.date : undefined;
  const date =
    requested === undefined ? await latestDateOf(reader, scope) : await requireDate(reader, scope, requested);
  return { index: params.index, date, rows: await reader.indexValues({ index: params.index, date }) };
}
