import { rescaleDown } from '../domain/decimal.js';
import { isElectricity } from '../domain/markets.js';
import type { TradeRow } from '../store/store.js';
import type { QueryContext, TradeScopeParam } from './context.js';
import { latestDateOf, requireDate, requireListed, tradeSelection } from './resolve.js';

export interface TradeLogParams {
  readonly scope: TradeScopeParam;
  readonly date?: string;
}

export interface TradeLogResult {
  readonly date: string;
  readonly electricity: boolean;
  readonly summary: {
    readonly trades: number;
    readonly volume: number;
    readonly mwhTenths: number;
    readonly faceValueCents: number;
  };
  /** In time order. */
  readonly rows: TradeRow[];
}

export async function queryTradeLog(context: QueryContext, params: TradeLogParams): Promise<TradeLogResult> {
  const { reader } = context;
  const { market, selection } = tradeSelection(params.scope);
  const requested = context.access === 'historical' ? params.date : undefined;
  const date =
    requested === undefined
      ? await latestDateOf(reader, { market })
      : await requireDate(reader, { market }, requested);
  const rows = await reader.tradeLog({ date, selection });
  if (rows.length === 0) await requireListed(reader, params.scope);
  let volume = 0;
  let mwhTenths = 0;
  let faceValueCents = 0;
  for (const row of rows) {
    volume += row.volume;
    mwhTenths += row.mwhTenths ?? 0;
    // The summary adds the rows' displayed face values, so a reader's sum of the rows matches.
    if (row.faceValueMillis !== null) faceValueCents += rescaleDown(row.faceValueMillis, 1);
  }
  return {
    date,
    electricity: isElectricity(market),
    summary: { trades: rows.length, volume, mwhTenths, faceValueCents },
    rows,
  };
}
