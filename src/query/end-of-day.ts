import type { Selection } from '../domain/codes.js';
import type { EndOfDayRow, MarketReader } from '../store/store.js';
import type { ContractParam, QueryContext } from './context.js';
import { contractSelection, latestDateOf, requireDate, requireListed } from './resolve.js';

export interface EndOfDayParams {
  readonly code: ContractParam;
  readonly date?: string;
}

export interface EndOfDayResult {
  readonly key: 'futures' | 'options';
  readonly value: string;
  readonly date: string;
  /** By code ascending. */
  readonly rows: EndOfDayRow[];
}

const SETTLE_WINDOW = { from: '000000', to: '235959' } as const;

/** End-of-day records (spec 4.7); by default of the market's latest settled date. */
export async function queryEndOfDay(context: QueryContext, params: EndOfDayParams): Promise<EndOfDayResult> {
  const { reader } = context;
  const selection = contractSelection(params.code);
  const scope = { market: selection.market };
  const requested = context.access === 'historical' ? params.date : undefined;
  let date: string;
  let rows: EndOfDayRow[];
  if (requested !== undefined) {
    date = await requireDate(reader, scope, requested);
    rows = await reader.endOfDay({ date, selection });
  } else {
    date = await latestDateOf(reader, scope);
    rows = await reader.endOfDay({ date, selection });
    if (!(await isSettled(reader, selection, date, rows))) {
      // The live day is in progress: answer with the last day whose settlement is published.
      const dates = await reader.dates(scope);
      const previous = dates[dates.lastIndexOf(date) - 1];
      if (previous !== undefined) {
        date = previous;
        rows = await reader.endOfDay({ date, selection });
      }
    }
  }
  if (rows.length === 0) await requireListed(reader, params.code);
  return { key: params.code.name, value: params.code.text, date, rows };
}

/**
 * Whether the settlement of `date` is published in the selection's market. The selection's own
 * rows answer it cheaply in the usual case; only when none of them is settled (a live day, or
 * contracts without a settle) do we look for any settle message of the market.
 */
async function isSettled(
  reader: MarketReader,
  selection: Selection,
  date: string,
  rows: EndOfDayRow[],
): Promise<boolean> {
  if (rows.some((row) => row.settleCents !== null)) return true;
  const futures: Selection = { instrument: 'future', market: selection.market };
  return (await reader.ticker({ date, selection: futures, type: 'settle', ...SETTLE_WINDOW })).length > 0;
}
