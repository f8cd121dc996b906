import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessLevel } from '../query/context.js';
import { type Coding, chooseEncoding, compress, shouldCompress } from './compression.js';
import { contentDisposition, csvFileName } from './csv-file-name.js';
import { digestOf, noneMatchHits } from './etag.js';
import { CONTENT_TYPES, type Representation } from './negotiation.js';
import type { Route, RouteDependencies } from './operation.js';
import type { ParamDefs, ParamValues } from './params.js';
import { type CachedAnswer, ResponseCache } from './response-cache.js';

/**
 * The last step of the pipeline: a 200 (or 304) with its validators. No day is final: the feed
 * may correct a past day at any time (docs/feed-format.md), so nothing is promised immutable.
 * An answer about a past trading day that the request names changes only with a late event for
 * that day: its ETag carries the day's revision and clients revalidate it on each use (a 304
 * while the day is unchanged). Anything about the current day changes with each event: its
 * ETag carries the store's version and clients may reuse it for a second. Serialised bytes
 * (and their gzip / brotli forms) come from the response cache when it holds them, before any
 * query runs; a commit drops the cached answers of the days it touched (app.ts).
 */

export const PAST_DAY_CACHE_CONTROL = 'private, no-cache';
export const CURRENT_CACHE_CONTROL = 'private, max-age=1';

/** 32 MiB of answers unless the app is told otherwise: with the store's 64 MiB read map, this keeps a
 * server with a year of history under 300 MB (docs/benchmarks.md). */
export const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;

export interface AnswerInput<S extends ParamDefs> {
  readonly values: ParamValues<S>;
  readonly representation: Representation;
  readonly level: AccessLevel;
}

export async function sendAnswer<S extends ParamDefs, R>(
  deps: RouteDependencies,
  request: FastifyRequest,
  reply: FastifyReply,
  route: Route<S, R>,
  input: AnswerInput<S>,
): Promise<FastifyReply> {
  const { cache } = deps;
  const { versions } = deps;
  const key = cacheKey(route.path, input);
  let answer = currentAnswer(deps, key);
  if (answer === undefined) {
    await versions.refresh(deps.reader);
    const version = versions.version;
    if (cache === undefined) {
      answer = await produce(deps, route, input, version);
    } else {
      deps.metrics.cacheMiss();
      // Computed once for every request that misses it meanwhile (single flight).
      answer = await cache.fill(key, version, async () => {
        const generation = versions.generation;
        const made = await produce(deps, route, input, version);
        // A commit noticed while the query ran may have come after what the query read: not kept.
        if (versions.generation === generation) cache.set(key, made);
        return made;
      });
    }
  } else {
    deps.metrics.cacheHit();
  }

  const out = validatorsOf(answer, request.headers['accept-encoding'], request.headers['if-none-match']);
  reply.header('etag', out.etag).header('cache-control', out.cacheControl);
  if (out.notModified) return reply.code(304).send();

  let body = answer.body;
  if (out.coding !== undefined) {
    body = answer.coded[out.coding] ?? (await codedBody(deps, key, answer, out.coding));
    reply.header('content-encoding', out.coding);
  }
  if (answer.contentDisposition !== undefined) reply.header('content-disposition', answer.contentDisposition);
  return reply.code(200).header('content-type', CONTENT_TYPES[input.representation]).send(body);
}

/**
 * The cached answer under `key` if it is still the answer now, else undefined (and a stale one
 * is dropped). Reads memory only: versions is moved by the store's commit notices, which also
 * drop the past-day answers of the days they touch.
 */
export function currentAnswer(deps: RouteDependencies, key: string): CachedAnswer | undefined {
  const answer = deps.cache?.get(key);
  if (answer === undefined || answer.pastDay) return answer;
  if (
    answer.version !== deps.versions.version ||
    (answer.clockSecond !== undefined && answer.clockSecond !== secondOf(deps))
  ) {
    deps.cache?.delete(key);
    return undefined;
  }
  return answer;
}

/** How an answer goes out to one request: its coding, validators, and whether the client already has it. */
export interface AnswerValidators {
  /** The content coding to send, if the client accepts one and the body is worth compressing. */
  readonly coding: Coding | undefined;
  readonly etag: string;
  readonly cacheControl: string;
  /** If-None-Match names the representation: a 304. */
  readonly notModified: boolean;
}

export function validatorsOf(
  answer: CachedAnswer,
  acceptEncoding: string | undefined,
  ifNoneMatch: string | undefined,
): AnswerValidators {
  const choice = chooseEncoding(acceptEncoding);
  const coding = shouldCompress(choice, answer.body.length) ? choice.coding : undefined;
  const etag = answer.etags[coding ?? 'identity'];
  return {
    coding,
    etag,
    cacheControl: answer.pastDay ? PAST_DAY_CACHE_CONTROL : CURRENT_CACHE_CONTROL,
    notModified: noneMatchHits(ifNoneMatch, etag),
  };
}

/**
 * (operation, access level, representation, parameter values in name order): everything the
 * bytes depend on besides the data, which the entry's version (or its days' revision) covers.
 */
export function cacheKey<S extends ParamDefs>(path: string, input: AnswerInput<S>): string {
  const values = input.values as Readonly<Record<string, unknown>>;
  const { level, representation } = input;
  // The values of a query are one shared object (remembered-params.ts): their part is built once,
  // and so is the last whole key made from them (a fresh string would be hashed anew per lookup).
  let memo = valuesKeys.get(values);
  if (memo === undefined) {
    let part = '';
    for (const name of Object.keys(values).sort()) part += `|${name}=${canonical(values[name])}`;
    memo = { part, path: '', level: '', representation: '', key: '' };
    valuesKeys.set(values, memo);
  }
  if (memo.path !== path || memo.level !== level || memo.representation !== representation) {
    memo.key = `${path}|${level}|${representation}${memo.part}`;
    memo.path = path;
    memo.level = level;
    memo.representation = representation;
  }
  return memo.key;
}

interface KeyMemo {
  readonly part: string;
  path: string;
  level: string;
  representation: string;
  key: string;
}

const valuesKeys = new WeakMap<object, KeyMemo>();

/** Parameter values are strings or parsed codes that keep the text they were parsed from. */
function canonical(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'text' in value && typeof value.text === 'string') {
    return value.text;
  }
  return JSON.stringify(value);
}

async function produce<S extends ParamDefs, R>(
  deps: RouteDependencies,
  route: Route<S, R>,
  input: AnswerInput<S>,
  version: number,
): Promise<CachedAnswer> {
  let clockRead = false;
  const clock = () => {
    clockRead = true;
    return deps.clock();
  };
  const result = await route.run({ reader: deps.reader, access: input.level, clock }, input.values);
  const text = input.representation === 'csv' ? route.csv(result, input.values) : route.json(result);
  // Unpooled, so that a cached small answer does not pin a shared 8 KiB slab.
  const body = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
  body.write(text);
  const date = route.dateOf?.(result);
  const from = route.firstDateOf?.(result) ?? date;
  const pastDay =
    !clockRead &&
    date !== undefined &&
    isNamed(route, input.values, date) &&
    date < ((await deps.reader.latestDate()) ?? '');
  // A past day's tag moves with its revision (a late correction), not with every event.
  const tag = pastDay
    ? `${digestOf(body)}-r${deps.versions.revisionOf(date, from)}`
    : `${digestOf(body)}-v${version}`;
  return {
    body,
    // A coded representation is a different entity (RFC 9110 8.8.3): its own strong tag.
    etags: { identity: `"${tag}"`, br: `"${tag}-br"`, gzip: `"${tag}-gz"` },
    pastDay,
    version,
    clockSecond: clockRead ? secondOf(deps) : undefined,
    date,
    from,
    // The intraday operations are about the current day: the store's latest.
    contentDisposition:
      input.representation === 'csv'
        ? contentDisposition(
            csvFileName(route.path, route.spec, input.values, date ?? (await deps.reader.latestDate())),
          )
        : undefined,
    coded: {},
  };
}

/**
 * Whether the request itself names the day (a date-like parameter honoured with that value):
 * an undated request about a past day (data's default date, end_of_day access) moves on.
 */
function isNamed<S extends ParamDefs, R>(route: Route<S, R>, values: ParamValues<S>, date: string): boolean {
  const sent = values as Readonly<Record<string, unknown>>;
  for (const name of Object.keys(sent)) {
    if (route.spec.params[name]?.dateLike === true && sent[name] === date) return true;
  }
  return false;
}

function secondOf(deps: RouteDependencies): number {
  return Math.floor(deps.clock().getTime() / 1000);
}

async function codedBody(
  deps: RouteDependencies,
  key: string,
  answer: CachedAnswer,
  coding: Coding,
): Promise<Buffer> {
  const bytes = await compress(answer.body, coding);
  deps.cache?.addCoded(key, answer, coding, bytes);
  return bytes;
}

/** The answer cache of an app: undefined (off) for a zero budget. */
export function createResponseCache(bytes: number = DEFAULT_CACHE_BYTES): ResponseCache | undefined {
  if (!Number.isSafeInteger(bytes) || bytes < 0) {
    throw new RangeError(`cacheBytes must be an integer >= 0, got ${bytes}`);
  }
  return bytes === 0 ? undefined : new ResponseCache(bytes);
}
