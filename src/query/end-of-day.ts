import type { EndOfDayRow } from '../store/store.js';
import type { ContractParam, QueryContext } from './context.js';
import { contractSelection, latestPublished, requireDate, requireListed } from './resolve.js';

export interface EndOfDayParams {
  readonly code: ContractParam;
  readonly date?: string;
}

export interface EndOfDayResult {
  readonly key: 'futures' | 'options';
  readonly value: string;
  readonly date: string;
  /** By code ascending. */
  readonly rows: readonly EndOfDayRow[];
}

/**
 * End-of-day records (docs/api.md, GET /api/data). By default of the market's latest closed day (its
 * settlement
 * published); a day named by `date` is answered as far as it is published: on a day still
 * trading, settle and open interest are absent, never 0 (docs/api.md, "Which day an answer is
 * about").
 */
export async function queryEndOfDay(context: QueryContext, params: EndOfDayParams): Promise<EndOfDayResult> {
  const { reader } = context;
  const selection = contractSelection(params.code);
  const { market } = selection;
  const requested = context.access === 'historical' ? params.date : undefined;
  const date =
    requested === undefined
      ? await latestPublished(reader, market, 'settlement')
      : await requireDate(reader, { market }, requested);
  const rows = await reader.endOfDay({ date, selection });
  if (rows.length === 0) await requireListed(reader, params.code);
  return { key: params.code.name, value: params.code.text, date, rows };
}
