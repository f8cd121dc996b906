import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MESSAGES_TYPES, type MessagesType } from '../../query/messages.js';
import { contractSelection, requireListed } from '../../query/resolve.js';
import { TICKER_TYPES, type TickerType } from '../../query/ticker.js';
import type { ApiKeyRecord } from '../../store/store.js';
import { authenticate, refuse, usable } from '../auth.js';
import type { RouteDependencies } from '../operation.js';
import {
  futuresParam,
  marketParam,
  type OperationSpec,
  optionsParam,
  type ParamDef,
  type ParamValues,
  parseQueryString,
  readParams,
  timeParam,
} from '../params.js';
import { HttpProblem, type Problem, problemBody } from '../problems.js';
import { problemOf, sendProblem } from '../reply.js';
import { formatEventId, parseEventId, type StreamPosition } from './event-id.js';
import { EventStream, type StreamContent, type StreamSettings, type StreamStart } from './event-stream.js';
import { SSE_CONTENT_TYPE, sseComment, sseEvent, sseRetry } from './sse.js';
import type { StreamHub } from './stream-hub.js';
import type { MarketSelection } from './stream-items.js';
import type { StreamRegistry } from './stream-registry.js';
import { START, type StreamSource } from './stream-source.js';
import type { StreamTokens } from './stream-token.js';

export const STREAM_PATH = '/api/stream';
export const STREAM_TOKEN_PATH = '/api/stream/token';

export interface StreamOptions extends StreamSettings {
  /** Streams one key may hold open at once; one more is a 429. */
  readonly perKey: number;
}

export interface StreamDependencies {
  readonly route: RouteDependencies;
  readonly source: StreamSource;
  readonly hub: StreamHub;
  readonly registry: StreamRegistry;
  readonly tokens: StreamTokens;
  readonly options: StreamOptions;
  /** Wall-clock milliseconds, for token lifetimes (real time, even under the demo's virtual clock). */
  readonly now: () => number;
  /** The request line and metrics of a stream, which Fastify's hooks no longer see once it is taken over. */
  readonly observeHijacked: (request: FastifyRequest, reply: FastifyReply) => void;
}

function listParam<V extends string>(values: readonly V[]): ParamDef<ReadonlySet<V>> {
  const one = values.join('|');
  return {
    description: `One or more of ${values.join(', ')}, comma-separated.`,
    schema: { pattern: `^(${one})(,(${one}))*$` },
    parse(text) {
      const parts = text.split(',');
      const unknown = parts.filter((part) => !(values as readonly string[]).includes(part));
      if (unknown.length > 0)
        return { error: `expected one or more of ${values.join(', ')}, comma-separated` };
      return { value: new Set(parts as V[]) };
    },
  };
}

const publicationsParam: ParamDef<true> = {
  description: '`1`: announce end-of-day publications instead of market data.',
  schema: { enum: ['1'] },
  parse: (text) => (text === '1' ? { value: true } : { error: 'expected 1' }),
};

const textParam = (description: string): ParamDef<string> => ({
  description,
  parse: (text) => ({ value: text }),
});

const STREAM_PARAMS = {
  futures: futuresParam,
  options: optionsParam,
  market: marketParam,
  publications: publicationsParam,
  type: listParam(TICKER_TYPES),
  messages: listParam(MESSAGES_TYPES),
  from: timeParam,
  last_event_id: textParam(
    'Resume after this event id, for clients that cannot send the Last-Event-ID header (the header wins).',
  ),
  token: textParam(
    'A stream token from GET /api/stream/token, for clients that cannot send Authorization (EventSource).',
  ),
};

export const STREAM_SPEC: OperationSpec<typeof STREAM_PARAMS> = {
  params: STREAM_PARAMS,
  exactlyOne: [['futures', 'options', 'market', 'publications']],
  check(values) {
    if (values.publications === undefined) return [];
    return (['type', 'messages'] as const)
      .filter((name) => values[name] !== undefined)
      .map((name) => ({
        parameter: name,
        message: `${name} selects market data; publications=1 streams publications only`,
      }));
  },
};

type StreamParams = ParamValues<typeof STREAM_PARAMS>;

/**
 * GET /api/stream and GET /api/stream/token. The pipeline of every operation (operation.ts):
 * authenticate before any parameter is looked at, count against the rate limits (once, at
 * connect), read parameters, negotiate; every refusal before the stream starts is a
 * problem+json answer. Once the stream has started (200), a problem arrives as `event: error`.
 */
export function registerStream(app: FastifyInstance, deps: StreamDependencies): string[] {
  app.addHook('preClose', async () => deps.registry.closeAll(deps.options.retryMs));
  app.route({
    method: ['GET', 'HEAD'],
    url: STREAM_PATH,
    handler: (request, reply) => openStream(deps, request, reply),
  });
  app.route({
    method: ['GET', 'HEAD'],
    url: STREAM_TOKEN_PATH,
    handler: (request, reply) => issueToken(deps, request, reply),
  });
  return [STREAM_PATH, STREAM_TOKEN_PATH];
}

async function issueToken(deps: StreamDependencies, request: FastifyRequest, reply: FastifyReply) {
  try {
    const { route } = deps;
    const key = await authenticate(route.keys, request.headers.authorization, route.clock);
    request.keyId = key.id;
    await route.rateLimiter.admit(key, reply);
    readParams({ params: {} }, request.url, key.level);
    const { token, expiresAt } = deps.tokens.issue(key, deps.now());
    return reply
      .header('cache-control', 'no-store')
      .type('application/json; charset=utf-8')
      .send(`{"token":"${token}","expires":"${expiresAt}","expires_in":"${deps.tokens.ttlSeconds}"}`);
  } catch (error) {
    return sendProblem(reply, problemOf(request, error));
  }
}

async function openStream(deps: StreamDependencies, request: FastifyRequest, reply: FastifyReply) {
  let release: (() => void) | undefined;
  try {
    const { route, options, registry } = deps;
    const key = await authenticateStream(deps, request);
    request.keyId = key.id;
    await route.rateLimiter.admit(key, reply);
    const { values, format } = readParams(STREAM_SPEC, request.url, key.level);
    if (format !== undefined) {
      throw new HttpProblem({
        code: 'not-acceptable',
        detail: 'the stream is text/event-stream only; do not send format',
      });
    }
    if (!acceptsEventStream(request.headers.accept)) {
      throw new HttpProblem({ code: 'not-acceptable', detail: 'this operation answers text/event-stream' });
    }
    const content = contentOf(values, key);
    // As the ticker answers it: a well-formed code naming no listed contract is a 404, not a
    // stream that would never carry anything.
    const code = values.futures ?? values.options;
    if (code !== undefined) await requireListed(deps.source.reader, code);
    release = registry.reserve(key.id, options.perKey, options.retryMs);
    const lastEventId = utf8Header(request.headers['last-event-id']) ?? values.last_event_id;
    const start = await startOf(deps.source, content, lastEventId, values.from);
    const headers = {
      ...(reply.getHeaders() as Record<string, string>),
      'content-type': SSE_CONTENT_TYPE,
      'cache-control': 'no-store',
      // Proxies (nginx) must pass events on at once, not buffer them.
      'x-accel-buffering': 'no',
    };
    if (request.method === 'HEAD') {
      release();
      return reply.headers(headers).code(200).send();
    }
    reply.hijack();
    deps.observeHijacked(request, reply);
    const response = reply.raw;
    response.writeHead(200, headers);
    response.write(sseRetry(options.retryMs));
    if (registry.closing) {
      // Arrived on an open connection during shutdown: what every stream got, come back later.
      release();
      response.end(sseComment('server shutting down'));
      return;
    }
    if ('problem' in start) {
      release();
      response.end(sseEvent({ event: 'error', data: problemBody(start.problem) }));
      return;
    }
    const releaseSlot = release;
    release = undefined;
    let removeStream = () => {};
    const stream = new EventStream(
      response,
      deps.hub,
      content,
      start,
      options,
      route.metrics.streams,
      () => {
        releaseSlot();
        removeStream();
      },
      (failure) => request.log.error({ err: failure }, 'event stream: the store failed'),
    );
    removeStream = registry.add(stream, key.id);
    stream.open();
  } catch (error) {
    release?.();
    return sendProblem(reply, problemOf(request, error));
  }
}

/** The Authorization header, else a stream token in the query (EventSource sends no headers). */
async function authenticateStream(deps: StreamDependencies, request: FastifyRequest): Promise<ApiKeyRecord> {
  const { keys, clock } = deps.route;
  const header = request.headers.authorization;
  const mark = request.url.indexOf('?');
  const token =
    header === undefined && mark >= 0
      ? parseQueryString(request.url.slice(mark + 1)).values.get('token')?.[0]
      : undefined;
  if (token === undefined) return authenticate(keys, header, clock);
  const read = deps.tokens.read(token, deps.now());
  if (read === undefined) {
    throw refuse(
      'the stream token is malformed or has expired; get a new one from GET /api/stream/token',
      'invalid_token',
    );
  }
  const record = await keys.findKey(read.keyId);
  if (record === undefined || !deps.tokens.matches(token, record)) {
    throw refuse('the stream token is not valid', 'invalid_token');
  }
  return usable(record, clock);
}

function contentOf(values: StreamParams, key: ApiKeyRecord): StreamContent {
  if (values.publications) return { kind: 'publications' };
  if (key.level === 'end_of_day') {
    throw new HttpProblem({
      code: 'forbidden',
      detail: 'an end_of_day key may stream publications only: send publications=1',
    });
  }
  const messages = values.messages ?? new Set<MessagesType>();
  // Without type: every ticker type, unless only messages were asked for.
  const ticker =
    values.type ??
    (values.messages === undefined ? new Set<TickerType>(TICKER_TYPES) : new Set<TickerType>());
  const code = values.futures ?? values.options;
  if (code !== undefined) {
    const contracts = contractSelection(code);
    return {
      kind: 'market',
      selection: { market: contracts.market, contracts, ticker, messages } satisfies MarketSelection,
    };
  }
  if (values.market === undefined) throw new Error('exactly-one group without a value');
  return { kind: 'market', selection: { market: values.market, ticker, messages } };
}

/**
 * Where a new stream starts. Without Last-Event-ID: the current trading day from its first event
 * (or from `from=`). With one: right after it, if the store holds that event and it is of the
 * current or the previous trading day (a client that lost the connection over the day's turn
 * gets the rest of that day, then the new one); anything else ends the stream with an error.
 */
async function startOf(
  source: StreamSource,
  content: StreamContent,
  lastEventId: string | undefined,
  from: string | undefined,
): Promise<StreamStart | { problem: Problem }> {
  const current = (await source.reader.latestDate()) ?? '';
  const dayStart: StreamPosition = current === '' ? START : { date: current, seq: 0 };
  if (lastEventId === undefined) {
    return from === undefined
      ? { cursor: dayStart }
      : { cursor: dayStart, from: { date: current, time: from } };
  }
  const shown = JSON.stringify(lastEventId.slice(0, 40));
  const position = parseEventId(lastEventId);
  if (position === undefined) {
    return {
      problem: {
        code: 'bad-request',
        detail: `cannot resume after ${shown}: it is not an event id of this stream (yyyyMMdd-nnnnnn); reconnect without Last-Event-ID to start the current day`,
      },
    };
  }
  const unavailable = (why: string) => ({
    problem: {
      code: 'event-id-unavailable',
      detail: `cannot resume after ${shown}: ${why}; reconnect without Last-Event-ID to start the current day`,
    } as Problem,
  });
  if (position.date > current) return unavailable(`the store holds no trading day ${position.date}`);
  if (position.date < current) {
    const previous = (await source.reader.dates()).filter((date) => date < current).at(-1);
    if (position.date !== previous) {
      return unavailable(
        `the stream resumes within the current (${current}) and the previous trading day only`,
      );
    }
  }
  const held = await source.events.after({ date: position.date, seq: position.seq - 1, limit: 1 });
  if (held[0]?.seq !== position.seq)
    return unavailable(`the store holds no event ${formatEventId(position)}`);
  const cursor = content.kind === 'publications' ? { date: position.date, seq: 0 } : position;
  return { cursor, after: position };
}

/**
 * A header's (first) value as the text the client meant: Node reads header bytes as Latin-1,
 * and an EventSource sends the id it was given as UTF-8, so that a problem's detail quotes a
 * non-ASCII id as it was sent.
 */
function utf8Header(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text !== undefined && NOT_ASCII.test(text) ? Buffer.from(text, 'latin1').toString('utf8') : text;
}

const NOT_ASCII = /[^\p{ASCII}]/u;

/** No Accept, or one that allows text/event-stream (directly or by a wildcard) with q above 0. */
export function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((part) => {
    const [range = '', ...parameters] = part.split(';');
    const type = range.trim().toLowerCase();
    if (type !== 'text/event-stream' && type !== 'text/*' && type !== '*/*') return false;
    const q = parameters.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
