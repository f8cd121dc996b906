import type { MarketCode } from '../../domain/markets.js';
import type { Instrument } from '../store.js';

/**
 * Small integers for the values repeated on every view row (market, instrument, ticker kind)
 * and integers for dates (yyyyMMdd) and times (HHmmss): rows and index entries stay short,
 * which is most of the database's size. The numbers are part of the file format: never
 * renumber, only add.
 */
export const MARKET_IDS: Readonly<Record<MarketCode, number>> = {
  au_electricity: 1,
  nz_electricity: 2,
  au_gas: 3,
  au_environmental: 4,
  nz_environmental: 5,
};

const MARKETS_BY_ID = new Map(Object.entries(MARKET_IDS).map(([code, id]) => [id, code as MarketCode]));

export function marketOfId(id: number): MarketCode {
  const market = MARKETS_BY_ID.get(id);
  if (!market) throw new RangeError(`unknown market id in the database: ${id}`);
  return market;
}

export const INSTRUMENT_IDS: Readonly<Record<Instrument, number>> = { future: 0, option: 1 };

export function instrumentOfId(id: number): Instrument {
  return id === 1 ? 'option' : 'future';
}

export type TickKind = 'book' | 'trade' | 'settle';
export const TICK_KIND_IDS: Readonly<Record<TickKind, number>> = { book: 1, trade: 2, settle: 3 };
export function tickKindOfId(id: number): TickKind {
  return id === 2 ? 'trade' : id === 3 ? 'settle' : 'book';
}

export function dateToInt(date: string): number {
  return Number(date);
}

export function intToDate(value: number): string {
  return String(value);
}

export function timeToInt(time: string): number {
  return Number(time);
}

export function intToTime(value: number): string {
  return String(value).padStart(6, '0');
}

/** The code range of a prefix: [prefix, prefix + U+FFFF), a range scan on a code index. */
export function codeRange(prefix: string | undefined): { lo: string; hi: string } {
  const lo = prefix ?? '';
  return { lo, hi: `${lo}\uffff` };
}
