import { type Product, productByRoot } from './catalogue.js';

/** Month letters F..Z = January..December (docs/market-rules.md, contract codes). */
export const MONTH_LETTERS = 'FGHJKMNQUVXZ';

export type OptionType = 'C' | 'P';

export interface FuturesContract {
  readonly kind: 'future';
  /** Canonical code: root + month letter + four-digit year, e.g. BNH2026. */
  readonly code: string;
  readonly product: Product;
  readonly month: number; // 1..12, the last month of the delivery period
  readonly year: number;
}

export interface OptionContract {
  readonly kind: 'option';
  /** Canonical code: underlying + 7-digit strike (2 implied decimals) + C|P, e.g. EAH20260010000C. */
  readonly code: string;
  readonly product: Product;
  readonly month: number;
  readonly year: number;
  readonly strikeCents: number;
  readonly optionType: OptionType;
  /** Canonical code of the futures contract the option is written on. */
  readonly underlying: string;
}

export type Contract = FuturesContract | OptionContract;

export const MIN_YEAR = 2000;
export const MAX_YEAR = 2099;
/** 7 digits with 2 implied decimals. */
export const MAX_STRIKE_CENTS = 9_999_999;

export function monthLetter(month: number): string {
  const letter = MONTH_LETTERS[month - 1];
  if (!letter) throw new RangeError(`month out of range: ${month}`);
  return letter;
}

export function monthFromLetter(letter: string): number | undefined {
  const index = MONTH_LETTERS.indexOf(letter);
  return letter.length === 1 && index >= 0 ? index + 1 : undefined;
}

/** Strikes: $1 steps up to $100, $5 steps above (docs/market-rules.md, contract codes). */
export function isStrikeOnGrid(strikeCents: number): boolean {
  if (!Number.isSafeInteger(strikeCents) || strikeCents <= 0 || strikeCents > MAX_STRIKE_CENTS) return false;
  return strikeCents <= 10_000 ? strikeCents % 100 === 0 : strikeCents % 500 === 0;
}

export function formatStrike(strikeCents: number): string {
  return String(strikeCents).padStart(7, '0');
}

export function futuresCode(root: string, month: number, year: number): string {
  return `${root}${monthLetter(month)}${year}`;
}

export function optionCode(underlying: string, strikeCents: number, optionType: OptionType): string {
  return `${underlying}${formatStrike(strikeCents)}${optionType}`;
}

const FUTURES_CODE = /^([A-Z]{2})([FGHJKMNQUVXZ])(\d{4})F?$/;
/** Both layouts: strike then type (canonical) or type then strike (some sources). */
const OPTION_CODE = /^([A-Z]{2})([FGHJKMNQUVXZ])(\d{4})(?:(\d{7})([CP])|([CP])(\d{7}))$/;

/**
 * Parses one contract code as a feed or a trade log writes it: a futures code (optionally with
 * the trade log's F suffix) or an option code in either layout. Returns undefined unless the
 * code names a contract the catalogue allows (known root, month letter listed by the product,
 * options only where the product has them, strike on the grid).
 */
export function parseContractCode(text: string): Contract | undefined {
  const futures = FUTURES_CODE.exec(text);
  if (futures) {
    const [, root = '', letter = '', yearText = ''] = futures;
    const product = productByRoot(root);
    const year = Number(yearText);
    if (!product?.months.includes(letter) || year < MIN_YEAR || year > MAX_YEAR) return undefined;
    const month = monthFromLetter(letter) ?? 0;
    return { kind: 'future', code: futuresCode(root, month, year), product, month, year };
  }
  const option = OPTION_CODE.exec(text);
  if (!option) return undefined;
  const [, root = '', letter = '', yearText = '', strikeA, typeA, typeB, strikeB] = option;
  const product = productByRoot(root);
  const year = Number(yearText);
  if (!product?.hasOptions || !product.months.includes(letter) || year < MIN_YEAR || year > MAX_YEAR) {
    return undefined;
  }
  const strikeCents = Number(strikeA ?? strikeB);
  const optionType = (typeA ?? typeB) as OptionType;
  if (!isStrikeOnGrid(strikeCents)) return undefined;
  const month = monthFromLetter(letter) ?? 0;
  const underlying = futuresCode(root, month, year);
  return {
    kind: 'option',
    code: optionCode(underlying, strikeCents, optionType),
    product,
    month,
    year,
    strikeCents,
    optionType,
    underlying,
  };
}

/**
 * The trade log writes futures with an F suffix (docs/market-rules.md, contract codes); options as they are.
 */
export function tradeLogCode(contract: Pick<Contract, 'kind' | 'code'>): string {
  return contract.kind === 'future' ? `${contract.code}F` : contract.code;
}
