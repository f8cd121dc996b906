import { parseFuturesQuery, parseOptionsQuery } from '../domain/codes.js';
import { MONTH_LETTERS } from '../domain/contract.js';
import { isValidDate, isValidTime } from '../domain/dates.js';
import { isMarketCode, MARKET_CODES, type MarketCode, OPTION_MARKETS } from '../domain/markets.js';
import type { AccessLevel, ContractParam } from '../query/context.js';
import { invalidParameters, type ParamIssue } from '../query/errors.js';
import type { Representation } from './negotiation.js';

/**
 * Query parameters: one declarative spec per operation (in its route file) drives parsing,
 * validation, the access rule and the types the handler sees. Every bad parameter of a request
 * is reported at once.
 */

export type Parsed<T> = { readonly value: T } | { readonly error: string };

export interface ParamDef<T> {
  readonly parse: (text: string) => Parsed<T>;
  /** Ignored (and so not validated) under end_of_day access. */
  readonly dateLike?: boolean;
  /** One line for docs. */
  readonly description: string;
  /** JSON Schema of the (string) value for the OpenAPI document: it matches every value `parse` accepts. */
  readonly schema?: ParamSchema;
}

export interface ParamSchema {
  readonly pattern?: string;
  readonly enum?: readonly string[];
}

const MONTH = `[${MONTH_LETTERS}]`;

export type ParamDefs = Readonly<Record<string, ParamDef<unknown>>>;

export type ParamValues<S extends ParamDefs> = {
  readonly [K in keyof S]?: S[K] extends ParamDef<infer T> ? T : never;
};

export interface OperationSpec<S extends ParamDefs> {
  readonly params: S;
  /** Each listed parameter must be sent. */
  readonly required?: readonly (keyof S & string)[];
  /** Exactly one parameter of each group must be sent (docs/api.md, common rules: "Parameters"). */
  readonly exactlyOne?: readonly (readonly (keyof S & string)[])[];
  /** When `when` is sent (and honoured), `names` are disregarded (ticker: date voids from/to). */
  readonly disregard?: { readonly when: keyof S & string; readonly names: readonly (keyof S & string)[] };
  /** Rules across parameters that need no data; runs on the valid values. */
  readonly check?: (values: ParamValues<S>) => ParamIssue[];
}

export interface ReadParams<S extends ParamDefs> {
  readonly values: ParamValues<S>;
  /** `?format=`, which overrides the Accept header. */
  readonly format: Representation | undefined;
  /** Sent parameters that had no effect (Ignored-Parameters header). */
  readonly ignored: readonly string[];
}

export const marketParam: ParamDef<MarketCode> = {
  description:
    'A market code: `au_electricity`, `nz_electricity`, `au_gas`, `au_environmental`, `nz_environmental`.',
  schema: { enum: MARKET_CODES },
  parse: (text) =>
    isMarketCode(text) ? { value: text } : { error: `expected one of ${MARKET_CODES.join(', ')}` },
};

export const futuresParam: ParamDef<ContractParam> = {
  description:
    'A market code (all its futures) or a futures code: initial (`BNH`: every March base quarter of NSW) ' +
    'or exact (`BNH2026`, also `BNH2026F` as the trade log writes it). A well-formed code naming no listed ' +
    'contract is a 404.',
  // Well-formed codes; one naming no listed contract passes here and is a 404 (codes.ts).
  schema: { pattern: `^(${MARKET_CODES.join('|')}|[A-Z]{2}${MONTH}(\\d{4}F?)?)$` },
  parse(text) {
    const parsed = parseFuturesQuery(text);
    return parsed.ok || parsed.reason === 'unknown'
      ? { value: { name: 'futures', text, parsed } }
      : { error: parsed.message };
  },
};

export const optionsParam: ParamDef<ContractParam> = {
  description:
    '`au_electricity`, `nz_electricity` (all their options) or an options code: initial (`BNH`), with year ' +
    '(`BNH2026`), with type (`BNH2026C`) or exact (`BNH20260010000` = call and put at strike 100.00, ' +
    '`BNH20260010000C`, or type first `BNH2026C0010000`). A well-formed code naming no listed contract is a 404.',
  schema: {
    pattern: `^(${OPTION_MARKETS.join('|')}|[A-Z]{2}${MONTH}(\\d{4}([CP]|\\d{7}[CP]?|[CP]\\d{7})?)?)$`,
  },
  parse(text) {
    const parsed = parseOptionsQuery(text);
    return parsed.ok || parsed.reason === 'unknown'
      ? { value: { name: 'options', text, parsed } }
      : { error: parsed.message };
  },
};

export const dateParam: ParamDef<string> = {
  description:
    'A calendar date `yyyyMMdd` from 20000101 to 20991231; a day without data is a 404 naming the nearest one.',
  dateLike: true,
  // The shape only: a day that does not exist (20250231) is still a 400.
  schema: { pattern: '^20\\d{2}(0[1-9]|1[0-2])(0[1-9]|[12]\\d|3[01])$' },
  parse: (text) =>
    isValidDate(text)
      ? { value: text }
      : { error: 'expected a calendar date yyyyMMdd from 20000101 to 20991231' },
};

export const timeParam: ParamDef<string> = {
  description: 'A time `HHmmss` (Sydney exchange time), inclusive.',
  schema: { pattern: '^([01]\\d|2[0-3])[0-5]\\d[0-5]\\d$' },
  parse: (text) =>
    isValidTime(text) ? { value: text } : { error: 'expected a time HHmmss (000000-235959)' },
};

export function enumParam<V extends string>(values: readonly V[]): ParamDef<V> {
  return {
    description: values.join(' | '),
    schema: { enum: values },
    parse: (text) =>
      (values as readonly string[]).includes(text)
        ? { value: text as V }
        : { error: `expected one of ${values.join(', ')}` },
  };
}

/**
 * No valid value is longer than 17 characters: a longer one is refused before any parser or
 * message sees it, so no parser's cost or detail text grows with the input.
 */
export const MAX_VALUE_LENGTH = 64;

/** Accepted by every operation. */
const formatParam = enumParam<Representation>(['json', 'csv']);
const FORMAT = 'format';

/** Splits and decodes a query string; repeated names keep every value. */
export function parseQueryString(query: string): { values: Map<string, string[]>; issues: ParamIssue[] } {
  const values = new Map<string, string[]>();
  const issues: ParamIssue[] = [];
  if (query === '') return { values, issues };
  for (const part of query.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const rawName = equals < 0 ? part : part.slice(0, equals);
    const rawValue = equals < 0 ? '' : part.slice(equals + 1);
    const name = decode(rawName);
    if (name === undefined) {
      issues.push({ parameter: rawName, message: 'malformed percent-encoding in the parameter name' });
      continue;
    }
    const value = decode(rawValue);
    if (value === undefined) {
      issues.push({ parameter: name, message: 'malformed percent-encoding in the value' });
      continue;
    }
    const list = values.get(name);
    if (list) list.push(value);
    else values.set(name, [value]);
  }
  return { values, issues };
}

function decode(text: string): string | undefined {
  if (!text.includes('%') && !text.includes('+')) return text;
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * Reads an operation's parameters from the request URL. Order of the rules: names (unknown,
 * repeated), access (end_of_day ignores date-like parameters, unvalidated), disregarded ones,
 * required and exclusive groups, each value, then cross-parameter checks. Throws a QueryError
 * listing every issue.
 */
export function readParams<S extends ParamDefs>(
  spec: OperationSpec<S>,
  url: string,
  access: AccessLevel,
): ReadParams<S> {
  const mark = url.indexOf('?');
  const { values: raw, issues } = parseQueryString(mark < 0 ? '' : url.slice(mark + 1));
  // Sent, though unreadable: already an issue of its own, not also a missing parameter.
  const malformed = new Set(issues.map((issue) => issue.parameter));
  const defs = spec.params;
  const sent = new Map<string, string>();
  const isGiven = (name: string) => sent.has(name) || raw.has(name) || malformed.has(name);
  for (const [name, list] of raw) {
    if (name !== FORMAT && !Object.hasOwn(defs, name)) {
      issues.push({ parameter: name, message: unknownMessage(name, Object.keys(defs)) });
    } else if (list.length > 1) {
      issues.push({ parameter: name, message: `sent ${list.length} times; send it once` });
    } else {
      sent.set(name, list[0] ?? '');
    }
  }

  const ignored: string[] = [];
  if (access === 'end_of_day') {
    for (const name of sent.keys()) if (defs[name]?.dateLike) ignored.push(name);
  }
  const { disregard } = spec;
  if (disregard && sent.has(disregard.when) && !ignored.includes(disregard.when)) {
    for (const name of disregard.names) if (sent.has(name)) ignored.push(name);
  }
  for (const name of ignored) sent.delete(name);

  for (const name of spec.required ?? []) {
    if (!isGiven(name)) issues.push({ parameter: name, message: `${name} is required` });
  }
  for (const group of spec.exactlyOne ?? []) {
    const given = group.filter(isGiven);
    if (given.length === 0) {
      issues.push({ parameter: group.join('|'), message: `one of ${group.join(', ')} is required` });
    } else if (given.length > 1) {
      for (const name of given) {
        issues.push({
          parameter: name,
          message: `send only one of ${group.join(', ')}; got ${given.join(' and ')}`,
        });
      }
    }
  }

  const values: Record<string, unknown> = {};
  let format: Representation | undefined;
  for (const [name, text] of sent) {
    if (text.length > MAX_VALUE_LENGTH) {
      issues.push({ parameter: name, message: `longer than ${MAX_VALUE_LENGTH} characters` });
      continue;
    }
    const parsed = name === FORMAT ? formatParam.parse(text) : (defs[name] as ParamDef<unknown>).parse(text);
    if ('error' in parsed) issues.push({ parameter: name, message: parsed.error });
    else if (name === FORMAT) format = parsed.value as Representation;
    else values[name] = parsed.value;
  }
  const typed = values as ParamValues<S>;
  if (issues.length === 0 && spec.check) issues.push(...spec.check(typed));
  if (issues.length > 0) throw invalidParameters(issues);
  return { values: typed, format, ignored };
}

function unknownMessage(name: string, known: readonly string[]): string {
  const candidates = [...known, FORMAT];
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  const takes = `this operation takes ${candidates.join(', ')}`;
  return best === undefined
    ? `unknown parameter; ${takes}`
    : `unknown parameter; did you mean ${best}? (${takes})`;
}

/** Levenshtein distance, for the "did you mean" hint only (short names). */
function editDistance(a: string, b: string): number {
  if (a.length > 32) return Number.POSITIVE_INFINITY;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The one value an exactly-one group guarantees (readParams has already enforced it). */
export function theOne<T>(...values: readonly (T | undefined)[]): T {
  const value = values.find((candidate) => candidate !== undefined);
  if (value === undefined) throw new Error('exactly-one group without a value');
  return value;
}
