import type { MessagesResponse, TickerResponse } from './openapi-types.js';
import type { SseMessage } from './sse.js';

/**
 * What GET /api/stream selects (docs/api.md, the event stream): like the ticker, one of
 * `futures`, `options` (market or any code form) or `market`, optionally narrowed by `type`
 * (ticker kinds) and `messages` (message kinds), both comma-separated; or `publications: 1`
 * for the end-of-day publication announcements. `from` (HHmmss) starts the current day there.
 */
export type StreamParams =
  | ((
      | { futures: string; options?: never; market?: never }
      | { options: string; futures?: never; market?: never }
      | { market: string; futures?: never; options?: never }
    ) & {
      type?: string;
      messages?: string;
      from?: string;
      publications?: never;
    })
  | {
      publications: 1 | '1';
      futures?: never;
      options?: never;
      market?: never;
      type?: never;
      messages?: never;
      from?: string;
    };

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
  | EventOf<'book' | 'trade' | 'settle', TickerMessage>
  | EventOf<'message_board' | 'registered_trades', BoardMessage>
  | EventOf<'custom_market', CustomMarketRecord>
  | EventOf<'publication', Record<string, unknown>>;

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
