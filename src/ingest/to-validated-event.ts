import type { Contract } from '../domain/contract.js';
import { parseScaled } from '../domain/decimal.js';
import type { MarketCode } from '../domain/markets.js';
import type { FeedEvent } from '../feed/events.js';
import { formatFeedEvent } from '../feed/ndjson.js';
import type { ValidatedEvent } from '../store/store.js';

/**
 * A canonical, validated feed event (feed/validate.ts) in the store's terms: amounts scaled,
 * contract parsed, and its canonical line. Validation has already refused anything these
 * conversions could trip on, so a failure here is a programming error.
 */
export function toValidatedEvent(event: FeedEvent, contract: Contract | undefined): ValidatedEvent {
  const line = formatFeedEvent(event);
  const { date, seq, time } = event;
  switch (event.type) {
    case 'book':
      return {
        type: 'book',
        date,
        seq,
        time,
        line,
        contract: need(contract),
        bidCents: event.bid === null ? null : cents(event.bid),
        bidSize: event.bid_size,
        askCents: event.ask === null ? null : cents(event.ask),
        askSize: event.ask_size,
      };
    case 'trade':
      return {
        type: 'trade',
        date,
        seq,
        time,
        line,
        contract: need(contract),
        priceCents: cents(event.price),
        volume: event.volume,
        tradeType: event.trade_type,
        block: event.block,
        group: event.group ?? null,
      };
    case 'settle':
      return {
        type: 'settle',
        date,
        seq,
        time,
        line,
        contract: need(contract),
        settleCents: cents(event.settle),
        publishedAt: event.published_at,
        impliedVolatility: event.implied_volatility === undefined ? null : cents(event.implied_volatility),
      };
    case 'open_interest':
      return {
        type: 'open_interest',
        date,
        seq,
        time,
        line,
        contract: need(contract),
        openInterest: event.open_interest,
      };
    case 'message':
      return {
        type: 'message',
        date,
        seq,
        time,
        line,
        market: event.market as MarketCode,
        board: event.board,
        text: event.text,
      };
    case 'custom_market':
      return {
        type: 'custom_market',
        date,
        seq,
        time,
        line,
        market: event.market as MarketCode,
        contract: event.contract,
        netCents: cents(event.net),
        size: event.size,
        legs: event.legs.map((leg) => ({ priceCents: cents(leg.price), ratioHundredths: cents(leg.ratio) })),
      };
    case 'index':
      return {
        type: 'index',
        date,
        seq,
        time,
        line,
        index: event.index,
        year: event.year,
        valueCents: cents(event.value),
      };
  }
}

/**
 * Canonical two-decimal text to hundredths (cents for prices, hundredths for volatility and
 * ratios). Validation made every decimal canonical ("-12.50", "0.05"), so dropping the point
 * is exact; anything else is refused rather than guessed.
 */
function cents(text: string): number {
  const point = text.length - 3;
  const value =
    text.charCodeAt(point) === 46 ? Number(text.slice(0, point) + text.slice(point + 1)) : Number.NaN;
  if (!Number.isSafeInteger(value)) return strictCents(text);
  return value;
}

function strictCents(text: string): number {
  const value = parseScaled(text, 2);
  if (value === undefined) throw new Error(`unvalidated decimal reached the store: ${text}`);
  return value;
}

function need(contract: Contract | undefined): Contract {
  if (!contract) throw new Error('unvalidated contract event reached the store');
  return contract;
}
