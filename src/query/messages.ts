import type { MarketCode } from '../domain/markets.js';
import type { MessageBoard } from '../feed/events.js';
import type { CustomMarketRow, MessageRow } from '../store/store.js';
import type { QueryContext } from './context.js';
import { currentDay } from './resolve.js';

export type MessagesType = MessageBoard | 'custom_market';
export const MESSAGES_TYPES: readonly MessagesType[] = [
  'message_board',
  'registered_trades',
  'custom_market',
];

export interface MessagesParams {
  readonly market: MarketCode;
  readonly type: MessagesType;
  readonly from?: string;
}

export type MessagesResult =
  | {
      readonly market: MarketCode;
      readonly type: MessageBoard;
      readonly date: string;
      readonly rows: readonly MessageRow[];
    }
  | {
      readonly market: MarketCode;
      readonly type: 'custom_market';
      readonly rows: readonly CustomMarketRow[];
    };

/** Messages of the current day, newest first. */
export async function queryMessages(context: QueryContext, params: MessagesParams): Promise<MessagesResult> {
  const { reader } = context;
  const date = await currentDay(reader);
  const { market, type, from } = params;
  const window = from === undefined ? {} : { from };
  if (type === 'custom_market') {
    return { market, type, rows: await reader.customMarkets({ date, market, ...window }) };
  }
  return { market, type, date, rows: await reader.messages({ date, market, board: type, ...window }) };
}
