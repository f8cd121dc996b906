import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { jsonString } from '../format/records.js';
import type { BatchedDestination } from './log-destination.js';

/**
 * The request line: one JSON line per answered request, written at info (at error for a 5xx).
 * pino writes it, but not through its generic path: for every line that path walks the object's
 * keys, looks up a serializer and a stringifier for each and escapes each string, which on the
 * serving process cost about 9 µs of CPU a request, against 3-4 µs for the same call in a tight
 * loop (docs/benchmarks.md, "The fast lane"). The line has a fixed shape, so it is put together
 * from a template with pino's own parts (the level's prefix, the time, the pid and hostname
 * bindings, the end) and handed to pino's own destination: the same bytes pino writes for it,
 * which request-line.test.ts checks against pino itself. Any pino setting that would change
 * the line (a mixin, a formatter, a hook, serializers or redaction of these fields) sends it
 * through pino's usual path instead. On the app's own destination (log-destination.ts) the line
 * is not even made per request: its fields and the request's time are kept, and the destination
 * makes the lines in runs (keepLines).
 */

export interface RequestLine {
  readonly reqId: string;
  /** The public id of the key that authenticated the request; null when none did. */
  readonly keyId: string | null;
  readonly operation: string;
  readonly method: string | null;
  /** Redacted (observability.ts redactKeys); null when the request could not be parsed. */
  readonly url: string | null;
  readonly status: number;
  readonly durationMs: number | null;
  readonly bytes: number | null;
}

const MESSAGE = 'request';
const INFO = pino.levels.values.info ?? 30;
const FIELDS: readonly (keyof RequestLine)[] = [
  'reqId',
  'keyId',
  'operation',
  'method',
  'url',
  'status',
  'durationMs',
  'bytes',
];

/** Writes request lines to the logger: the template when pino's own line would be the same, else pino. */
export function requestLineWriter(log: FastifyBaseLogger): (line: RequestLine) => void {
  const direct = directWriter(log);
  return (line) => {
    if (line.status >= 500) log.error(line, MESSAGE);
    else if (direct === undefined) log.info(line, MESSAGE);
    else direct(line);
  };
}

type PinoInternals = Record<symbol, unknown> & { isLevelEnabled(level: string): boolean };

function directWriter(log: FastifyBaseLogger): ((line: RequestLine) => void) | undefined {
  const logger = log as unknown as PinoInternals;
  const symbols = pino.symbols as unknown as Record<string, symbol>;
  const at = (name: string): unknown => {
    const symbol = symbols[name];
    return symbol === undefined ? undefined : logger[symbol];
  };
  const prefixes = at('lsCacheSym') as Record<number, string> | undefined;
  const time = at('timeSym') as (() => string) | undefined;
  const stream = at('streamSym') as { write(line: string): unknown } | undefined;
  const end = at('endSym');
  const chindings = at('chindingsSym');
  const serializers = (at('serializersSym') ?? {}) as Record<string, unknown>;
  const stringifiers = (at('stringifiersSym') ?? {}) as Record<PropertyKey, unknown>;
  const formatters = (at('formattersSym') ?? {}) as { readonly log?: unknown };
  const hooks = (at('hooksSym') ?? {}) as { readonly streamWrite?: unknown; readonly logMethod?: unknown };
  const wildcard = symbols.wildcardFirstSym;
  const changesTheLine =
    at('mixinSym') !== undefined ||
    formatters.log !== undefined ||
    hooks.streamWrite !== undefined ||
    hooks.logMethod !== undefined ||
    (at('nestedKeySym') ?? null) !== null ||
    at('messageKeySym') !== 'msg' ||
    at('msgPrefixSym') !== undefined ||
    (wildcard !== undefined && stringifiers[wildcard] !== undefined) ||
    FIELDS.some((field) => serializers[field] !== undefined || stringifiers[field] !== undefined) ||
    serializers.msg !== undefined ||
    stringifiers.msg !== undefined;
  const needsMetadata =
    stream !== undefined && (stream as Record<symbol, unknown>)[Symbol.for('pino.metadata')];
  const prefix = prefixes?.[INFO];
  if (
    changesTheLine ||
    needsMetadata === true ||
    typeof prefix !== 'string' ||
    typeof time !== 'function' ||
    typeof end !== 'string' ||
    typeof chindings !== 'string' ||
    stream === undefined
  ) {
    return undefined;
  }
  const tail = `,"msg":"${MESSAGE}"${end}`;
  // Only reqId (base64url), keyId (12 hex digits), operation and method (the route's own) are
  // written without escaping; the URL, whatever the client sent, is escaped as pino escapes it.
  const text = (line: RequestLine, at: string) =>
    `${prefix}${at}${chindings},"reqId":"${line.reqId}","keyId":${quoted(line.keyId)},"operation":"${line.operation}","method":${quoted(line.method)},"url":${jsonUrl(line.url)},"status":${line.status},"durationMs":${line.durationMs},"bytes":${line.bytes}${tail}`;
  // The app's own destination makes the lines in runs, later (log-destination.ts keepLines).
  const keep = isBatched(stream) ? stream.keepLines(text) : undefined;
  return (line) => {
    if (!logger.isLevelEnabled('info')) return;
    // The time is the request's, whenever its line is made.
    if (keep !== undefined) keep(line, time.call(logger));
    else stream.write(text(line, time.call(logger)));
  };
}

function isBatched(stream: { write(line: string): unknown }): stream is BatchedDestination {
  return typeof (stream as Partial<BatchedDestination>).keepLines === 'function';
}

function quoted(text: string | null): string {
  return text === null ? 'null' : `"${text}"`;
}

/** JSON's string for the URL: Node hands the request target over as Latin-1 text, which jsonString escapes as JSON.stringify does. */
function jsonUrl(url: string | null): string {
  return url === null ? 'null' : jsonString(url);
}
