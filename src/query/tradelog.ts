import { rescaleDown } from '../domain/decimal.js';
import { isElectricity } from '../domain/markets.js';
import type { TradeRow } from '../store/store.js';
import type { QueryContext, TradeScopeParam } from './context.js';
import { latestPublished, requireDate, requireListed, tradeSelection } from './resolve.js';

export interface TradeLogParams {
  readonly scope: TradeScopeParam;
  readonly date?: string;
}

export interface TradeLogSummary {
  readonly trades: number;
  readonly volume: number;
  readonly mwhTenths: number;
  /**
   * Sum of the rows' displayed (rounded) face values, so the summary adds up. bigint: a day of
   * trades at the feed's limits passes 2^53 cents (docs/feed-format.md).
   */
  readonly faceValueCents: bigint;
}

export interface TradeLogResult {
  readonly date: string;
  /** Electricity rows carry hours and face value (docs/api.md, GET /api/tradelog). */
  readonly electricity: boolean;
  readonly summary: TradeLogSummary;
  /** In time order. */
  readonly rows: readonly TradeRow[];
}

/**
 * A day's trade log (docs/api.md, GET /api/tradelog). The latest available date is the market's latest
 * closed day, for
 * both access levels (docs/api.md, "Which day an answer is about"): the live day's trades are
 * the intraday operations' (trades, ticker); a historical key may still name the live day.
 */
export async function queryTradeLog(context: QueryContext, params: TradeLogParams): Promise<TradeLogResult> {
  const { reader } = context;
  const { market, selection } = tradeSelection(params.scope);
  const requested = context.access === 'historical' ? params.date : undefined;
  const date =
    requested === undefined
      ? await latestPublished(reader, market, 'settlement')
      : await requireDate(reader, { market }, requested);
  const rows = await reader.tradeLog({ date, selection });
  if (rows.length === 0) await requireListed(reader, params.scope);
  let volume = 0;
  // at most 10^6 trades a day of 87,840 tenths x 10^4 lots: below 2^53 (docs/feed-format.md)
  let mwhTenths = 0;
  let faceValueCents = 0n;
  for (const row of rows) {
    volume += row.volume;
    mwhTenths += row.mwhTenths ?? 0;
    // The summary adds the rows' displayed face values, so a reader's sum of the rows matches.
    if (row.faceValueMillis !== null) faceValueCents += BigInt(rescaleDown(row.faceValueMillis, 1));
  }
  return {
    date,
    electricity: isElectricity(market),
    summary: { trades: rows.length, volume, mwhTenths, faceValueCents },
    rows,
  };
}
