import type { Contract } from '../domain/contract.js';
import type { FeedEvent } from './events.js';
import { validateFeedEvent } from './validate.js';

/**
 * The feed's NDJSON form. formatFeedEvent writes one event per line with a fixed key order per
 * type (type, date, seq, time, then the type's fields in the order of events.ts), so the same
 * event always has the same bytes: exports are byte-stable and a line is the event's content
 * for idempotency. docs/feed-format.md documents the format.
 */
export function formatFeedEvent(e: FeedEvent): string {
  const line = lineOf(e);
  // V8 builds a template as a rope (a tree of its pieces) and flattens it in place when a
  // character is read: a line lives until its batch is stored, and a rope kept that long would
  // have its every piece copied by each young-generation collection.
  line.charCodeAt(0);
  return line;
}

/**
 * The line, one template per type. Built by hand rather than JSON.stringify(object): this runs
 * once per event on every ingest. Every string goes through JSON.stringify, so escaping is
 * exactly JSON's.
 */
function lineOf(e: FeedEvent): string {
  const head = `{"type":"${e.type}","date":${q(e.date)},"seq":${num(e.seq)},"time":${q(e.time)}`;
  switch (e.type) {
    case 'book':
      return `${head},"code":${q(e.code)},"bid":${nq(e.bid)},"bid_size":${nnum(e.bid_size)},"ask":${nq(e.ask)},"ask_size":${nnum(e.ask_size)}}`;
    case 'trade':
      return `${head},"code":${q(e.code)},"price":${q(e.price)},"volume":${num(e.volume)},"trade_type":${q(e.trade_type)},"block":${e.block ? 'true' : 'false'}${e.group === undefined ? '' : `,"group":${q(e.group)}`}}`;
    case 'settle':
      return `${head},"code":${q(e.code)},"settle":${q(e.settle)},"published_at":${num(e.published_at)}${e.implied_volatility === undefined ? '' : `,"implied_volatility":${q(e.implied_volatility)}`}}`;
    case 'open_interest':
      return `${head},"code":${q(e.code)},"open_interest":${num(e.open_interest)}}`;
    case 'message':
      return `${head},"market":${q(e.market)},"board":${q(e.board)},"text":${q(e.text)}}`;
    case 'custom_market': {
      const legs = e.legs.map((leg) => `{"price":${q(leg.price)},"ratio":${q(leg.ratio)}}`).join(',');
      return `${head},"market":${q(e.market)},"contract":${q(e.contract)},"net":${q(e.net)},"size":${num(e.size)},"legs":[${legs}]}`;
    }
    case 'index':
      return `${head},"index":${q(e.index)},"year":${num(e.year)},"value":${q(e.value)}}`;
  }
}

/** Whether JSON needs escapes for the text: quote, backslash, control characters, surrogates. */
function needsEscape(text: string): boolean {
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return true;
  }
  return false;
}

/** A JSON string: codes, dates and decimals need no escaping, so skip JSON.stringify for them. */
const q = (text: string): string => (needsEscape(text) ? JSON.stringify(text) : `"${text}"`);
const nq = (text: string | null): string => (text === null ? 'null' : q(text));
/** JSON's rendering of a number: what JSON.stringify writes (null for NaN and infinities). */
const num = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');
const nnum = (value: number | null): string => (value === null ? 'null' : num(value));

export type ParsedFeedLine =
  | { readonly ok: true; readonly event: FeedEvent; readonly contract?: Contract }
  | { readonly ok: false; readonly line: number; readonly reason: string };

/**
 * Parses and validates one NDJSON line (1-based `lineNumber` for the error). The event comes
 * back canonical (validate.ts); a truncated line is invalid JSON and is refused like any other.
 */
export function parseFeedLine(text: string, lineNumber: number): ParsedFeedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, line: lineNumber, reason: 'invalid JSON (malformed or truncated line)' };
  }
  const result = validateFeedEvent(value);
  return result.ok ? result : { ok: false, line: lineNumber, reason: result.reason };
}

/** The one-line form every error report uses: "line 17: volume must be ...". */
export function describeLineError(error: { readonly line: number; readonly reason: string }): string {
  return `line ${error.line}: ${error.reason}`;
}
