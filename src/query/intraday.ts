import type { IntradayRow } from '../store/store.js';
import type { ContractParam, QueryContext } from './context.js';
import { contractSelection, currentDay, requireListed } from './resolve.js';

export interface IntradayParams {
  readonly code: ContractParam;
}

export interface IntradayResult {
  readonly key: 'futures' | 'options';
  readonly value: string;
  /** By code ascending. */
  readonly rows: readonly IntradayRow[];
}

/**
 * Per-contract snapshot of the current day (docs/api.md, GET /api/intraday; docs/market-rules.md, intraday
 * values).
 */
export async function queryIntraday(context: QueryContext, params: IntradayParams): Promise<IntradayResult> {
  const { reader } = context;
  const selection = contractSelection(params.code);
  const rows = await reader.intraday({ date: await currentDay(reader), selection });
  if (rows.length === 0) await requireListed(reader, params.code);
  return { key: params.code.name, value: params.code.text, rows };
}
