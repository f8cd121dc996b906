import { productByRoot } from './catalogue.js';
import { futuresCode, isStrikeOnGrid, MONTH_LETTERS, monthFromLetter, type OptionType } from './contract.js';
import { isMarketCode, type MarketCode, OPTION_MARKETS } from './markets.js';

/**
 * What a query's `futures` or `options` parameter selects, in store terms: every contract of
 * one instrument kind in a market, optionally narrowed to canonical codes starting with
 * `prefix` and, for options, to one option type. A prefix is a range scan on the code index.
 */
export interface Selection {
  readonly instrument: 'future' | 'option';
  readonly market: MarketCode;
  readonly prefix?: string;
  readonly optionType?: OptionType;
}

export type CodeForm = 'market' | 'initial' | 'exact' | 'initial+year' | 'initial+year+type' | 'exact+type';

export type CodeQueryResult =
  | { readonly ok: true; readonly selection: Selection; readonly form: CodeForm }
  /** malformed: 400. */
  | { readonly ok: false; readonly reason: 'malformed'; readonly message: string }
  /** well formed but names no product of the catalogue (or a month it never lists): 404. */
  | { readonly ok: false; readonly reason: 'unknown'; readonly message: string };

const M = `[${MONTH_LETTERS}]`;
const FUTURES_INITIAL = new RegExp(`^([A-Z]{2})(${M})$`);
const FUTURES_EXACT = new RegExp(`^([A-Z]{2})(${M})(\\d{4})F?$`);
const OPTIONS_INITIAL = FUTURES_INITIAL;
const OPTIONS_YEAR = new RegExp(`^([A-Z]{2})(${M})(\\d{4})([CP])?$`);
const OPTIONS_EXACT = new RegExp(`^([A-Z]{2})(${M})(\\d{4})(?:(\\d{7})([CP])?|([CP])(\\d{7}))$`);

const MAX_CODE_LENGTH = 32;

function resolveRoot(root: string, letter: string, instrument: 'future' | 'option', code: string) {
  const product = productByRoot(root);
  if (!product) return { error: `${code} names no product: ${root} is not a product code` } as const;
  if (instrument === 'option' && !product.hasOptions) {
    return { error: `${code} names no listed contract: ${root} has no options` } as const;
  }
  if (!product.months.includes(letter)) {
    return { error: `${code} names no listed contract: ${root} lists no ${letter} contracts` } as const;
  }
  return { product } as const;
}

/** Parses the `futures` parameter: a market code, an initial code or an exact code (+ F). */
export function parseFuturesQuery(text: string): CodeQueryResult {
  if (isMarketCode(text)) {
    return { ok: true, form: 'market', selection: { instrument: 'future', market: text } };
  }
  if (text.length <= MAX_CODE_LENGTH) {
    const initial = FUTURES_INITIAL.exec(text);
    const exact = initial ? undefined : FUTURES_EXACT.exec(text);
    const match = initial ?? exact;
    if (match) {
      const [, root = '', letter = '', year] = match;
      const resolved = resolveRoot(root, letter, 'future', text);
      if ('error' in resolved) return { ok: false, reason: 'unknown', message: resolved.error ?? '' };
      const month = monthFromLetter(letter) ?? 0;
      const prefix = year === undefined ? `${root}${letter}` : futuresCode(root, month, Number(year));
      return {
        ok: true,
        form: year === undefined ? 'initial' : 'exact',
        selection: { instrument: 'future', market: resolved.product.market, prefix },
      };
    }
  }
  return {
    ok: false,
    reason: 'malformed',
    message:
      'expected a market code (au_electricity, nz_electricity, au_gas, au_environmental, nz_environmental), ' +
      'an initial futures code such as BNH, or an exact code such as BNH2026 or BNH2026F',
  };
}

/** Parses the `options` parameter: an electricity market code or any options code form. */
export function parseOptionsQuery(text: string): CodeQueryResult {
  if (isMarketCode(text)) {
    if (!OPTION_MARKETS.includes(text)) {
      return {
        ok: false,
        reason: 'malformed',
        message: `options exist only in au_electricity and nz_electricity, not in ${text}`,
      };
    }
    return { ok: true, form: 'market', selection: { instrument: 'option', market: text } };
  }
  if (text.length <= MAX_CODE_LENGTH) {
    const parsed = matchOptionsForm(text);
    if (parsed) {
      const resolved = resolveRoot(parsed.root, parsed.letter, 'option', text);
      if ('error' in resolved) return { ok: false, reason: 'unknown', message: resolved.error ?? '' };
      if (parsed.strikeCents !== undefined && !isStrikeOnGrid(parsed.strikeCents)) {
        return {
          ok: false,
          reason: 'unknown',
          message: `${text} names no listed contract: strikes are $1 steps up to $100 and $5 steps above`,
        };
      }
      const month = monthFromLetter(parsed.letter) ?? 0;
      let prefix = `${parsed.root}${parsed.letter}`;
      if (parsed.year !== undefined) prefix = futuresCode(parsed.root, month, parsed.year);
      if (parsed.strikeCents !== undefined) prefix += String(parsed.strikeCents).padStart(7, '0');
      const selection: Selection = {
        instrument: 'option',
        market: resolved.product.market,
        prefix,
        ...(parsed.optionType ? { optionType: parsed.optionType } : {}),
      };
      return { ok: true, form: parsed.form, selection };
    }
  }
  return {
    ok: false,
    reason: 'malformed',
    message:
      'expected au_electricity, nz_electricity or an options code: initial (BNZ), with year (HQZ2026), ' +
      'with type (EAZ2026C) or exact (HNZ20260012000, EAH20260010000C, BNM2025C0016000)',
  };
}

interface OptionsForm {
  root: string;
  letter: string;
  year?: number;
  strikeCents?: number;
  optionType?: OptionType;
  form: CodeForm;
}

function matchOptionsForm(text: string): OptionsForm | undefined {
  const initial = OPTIONS_INITIAL.exec(text);
  if (initial) return { root: initial[1] ?? '', letter: initial[2] ?? '', form: 'initial' };
  const withYear = OPTIONS_YEAR.exec(text);
  if (withYear) {
    const optionType = withYear[4] as OptionType | undefined;
    return {
      root: withYear[1] ?? '',
      letter: withYear[2] ?? '',
      year: Number(withYear[3]),
      form: optionType ? 'initial+year+type' : 'initial+year',
      ...(optionType ? { optionType } : {}),
    };
  }
  const exact = OPTIONS_EXACT.exec(text);
  if (!exact) return undefined;
  const [, root = '', letter = '', year = '', strikeA, typeA, typeB, strikeB] = exact;
  const optionType = (typeA ?? typeB) as OptionType | undefined;
  return {
    root,
    letter,
    year: Number(year),
    strikeCents: Number(strikeA ?? strikeB),
    form: optionType ? 'exact+type' : 'exact',
    ...(optionType ? { optionType } : {}),
  };
}

/** Whether a stored contract (canonical code) belongs to a selection. */
export function selects(
  selection: Selection,
  contract: { kind: 'future' | 'option'; code: string; market: MarketCode; optionType?: OptionType },
): boolean {
  if (contract.kind !== selection.instrument || contract.market !== selection.market) return false;
  if (selection.prefix !== undefined && !contract.code.startsWith(selection.prefix)) return false;
  return selection.optionType === undefined || contract.optionType === selection.optionType;
}
