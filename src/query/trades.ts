import type { TradeRow } from '../store/store.js';
import type { QueryContext, TradeScopeParam } from './context.js';
import { currentDay, requireListed, tradeSelection } from './resolve.js';

export interface TradesParams {
  readonly scope: TradeScopeParam;
  readonly from?: string;
}

export interface TradesResult {
  readonly key: 'market' | 'futures' | 'options';
  readonly value: string;
  readonly date: string;
  /** HHmmss of the selection's latest trade of the day, "" when none. */
  readonly lastTrade: string;
  /** HHmmss of the market's latest event of the day, "" when none. */
  readonly lastUpdate: string;
  /** Newest first. */
  readonly rows: readonly TradeRow[];
}

/** Intraday trades of the current day (docs/api.md, common rules: "Current day"). */
export async function queryTrades(context: QueryContext, params: TradesParams): Promise<TradesResult> {
  const { reader } = context;
  const { market, selection } = tradeSelection(params.scope);
  const date = await currentDay(reader);
  const { from } = params;
  const rows = await reader.trades({ date, selection, ...(from === undefined ? {} : { from }) });
  if (rows.length === 0) await requireListed(reader, params.scope);
  // With nothing since `from`, the selection's latest trade may still be earlier in the day.
  const lastTrade =
    from === undefined || rows.length > 0
      ? rows[0]?.time
      : (await reader.trades({ date, selection }))[0]?.time;
  return {
    key: params.scope.name,
    value: params.scope.text,
    date,
    lastTrade: lastTrade ?? '',
    lastUpdate: (await reader.lastUpdate({ date, market })) ?? '',
    rows,
  };
}
