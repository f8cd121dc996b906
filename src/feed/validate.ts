import { isTradingDay } from '../domain/calendar.js';
import { type Contract, MAX_YEAR, MIN_YEAR, parseContractCode } from '../domain/contract.js';
import { isValidDate, isValidTime } from '../domain/dates.js';
import { formatScaled, parseScaled } from '../domain/decimal.js';
import {
  MAX_ABS_HUNDREDTHS,
  MAX_EVENTS_PER_DAY,
  MAX_LOTS,
  MAX_OPEN_INTEREST,
  MAX_PUBLISHED_AT,
} from '../domain/limits.js';
import { isMarketCode } from '../domain/markets.js';
import {
  type CustomMarketLeg,
  type FeedEvent,
  type FeedEventType,
  TRADE_TYPES,
  type TradeType,
} from './events.js';

/**
 * Validation of one feed event, whatever its source (an NDJSON line or the simulator's
 * objects): the same rules for every path into the store. A valid event comes back canonical:
 * codes in their canonical form (futures without the trade log's F suffix, options with the
 * strike before the type) and decimals with exactly two places, so that equal events have
 * equal lines and a replay is recognised as one.
 */
export type FeedValidation =
  | { readonly ok: true; readonly event: FeedEvent; readonly contract?: Contract }
  | { readonly ok: false; readonly reason: string };

const COMMON = ['type', 'date', 'seq', 'time'];

interface Shape {
  readonly required: readonly string[];
  /** Required and optional names, as an object: the cheapest membership test per key. */
  readonly allowed: Readonly<Record<string, true>>;
}

const FIELDS: Readonly<Record<FeedEventType, Shape>> = {
  book: shape(['code', 'bid', 'bid_size', 'ask', 'ask_size']),
  trade: shape(['code', 'price', 'volume', 'trade_type', 'block'], ['group']),
  settle: shape(['code', 'settle', 'published_at'], ['implied_volatility']),
  open_interest: shape(['code', 'open_interest']),
  message: shape(['market', 'board', 'text']),
  custom_market: shape(['market', 'contract', 'net', 'size', 'legs']),
  index: shape(['index', 'year', 'value']),
};

function shape(required: string[], optional: string[] = []): Shape {
  const all = [...COMMON, ...required];
  return { required: all, allowed: Object.fromEntries([...all, ...optional].map((name) => [name, true])) };
}

const MAX_LEGS = 6;
const MAX_TEXT_LENGTH = 4000;

/** Thrown inside this module only, to stop at the first broken field. */
class Invalid extends Error {}

export function validateFeedEvent(value: unknown): FeedValidation {
  try {
    return checkEvent(value);
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, reason: error.message };
    throw error;
  }
}

function checkEvent(value: unknown): FeedValidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Invalid(`expected a JSON object, got ${show(value)}`);
  }
  const record = value as Record<string, unknown>;
  const type = record.type;
  if (type === undefined) throw new Invalid('missing field "type"');
  if (typeof type !== 'string' || !Object.hasOwn(FIELDS, type)) {
    throw new Invalid(`unknown event type ${show(type)}`);
  }
  const eventType = type as FeedEventType;
  checkFieldNames(record, eventType);
  const date = checkDate(record.date);
  const seq = checkSeq(record.seq);
  const time = checkTime(record.time);

  switch (eventType) {
    case 'book': {
      const contract = checkCode(record.code);
      const option = contract.kind === 'option';
      checkSide('bid', record.bid, record.bid_size);
      checkSide('ask', record.ask, record.ask_size);
      const event: FeedEvent = {
        type: 'book',
        date,
        seq,
        time,
        code: contract.code,
        bid: record.bid === null ? null : checkPrice('bid', record.bid, option),
        bid_size: record.bid_size === null ? null : checkCount('bid_size', record.bid_size, 1, MAX_LOTS),
        ask: record.ask === null ? null : checkPrice('ask', record.ask, option),
        ask_size: record.ask_size === null ? null : checkCount('ask_size', record.ask_size, 1, MAX_LOTS),
      };
      return { ok: true, event, contract };
    }
    case 'trade': {
      const contract = checkCode(record.code);
      const price = checkPrice('price', record.price, contract.kind === 'option');
      const volume = checkCount('volume', record.volume, 1, MAX_LOTS);
      const trade_type = checkTradeType(record.trade_type);
      const block = checkBoolean('block', record.block);
      const group = record.group === undefined ? undefined : checkText('group', record.group, 64);
      const event: FeedEvent =
        group === undefined
          ? { type: 'trade', date, seq, time, code: contract.code, price, volume, trade_type, block }
          : { type: 'trade', date, seq, time, code: contract.code, price, volume, trade_type, block, group };
      return { ok: true, event, contract };
    }
    case 'settle': {
      const contract = checkCode(record.code);
      const settle = checkPrice('settle', record.settle, contract.kind === 'option');
      const published_at = checkCount('published_at', record.published_at, 1, MAX_PUBLISHED_AT);
      const iv = record.implied_volatility;
      const implied_volatility = iv === undefined ? undefined : checkVolatility(iv, contract);
      const code = contract.code;
      const event: FeedEvent =
        implied_volatility === undefined
          ? { type: 'settle', date, seq, time, code, settle, published_at }
          : { type: 'settle', date, seq, time, code, settle, published_at, implied_volatility };
      return { ok: true, event, contract };
    }
    case 'open_interest': {
      const contract = checkCode(record.code);
      const open_interest = checkCount('open_interest', record.open_interest, 0, MAX_OPEN_INTEREST);
      return {
        ok: true,
        event: { type: 'open_interest', date, seq, time, code: contract.code, open_interest },
        contract,
      };
    }
    case 'message': {
      const market = checkMarket(record.market);
      const board = record.board;
      if (board !== 'message_board' && board !== 'registered_trades') {
        throw new Invalid(`board must be message_board or registered_trades, got ${show(board)}`);
      }
      const text = checkText('text', record.text, MAX_TEXT_LENGTH);
      return { ok: true, event: { type: 'message', date, seq, time, market, board, text } };
    }
    case 'custom_market': {
      const market = checkMarket(record.market);
      const contract = checkText('contract', record.contract, 200);
      const net = checkPrice('net', record.net, false);
      const size = checkCount('size', record.size, 0, MAX_LOTS);
      const legs = checkLegs(record.legs);
      return {
        ok: true,
        event: { type: 'custom_market', date, seq, time, market, contract, net, size, legs },
      };
    }
    case 'index': {
      const index = record.index;
      if (index !== 'epi' && index !== 'npi')
        throw new Invalid(`index must be epi or npi, got ${show(index)}`);
      const year = record.year;
      if (typeof year !== 'number' || !Number.isInteger(year) || year < MIN_YEAR || year > MAX_YEAR) {
        throw new Invalid(`year must be an integer from ${MIN_YEAR} to ${MAX_YEAR}, got ${show(year)}`);
      }
      const valueText = checkPrice('value', record.value, false);
      return { ok: true, event: { type: 'index', date, seq, time, index, year, value: valueText } };
    }
  }
}

function checkFieldNames(record: Record<string, unknown>, type: FeedEventType): void {
  const { required, allowed } = FIELDS[type];
  for (const key in record) {
    // undefined is how in-process producers leave an optional field out; JSON never yields it
    if (allowed[key] !== true && Object.hasOwn(record, key) && record[key] !== undefined) {
      throw new Invalid(`unknown field ${show(key)} in a ${type} event`);
    }
  }
  for (const key of required) {
    if (record[key] === undefined) throw new Invalid(`missing field ${show(key)}`);
  }
}

/** Dates repeat on every line: remember each answer (the set of dates in a feed is small). */
const dateReasons = new Map<string, string | null>();

function checkDate(value: unknown): string {
  if (typeof value !== 'string') throw new Invalid(`date must be a yyyyMMdd string, got ${show(value)}`);
  let reason = dateReasons.get(value);
  if (reason === undefined) {
    if (!isValidDate(value)) reason = `date must be a calendar date yyyyMMdd (2000-2099), got ${show(value)}`;
    else if (!isTradingDay(value))
      reason = `date ${value} is not a trading day (weekend or exchange holiday)`;
    else reason = null;
    if (dateReasons.size > 10_000) dateReasons.clear();
    dateReasons.set(value, reason);
  }
  if (reason !== null) throw new Invalid(reason);
  return value;
}

function checkTime(value: unknown): string {
  if (typeof value !== 'string' || !isValidTime(value)) {
    throw new Invalid(`time must be HHmmss (000000-235959), got ${show(value)}`);
  }
  return value;
}

function checkSeq(value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_EVENTS_PER_DAY) {
    throw new Invalid(`seq must be an integer from 1 to ${MAX_EVENTS_PER_DAY}, got ${show(value)}`);
  }
  return value;
}

/** Codes repeat on every line too; a bounded memo keeps hostile input from growing it. */
const contractsByCode = new Map<string, Contract | null>();

function checkCode(value: unknown): Contract {
  if (typeof value !== 'string') throw new Invalid(`code must be a string, got ${show(value)}`);
  let contract = contractsByCode.get(value);
  if (contract === undefined) {
    contract = value.length <= 32 ? (parseContractCode(value) ?? null) : null;
    if (contractsByCode.size > 50_000) contractsByCode.clear();
    contractsByCode.set(value, contract);
  }
  if (contract === null) throw new Invalid(`unknown contract code ${value.slice(0, 40)}`);
  return contract;
}

function checkDecimal(field: string, value: unknown): number {
  const scaled = typeof value === 'string' ? parseScaled(value, 2) : undefined;
  if (scaled === undefined) {
    throw new Invalid(`${field} must be a decimal string with at most 2 decimals, got ${show(value)}`);
  }
  if (Math.abs(scaled) > MAX_ABS_HUNDREDTHS) {
    throw new Invalid(`${field} must be between -${MAX_DECIMAL} and ${MAX_DECIMAL}, got ${show(value)}`);
  }
  return scaled;
}

const MAX_DECIMAL = formatScaled(MAX_ABS_HUNDREDTHS, 2);

/**
 * Already canonical and within the bound: what formatScaled(x, 2) writes up to 99,999.99;
 * -0.00 is not canonical ("0.00" is), and larger values take the checked path.
 */
const CANONICAL_DECIMAL = /^-?(?:0|[1-9]\d{0,4})\.\d\d$/;

/** A price as its canonical two-decimal text; option premiums cannot be negative. */
function checkPrice(field: string, value: unknown, option: boolean): string {
  // fast path: feeds (and the simulator) mostly write canonical decimals already
  if (typeof value === 'string' && CANONICAL_DECIMAL.test(value) && value !== '-0.00') {
    if (option && value.charCodeAt(0) === 45) {
      throw new Invalid(`${field} of an option must not be negative, got ${show(value)}`);
    }
    return value;
  }
  const cents = checkDecimal(field, value);
  if (option && cents < 0)
    throw new Invalid(`${field} of an option must not be negative, got ${show(value)}`);
  return formatScaled(cents, 2);
}

function checkVolatility(value: unknown, contract: Contract): string {
  if (contract.kind !== 'option') throw new Invalid('implied_volatility applies to options only');
  const hundredths = checkDecimal('implied_volatility', value);
  if (hundredths <= 0) throw new Invalid(`implied_volatility must be greater than 0, got ${show(value)}`);
  return formatScaled(hundredths, 2);
}

/** An integer count from min to max (domain/limits.ts). */
function checkCount(field: string, value: unknown, min: 0 | 1, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new Invalid(`${field} must be an integer from ${min} to ${max}, got ${show(value)}`);
  }
  return value;
}

/** A book side is a price and a size together, or absent (both null). */
function checkSide(side: 'bid' | 'ask', price: unknown, size: unknown): void {
  if ((price === null) !== (size === null)) {
    throw new Invalid(`${side} and ${side}_size must both be set or both be null`);
  }
}

function checkTradeType(value: unknown): TradeType {
  if (typeof value !== 'string' || !(TRADE_TYPES as readonly string[]).includes(value)) {
    throw new Invalid(`trade_type must be one of ${TRADE_TYPES.join(' ')}, got ${show(value)}`);
  }
  return value as TradeType;
}

function checkBoolean(field: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new Invalid(`${field} must be true or false, got ${show(value)}`);
  return value;
}

function checkText(field: string, value: unknown, maxLength: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) {
    throw new Invalid(`${field} must be a non-empty string of at most ${maxLength} characters`);
  }
  if (NOT_STORABLE_TEXT.test(value)) {
    throw new Invalid(`${field} must be Unicode text without NUL characters or unpaired surrogates`);
  }
  return value;
}

/**
 * What text cannot hold and still read back the same from every store: PostgreSQL refuses NUL,
 * and an unpaired surrogate (JSON's "\ud800" alone) has no UTF-8 form, so each store would write
 * something else for it (U+FFFD once, or three times).
 */
const NOT_STORABLE_TEXT = /\0|\p{Cs}/u;

function checkMarket(value: unknown): string {
  if (typeof value !== 'string' || !isMarketCode(value)) {
    throw new Invalid(`market must be a market code, got ${show(value)}`);
  }
  return value;
}

function checkLegs(value: unknown): CustomMarketLeg[] {
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_LEGS) {
    throw new Invalid(`legs must be an array of 1 to ${MAX_LEGS} legs`);
  }
  return value.map((leg: unknown, index) => {
    const name = `legs[${index}]`;
    if (typeof leg !== 'object' || leg === null || Array.isArray(leg)) {
      throw new Invalid(`${name} must be an object with price and ratio`);
    }
    const record = leg as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (key !== 'price' && key !== 'ratio') throw new Invalid(`unknown field ${show(key)} in ${name}`);
    }
    return {
      price: checkPrice(`${name}.price`, record.price, false),
      ratio: checkPrice(`${name}.ratio`, record.ratio, false),
    };
  });
}

/**
 * A short rendering of an offending value for a one-line reason. Arrays and objects are named,
 * not serialised: a deeply nested value would overflow the stack, a wide one cost its size.
 */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  // JSON.stringify would say null for 1e400, and a number JSON.parse rounded (2^53 + 1) is not the one sent.
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a number too large to read';
  if (typeof value === 'number' && Math.abs(value) > Number.MAX_SAFE_INTEGER) return 'a number beyond 2^53';
  const text = JSON.stringify(typeof value === 'string' ? value.slice(0, 40) : value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}
