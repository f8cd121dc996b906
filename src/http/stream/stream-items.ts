import { type Selection, selects } from '../../domain/codes.js';
import type { Contract } from '../../domain/contract.js';
import { isElectricity, type MarketCode } from '../../domain/markets.js';
import { parseFeedLine } from '../../feed/ndjson.js';
import { customMarketRecordJson, messageRecordJson } from '../../format/messages.js';
import { tickerRecordJson } from '../../format/ticker.js';
import { toValidatedEvent } from '../../ingest/to-validated-event.js';
import type { MessagesType } from '../../query/messages.js';
import type { TickerType } from '../../query/ticker.js';
import type { StoredEvent, TickerRow, ValidatedEvent } from '../../store/store.js';
import { formatEventId, type StreamPosition } from './event-id.js';
import { sseEvent } from './sse.js';

/**
 * One stored event on its way to stream clients: parsed once, and its frame (the SSE text)
 * written once however many clients receive it. A frame's data is exactly the record the
 * operation serving that kind of event returns (format/ticker.ts, format/messages.ts).
 */
export class StreamItem implements StreamPosition {
  #frame: string | null | undefined;

  constructor(
    readonly date: string,
    readonly seq: number,
    readonly event: ValidatedEvent,
  ) {}

  static fromStored(date: string, stored: StoredEvent): StreamItem {
    const parsed = parseFeedLine(stored.line, stored.seq);
    // Stored lines were validated at ingest: one that no longer parses is a corrupt store.
    if (!parsed.ok) throw new Error(`stored event ${date}-${stored.seq} does not parse: ${parsed.reason}`);
    return new StreamItem(date, stored.seq, toValidatedEvent(parsed.event, parsed.contract));
  }

  get id(): string {
    return formatEventId(this);
  }

  /** The market-data frame; null for events no market-data stream carries (open interest, index). */
  frame(): string | null {
    if (this.#frame === undefined) this.#frame = marketFrame(this);
    return this.#frame;
  }
}

/** What a market-data stream carries: a market, optionally narrowed to contracts, and which kinds. */
export interface MarketSelection {
  readonly market: MarketCode;
  /** Contracts as the ticker's `futures` / `options` select them; absent = both instruments of the market. */
  readonly contracts?: Selection;
  readonly ticker: ReadonlySet<TickerType>;
  readonly messages: ReadonlySet<MessagesType>;
}

export function isSelected(selection: MarketSelection, event: ValidatedEvent): boolean {
  switch (event.type) {
    case 'book':
    case 'trade':
    case 'settle':
      return selection.ticker.has(event.type) && selectsContract(selection, event.contract);
    case 'message':
      return event.market === selection.market && selection.messages.has(event.board);
    case 'custom_market':
      return event.market === selection.market && selection.messages.has('custom_market');
    case 'open_interest':
    case 'index':
      return false;
    default:
      return unreachable(event);
  }
}

function selectsContract(selection: MarketSelection, contract: Contract): boolean {
  const market = contract.product.market;
  if (selection.contracts === undefined) return market === selection.market;
  return selects(selection.contracts, {
    kind: contract.kind,
    code: contract.code,
    market,
    ...(contract.kind === 'option' ? { optionType: contract.optionType } : {}),
  });
}

function marketFrame(item: StreamItem): string | null {
  const { event } = item;
  switch (event.type) {
    case 'book':
    case 'trade':
    case 'settle': {
      const key = event.contract.kind === 'future' ? 'futures' : 'options';
      return sseEvent({ id: item.id, event: event.type, data: tickerRecordJson(key, tickerRow(event)) });
    }
    case 'message':
      return sseEvent({
        id: item.id,
        event: event.board,
        data: messageRecordJson({ time: event.time, text: event.text }),
      });
    case 'custom_market':
      return sseEvent({
        id: item.id,
        event: 'custom_market',
        data: customMarketRecordJson({
          time: event.time,
          contract: event.contract,
          netCents: event.netCents,
          size: event.size,
          legs: event.legs,
        }),
      });
    case 'open_interest':
    case 'index':
      return null;
    default:
      return unreachable(event);
  }
}

/** The ticker's row of a book, trade or settle event: what the store's ticker read returns for it. */
function tickerRow(event: Extract<ValidatedEvent, { type: TickerType }>): TickerRow {
  const row = {
    date: event.date,
    time: event.time,
    code: event.contract.code,
    type: event.type,
    bidCents: null,
    bidSize: null,
    askCents: null,
    askSize: null,
    priceCents: null,
    volume: null,
    settleCents: null,
    publishedAt: null,
    impliedVolatility: null,
  };
  switch (event.type) {
    case 'book':
      return {
        ...row,
        bidCents: event.bidCents,
        bidSize: event.bidSize,
        askCents: event.askCents,
        askSize: event.askSize,
      };
    case 'trade':
      return { ...row, priceCents: event.priceCents, volume: event.volume };
    case 'settle':
      return {
        ...row,
        settleCents: event.settleCents,
        publishedAt: event.publishedAt,
        impliedVolatility: event.impliedVolatility,
      };
    default:
      return unreachable(event);
  }
}

/**
 * The end-of-day products, each announced once per day when it becomes available (the rule of
 * docs/api.md "Which day an answer is about"): a market's close (its first settlement of the
 * day) makes the day the default of data, tradelog and the volume statistics; its open interest
 * follows; each index value series is its own publication.
 */
export type PublishedProduct = 'settlement' | 'open_interest' | 'epi' | 'npi';

export class PublicationTracker {
  readonly #seen = new Set<string>();

  /** The publication event `item` brings, if it is the first of its product that day. */
  frameOf(item: StreamItem): string | null {
    const { event } = item;
    let market: MarketCode | undefined;
    let product: PublishedProduct;
    switch (event.type) {
      case 'settle':
        market = event.contract.product.market;
        product = 'settlement';
        break;
      case 'open_interest':
        market = event.contract.product.market;
        product = 'open_interest';
        break;
      case 'index':
        product = event.index;
        break;
      case 'book':
      case 'trade':
      case 'message':
      case 'custom_market':
        return null;
      default:
        return unreachable(event);
    }
    const key = `${item.date} ${market ?? ''} ${product}`;
    if (this.#seen.has(key)) return null;
    this.#seen.add(key);
    const scope = market === undefined ? '' : `,"market":"${market}"`;
    const operations = JSON.stringify(operationsOf(product, market));
    return sseEvent({
      id: item.id,
      event: 'publication',
      data: `{"date":"${item.date}"${scope},"published":"${product}","operations":${operations}}`,
    });
  }
}

/** The operations whose answers the publication completes. */
function operationsOf(product: PublishedProduct, market: MarketCode | undefined): string[] {
  switch (product) {
    case 'settlement':
      return market !== undefined && isElectricity(market)
        ? ['data', 'tradelog', 'datamine']
        : ['data', 'tradelog'];
    case 'open_interest':
      return market === 'au_electricity' ? ['data', 'datamine'] : ['data'];
    case 'epi':
    case 'npi':
      return [product];
    default:
      return unreachable(product);
  }
}

function unreachable(value: never): never {
  throw new Error(`unhandled value: ${JSON.stringify(value)}`);
}
