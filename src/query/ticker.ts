import { type ExchangeClock, exchangeNow } from '../domain/exchange-clock.js';
import type { TickerRow } from '../store/store.js';
import type { ContractParam, QueryContext } from './context.js';
import { invalidParameters, type ParamIssue } from './errors.js';
import { contractSelection, currentDay, requireDate, requireListed } from './resolve.js';

export type TickerType = 'book' | 'trade' | 'settle';
export const TICKER_TYPES: readonly TickerType[] = ['book', 'trade', 'settle'];

export interface TickerParams {
  readonly code: ContractParam;
  readonly type?: TickerType;
  /** A past day's whole ticker; from and to are then disregarded (docs/api.md, GET /api/ticker). */
  readonly date?: string;
  readonly from?: string;
  readonly to?: string;
}

export interface TickerResult {
  /** The code parameter that was sent, echoed as the envelope's first field. */
  readonly key: 'futures' | 'options';
  readonly value: string;
  readonly date: string;
  /** The effective window, echoed. */
  readonly from: string;
  readonly to: string;
  /** Newest first. */
  readonly rows: readonly TickerRow[];
}

const DAY_START = '000000';
const DAY_END = '235959';

/** Cross-parameter rules that need no data: an explicit window must not be inverted. */
export function tickerParamIssues(params: Pick<TickerParams, 'from' | 'to' | 'date'>): ParamIssue[] {
  if (params.date === undefined && params.from !== undefined && params.to !== undefined) {
    if (params.from > params.to)
      return [{ parameter: 'from', message: `from ${params.from} is after to ${params.to}` }];
  }
  return [];
}

export async function queryTicker(context: QueryContext, params: TickerParams): Promise<TickerResult> {
  const { reader } = context;
  const selection = contractSelection(params.code);
  const date = context.access === 'historical' ? params.date : undefined;
  let day: string;
  let from: string;
  let to: string;
  if (date !== undefined) {
    day = await requireDate(reader, { market: selection.market }, date);
    from = DAY_START;
    to = DAY_END;
  } else {
    const issues = tickerParamIssues(params);
    if (issues.length > 0) throw invalidParameters(issues);
    day = await currentDay(reader);
    from = params.from ?? DAY_START;
    // On a live day the window ends at the exchange clock's time (docs/api.md, GET /api/ticker).
    to = params.to ?? defaultTo(day, context.clock);
  }
  const rows = await reader.ticker({
    date: day,
    selection,
    from,
    to,
    ...(params.type ? { type: params.type } : {}),
  });
  if (rows.length === 0) await requireListed(reader, params.code);
  return { key: params.code.name, value: params.code.text, date: day, from, to, rows };
}

function defaultTo(day: string, clock: ExchangeClock): string {
  const now = exchangeNow(clock);
  return now.date === day ? now.time : DAY_END;
}
