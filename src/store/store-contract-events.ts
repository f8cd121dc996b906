import { type Contract, parseContractCode } from '../domain/contract.js';
import type { MarketCode } from '../domain/markets.js';
import type { IndexName, MessageBoard, TradeType } from '../feed/events.js';
import type {
  ValidatedBook,
  ValidatedCustomMarket,
  ValidatedEvent,
  ValidatedIndex,
  ValidatedMessage,
  ValidatedOpenInterest,
  ValidatedSettle,
  ValidatedTrade,
} from './store.js';

/**
 * Builders of ValidatedEvent records for the store contract suite, in store terms only (no
 * feed parsing), so the suite tests an adapter and nothing else. A line is derived from the
 * content, as the canonical NDJSON is: equal events get equal lines.
 */

function contractOf(code: string): Contract {
  const contract = parseContractCode(code);
  if (!contract) throw new Error(`test fixture names an unknown contract: ${code}`);
  return contract;
}

function lineOf(record: Record<string, unknown>): string {
  return JSON.stringify(record, (key, value) =>
    key === 'contract' && typeof value === 'object' ? value.code : value,
  );
}

function withLine<T extends Omit<ValidatedEvent, 'line'>>(record: T): T & { line: string } {
  return { ...record, line: lineOf(record) };
}

type Side = readonly [cents: number, size: number] | null;

export function book(
  date: string,
  seq: number,
  time: string,
  code: string,
  bid: Side,
  ask: Side,
): ValidatedBook {
  return withLine({
    type: 'book' as const,
    date,
    seq,
    time,
    contract: contractOf(code),
    bidCents: bid?.[0] ?? null,
    bidSize: bid?.[1] ?? null,
    askCents: ask?.[0] ?? null,
    askSize: ask?.[1] ?? null,
  });
}

export function trade(
  date: string,
  seq: number,
  time: string,
  code: string,
  priceCents: number,
  volume: number,
  options: { tradeType?: TradeType; block?: boolean; group?: string } = {},
): ValidatedTrade {
  return withLine({
    type: 'trade' as const,
    date,
    seq,
    time,
    contract: contractOf(code),
    priceCents,
    volume,
    tradeType: options.tradeType ?? 'N',
    block: options.block ?? false,
    group: options.group ?? null,
  });
}

export function settle(
  date: string,
  seq: number,
  code: string,
  settleCents: number,
  impliedVolatility: number | null = null,
  time = '160000',
): ValidatedSettle {
  return withLine({
    type: 'settle' as const,
    date,
    seq,
    time,
    contract: contractOf(code),
    settleCents,
    publishedAt: 1_740_000_000 + seq,
    impliedVolatility,
  });
}

export function openInterest(date: string, seq: number, code: string, value: number): ValidatedOpenInterest {
  return withLine({
    type: 'open_interest' as const,
    date,
    seq,
    time: '160500',
    contract: contractOf(code),
    openInterest: value,
  });
}

export function message(
  date: string,
  seq: number,
  time: string,
  market: MarketCode,
  board: MessageBoard,
  text: string,
): ValidatedMessage {
  return withLine({ type: 'message' as const, date, seq, time, market, board, text });
}

export function customMarket(
  date: string,
  seq: number,
  time: string,
  market: MarketCode,
  contract: string,
  netCents: number,
  size: number,
  legs: readonly (readonly [priceCents: number, ratioHundredths: number])[],
): ValidatedCustomMarket {
  return withLine({
    type: 'custom_market' as const,
    date,
    seq,
    time,
    market,
    contract,
    netCents,
    size,
    legs: legs.map(([priceCents, ratioHundredths]) => ({ priceCents, ratioHundredths })),
  });
}

export function indexValue(
  date: string,
  seq: number,
  index: IndexName,
  year: number,
  valueCents: number,
): ValidatedIndex {
  return withLine({ type: 'index' as const, date, seq, time: '163000', index, year, valueCents });
}
