import { formatScaled, PRICE_SCALE } from '../../domain/decimal.js';
import type { CustomMarketLeg, FeedEvent, IndexName, MessageBoard, TradeType } from '../events.js';

/** Seconds of the day at which the session opens (10:00:00). */
export const OPEN_SECOND = 10 * 3600;

const TIMES = new Map<number, string>();

/** HHmmss of a second of the session (0 = 10:00:00); memoised, as every event needs one. */
export function sessionTime(second: number): string {
  let time = TIMES.get(second);
  if (time === undefined) {
    time = formatTime(OPEN_SECOND + second);
    TIMES.set(second, time);
  }
  return time;
}

function formatTime(total: number): string {
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  return [hours, minutes, seconds].map((part) => String(part).padStart(2, '0')).join('');
}

export function cents(value: number): string {
  return formatScaled(value, PRICE_SCALE);
}

/**
 * A day's events in publication order. Callers append in time order; the log numbers them
 * (seq 1, 2, 3, ...) and formats prices from integer cents, so no float reaches the feed.
 */
export class EventLog {
  readonly events: FeedEvent[] = [];
  private lastSecond = 0;

  constructor(private readonly date: string) {}

  /** Checks the time order and returns the next seq. */
  private next(second: number): number {
    if (second < this.lastSecond) throw new Error(`events out of time order at second ${second}`);
    this.lastSecond = second;
    return this.events.length + 1;
  }

  book(second: number, code: string, quote: Quote): void {
    this.events.push({
      date: this.date,
      seq: this.next(second),
      time: sessionTime(second),
      type: 'book',
      code,
      bid: cents(quote.bid),
      bid_size: quote.bidSize,
      ask: cents(quote.ask),
      ask_size: quote.askSize,
    });
  }

  trade(
    second: number,
    code: string,
    priceCents: number,
    volume: number,
    tradeType: TradeType,
    group?: string,
  ): void {
    this.events.push({
      date: this.date,
      seq: this.next(second),
      time: sessionTime(second),
      type: 'trade',
      code,
      price: cents(priceCents),
      volume,
      trade_type: tradeType,
      block: tradeType === 'B',
      ...(group === undefined ? {} : { group }),
    });
  }

  settle(
    second: number,
    code: string,
    settleCents: number,
    publishedAt: number,
    volatilityBasisPoints?: number,
  ) {
    this.events.push({
      date: this.date,
      seq: this.next(second),
      time: sessionTime(second),
      type: 'settle',
      code,
      settle: cents(settleCents),
      published_at: publishedAt,
      ...(volatilityBasisPoints === undefined ? {} : { implied_volatility: cents(volatilityBasisPoints) }),
    });
  }

  openInterest(second: number, code: string, openInterest: number): void {
    this.events.push({
      date: this.date,
      seq: this.next(second),
      time: sessionTime(second),
      type: 'open_interest',
      code,
      open_interest: openInterest,
    });
  }

  message(second: number, market: string, board: MessageBoard, text: string): void {
    this.events.push({
      date: this.date,
      seq: this.next(second),
      time: sessionTime(second),
      type: 'message',
      market,
      board,
      text,
    });
  }

  customMarket(
    second: number,
    market: string,
    contract: string,
    netCents: number,
    size: number,
    legs: readonly CustomMarketLeg[],
  ): void {
    this.events.push({
      date: this.date,
      seq: this.next(second),
      time: sessionTime(second),
      type: 'custom_market',
      market,
      contract,
      net: cents(netCents),
      size,
      legs,
    });
  }

  index(second: number, index: IndexName, year: number, valueCents: number): void {
    this.events.push({
      date: this.date,
      seq: this.next(second),
      time: sessionTime(second),
      type: 'index',
      index,
      year,
      value: cents(valueCents),
    });
  }
}

/** Best bid and offer in whole cents, sizes in lots. */
export interface Quote {
  readonly bid: number;
  readonly bidSize: number;
  readonly ask: number;
  readonly askSize: number;
}
