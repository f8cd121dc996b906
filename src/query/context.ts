import type { CodeQueryResult } from '../domain/codes.js';
import type { ExchangeClock } from '../domain/exchange-clock.js';
import type { MarketCode } from '../domain/markets.js';
import type { MarketReader } from '../store/store.js';

/**
 * `historical` honours every date parameter; `end_of_day` ignores every date-like parameter
 * and always answers with the latest data (the specification's rule for tradelog, extended to every operation by
 * docs/api.md, "Access levels").
 */
export type AccessLevel = 'historical' | 'end_of_day';

export const ACCESS_LEVELS: readonly AccessLevel[] = ['historical', 'end_of_day'];

export interface QueryContext {
  readonly reader: MarketReader;
  readonly access: AccessLevel;
  /** The exchange clock (domain/exchange-clock.ts): the operations' only "now". */
  readonly clock: ExchangeClock;
}

/** A parsed `futures` / `options` parameter: well formed, possibly naming no product (404). */
export interface ContractParam {
  readonly name: 'futures' | 'options';
  readonly text: string;
  readonly parsed: Exclude<CodeQueryResult, { reason: 'malformed' }>;
}

/** tradelog and trades also take a whole market. */
export type TradeScopeParam = ContractParam | { readonly name: 'market'; readonly text: MarketCode };
