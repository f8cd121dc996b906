/**
 * The exchange event feed: one JSON object per line (NDJSON). This is the single source of
 * truth; every view the API publishes is derived from it. docs/feed-format.md documents it for
 * operators. Field names follow the API's snake_case; decimals are strings (exact), counts are
 * JSON integers.
 *
 * Identity: (date, seq) names an event. seq is unique within a trading date and increases in
 * the order the exchange published the events; replaying an event with a known (date, seq) and
 * identical content adds nothing, with different content it is rejected.
 */

export type TradeType = 'N' | 'Z' | 'B' | 'E';
export const TRADE_TYPES: readonly TradeType[] = ['N', 'Z', 'B', 'E'];
export type MessageBoard = 'message_board' | 'registered_trades';
export type IndexName = 'epi' | 'npi';

interface EventBase {
  /** Trading date, yyyyMMdd, Sydney time. */
  readonly date: string;
  /** Position in the day's stream, 1, 2, 3, ... */
  readonly seq: number;
  /** HHmmss, Sydney time. */
  readonly time: string;
}

/** Best bid and offer of a contract after a change. A side may be absent (null). */
export interface BookEvent extends EventBase {
  readonly type: 'book';
  readonly code: string;
  readonly bid: string | null;
  readonly bid_size: number | null;
  readonly ask: string | null;
  readonly ask_size: number | null;
}

/**
 * A trade. trade_type: N normal (on screen, or a strip), Z strip leg at its allocated price,
 * B block trade (negotiated off screen, registered), E exchange for physical.
 * group links a strip to its legs (same non-empty value on the strip row and its legs).
 */
export interface TradeEvent extends EventBase {
  readonly type: 'trade';
  readonly code: string;
  readonly price: string;
  readonly volume: number;
  readonly trade_type: TradeType;
  readonly block: boolean;
  readonly group?: string;
}

/** Daily settlement price, published at the close; options also carry implied volatility (%). */
export interface SettleEvent extends EventBase {
  readonly type: 'settle';
  readonly code: string;
  readonly settle: string;
  /** Unix time in seconds of the publication. */
  readonly published_at: number;
  readonly implied_volatility?: string;
}

/** Open interest at the close, for every listed contract (0 included). */
export interface OpenInterestEvent extends EventBase {
  readonly type: 'open_interest';
  readonly code: string;
  readonly open_interest: number;
}

/** A message board entry (RFQs, block trade notices) or a registered-trade message. */
export interface MessageEvent extends EventBase {
  readonly type: 'message';
  readonly market: string;
  readonly board: MessageBoard;
  readonly text: string;
}

export interface CustomMarketLeg {
  readonly price: string;
  readonly ratio: string;
}

/** A user-defined multi-leg market (1 to 6 legs). */
export interface CustomMarketEvent extends EventBase {
  readonly type: 'custom_market';
  readonly market: string;
  readonly contract: string;
  readonly net: string;
  readonly size: number;
  readonly legs: readonly CustomMarketLeg[];
}

/** A price index value for one calendar year (epi: AU, npi: NZ). */
export interface IndexEvent extends EventBase {
  readonly type: 'index';
  readonly index: IndexName;
  readonly year: number;
  readonly value: string;
}

export type FeedEvent =
  | BookEvent
  | TradeEvent
  | SettleEvent
  | OpenInterestEvent
  | MessageEvent
  | CustomMarketEvent
  | IndexEvent;

export type FeedEventType = FeedEvent['type'];
