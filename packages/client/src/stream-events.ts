import type { MessagesParams, MessagesResponse, TickerResponse } from './openapi-types.js';
import type { SseMessage } from './sse.js';

/** The ticker kinds and message kinds a stream may select (comma-separated in `type` / `messages`). */
export type TickerKind = 'book' | 'trade' | 'settle';
export type MessageKind = 'message_board' | 'registered_trades' | 'custom_market';

/**
 * What GET /api/stream selects (docs/api.md, the event stream): exactly one of `futures`,
 * `options` (market code or any code form), `market`, or `publications: '1'` (the end-of-day
 * publication announcements, the only stream an end_of_day key may open). Market data may be
 * narrowed by `type` (ticker kinds; default all, unless only `messages` are asked for) and
 * `messages` (message kinds), each one kind or several comma-separated. `from` (HHmmss) starts
 * the current day at that time instead of its first event.
 */
export type StreamParams =
  | (MarketData &
      (
        | { futures: string; options?: never; market?: never; publications?: never }
        | { options: string; futures?: never; market?: never; publications?: never }
        | { market: string; futures?: never; options?: never; publications?: never }
      ))
  | {
      publications: '1';
      futures?: never;
      options?: never;
      market?: never;
      type?: never;
      messages?: never;
      from?: string;
    };

interface MarketData {
  type?: string;
  messages?: string;
  from?: string;
}

/** The query parameters the client sends (it resumes with the Last-Event-ID header, not a parameter). */
export const STREAM_PARAMETERS = [
  'futures',
  'options',
  'market',
  'publications',
  'type',
  'messages',
  'from',
] as const;

/** An end-of-day product of a day that became available: the answers of `operations` for `date` are now final. */
export interface Publication {
  readonly date: string;
  /** Absent for the index values (epi, npi), which are exchange-wide. */
  readonly market?: MarketCode;
  readonly published: 'settlement' | 'open_interest' | 'epi' | 'npi';
  readonly operations: readonly string[];
}

export type MarketCode = MessagesParams['market'];
export type TickerMessage = TickerResponse['data'][number];
export type BoardMessage = Extract<
  MessagesResponse,
  { type: 'message_board' | 'registered_trades' }
>['data'][number];
export type CustomMarketRecord = Extract<MessagesResponse, { type: 'custom_market' }>['data'][number];

interface EventOf<E extends string, D> {
  /** The event's position in the exchange's stream: trading date and sequence, `20261124-001234`. */
  readonly id: string;
  readonly event: E;
  /** The record the matching operation returns for it (ticker, messages). */
  readonly data: D;
}

export type StreamEvent =
  | EventOf<'book', Extract<TickerMessage, { type: 'book' }>>
  | EventOf<'trade', Extract<TickerMessage, { type: 'trade' }>>
  | EventOf<'settle', Extract<TickerMessage, { type: 'settle' }>>
  | EventOf<'message_board' | 'registered_trades', BoardMessage>
  | EventOf<'custom_market', CustomMarketRecord>
  | EventOf<'publication', Publication>;

const KINDS: ReadonlySet<string> = new Set<StreamEvent['event']>([
  'book',
  'trade',
  'settle',
  'message_board',
  'registered_trades',
  'custom_market',
  'publication',
]);

/** The typed event of a message, or undefined for a kind this version of the client does not know. */
export function toStreamEvent(message: SseMessage): StreamEvent | undefined {
  if (!KINDS.has(message.event)) return undefined;
  return { id: message.id, event: message.event, data: JSON.parse(message.data) } as StreamEvent;
}
