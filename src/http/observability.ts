import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  onResponseHookHandler,
} from 'fastify';
import { FailureLog } from './failure-log.js';
import type { Metrics } from './metrics.js';
import { operationName } from './openapi.js';
import { requestLineWriter } from './request-line.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Public id of the API key that authenticated the request ('' when none did); safe to log. */
    keyId: string;
  }
  interface FastifyInstance {
    /** When a store failure's cause is logged (problemOf, reply.ts): not once per request of an outage. */
    storeFailures: FailureLog;
  }
}

/** The operation label of requests no route matched (404, 405, malformed URLs). */
export const UNMATCHED = 'unmatched';

export interface ObservabilityOptions {
  readonly metrics: Metrics;
  /** Whether request lines are logged at all (the app has a logger). */
  readonly logging: boolean;
}

export interface Observability {
  /** Adds the hooks; before any route is registered. */
  install(app: FastifyInstance): void;
  /** For the answers of Fastify's frameworkErrors (a malformed URL), which run no hooks. */
  observeFrameworkError(request: FastifyRequest, reply: FastifyReply): void;
  /**
   * For an answer its route took over from Fastify (reply.hijack(): the event stream), whose
   * onResponse hooks never run: the route's request line and metrics when the connection
   * closes, `durationMs` the answer's whole life and `bytes` null (its events are counted by
   * the stream metrics).
   */
  observeHijacked(request: FastifyRequest, reply: FastifyReply): void;
  /**
   * For the answers Node's parser makes us write to the raw socket (400, 408, 431: no request
   * was parsed): the same request line and counter as any answer, under `unmatched`. Their
   * duration is unknown (no request start was seen), so the line has none and the duration
   * histogram is left alone.
   */
  observeClientError(log: FastifyBaseLogger, answer: ClientErrorAnswer): void;
  /**
   * The request line and metrics of an operation's path, for answers written without Fastify's
   * hooks (fast-lane.ts): the same line and series as the route's own. After install().
   */
  operationObserver(path: string): RequestObserver;
}

/** Counts, times and logs answered requests of one operation. */
export interface RequestObserver {
  /** elapsedMs: from the request's arrival to its answer handed to the socket; bytes: body bytes sent. */
  observe(
    requestId: string,
    keyId: string,
    method: string,
    url: string,
    status: number,
    elapsedMs: number,
    bytes: number | null,
  ): void;
}

export interface ClientErrorAnswer {
  readonly requestId: string;
  readonly status: number;
  readonly bytes: number;
}

/**
 * One log line and one metrics update per request, at onResponse. Each route gets its own hook
 * (through onRoute) holding its operation name and metric children, so a request looks nothing
 * up; requests no route matched go through one global hook.
 */
export function createObservability(options: ObservabilityOptions): Observability {
  let unmatched: onResponseHookHandler = (_request, _reply, done) => done();
  const unparsed = options.metrics.operation(UNMATCHED);
  let log: FastifyBaseLogger | undefined;
  const observers = new Map<string, RequestObserver>();
  const observerOf = (operation: string): RequestObserver => {
    let observer = observers.get(operation);
    if (observer === undefined) {
      if (log === undefined) throw new Error('observability is not installed');
      observer = requestObserver(operation, options, log);
      observers.set(operation, observer);
    }
    return observer;
  };
  return {
    install(app) {
      log = app.log;
      app.decorateRequest('keyId', '');
      app.decorate('storeFailures', new FailureLog());
      unmatched = onResponseHook(observerOf(UNMATCHED));
      app.addHook('onRoute', (route) => {
        const hook = onResponseHook(observerOf(operationOf(route.url ?? route.path ?? '')));
        const existing = route.onResponse;
        route.onResponse =
          existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
      });
      app.addHook('onResponse', function observeUnmatched(request, reply, done) {
        if (request.is404) return unmatched.call(this, request, reply, done);
        done();
      });
    },
    observeFrameworkError(request, reply) {
      reply.raw.once('finish', () => unmatched.call(request.server, request, reply, () => {}));
    },
    observeHijacked(request, reply) {
      const observer = observerOf(operationOf(request.routeOptions.url ?? request.url));
      reply.raw.once('close', () =>
        observer.observe(
          request.id,
          request.keyId,
          request.method,
          request.url,
          reply.raw.statusCode,
          reply.elapsedTime,
          null,
        ),
      );
    },
    observeClientError(log, answer) {
      unparsed.count(answer.status);
      if (!options.logging) return;
      // Nothing of the request is logged: it was not parsed, and its bytes may hold a key.
      requestLineWriter(log)({
        reqId: answer.requestId,
        keyId: null,
        operation: UNMATCHED,
        method: null,
        url: null,
        status: answer.status,
        durationMs: null,
        bytes: answer.bytes,
      });
    },
    operationObserver: (path) => observerOf(operationOf(path)),
  };
}

function operationOf(url: string): string {
  // The reference page's assets are one operation: a label per file would only add series.
  if (url === '/docs' || url.startsWith('/docs/')) return 'docs';
  if (url === '/api/openapi.json') return 'openapi';
  // @fastify/cors answers preflights of every path on one OPTIONS route (cors.ts).
  if (url === '*') return 'preflight';
  return operationName(url);
}

function requestObserver(
  operation: string,
  options: ObservabilityOptions,
  log: FastifyBaseLogger,
): RequestObserver {
  const recorder = options.metrics.operation(operation);
  const writeLine = options.logging ? requestLineWriter(log) : undefined;
  return {
    observe(requestId, keyId, method, url, status, elapsedMs, bytes) {
      recorder.record(status, elapsedMs / 1000);
      // The id first, where a request's child logger would have put it: the same line, without
      // making the child (request-logger.ts). The Authorization header is never part of a line.
      writeLine?.({
        reqId: requestId,
        keyId: keyId === '' ? null : keyId,
        operation,
        method,
        url: redactedUrl(url),
        status,
        durationMs: Math.round(elapsedMs * 1000) / 1000,
        bytes,
      });
    },
  };
}

/** The onResponse hook of a route (or of unmatched requests): its observer, fed from Fastify's request and reply. */
function onResponseHook(observer: RequestObserver): onResponseHookHandler {
  return function observe(request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) {
    observer.observe(
      request.id,
      request.keyId,
      request.method,
      request.url,
      reply.statusCode,
      reply.elapsedTime,
      bytesSent(request, reply),
    );
    done();
  };
}

/** Body bytes written: the Content-Length of the answer (coded, when compressed); none for HEAD and 304. */
function bytesSent(request: FastifyRequest, reply: FastifyReply): number | null {
  if (request.method === 'HEAD' || reply.statusCode === 304 || reply.statusCode === 204) return 0;
  const length = reply.getHeader('content-length');
  if (typeof length === 'number') return length;
  return typeof length === 'string' ? Number(length) : null;
}

/** Pollers send the same few URLs: each is redacted once (bounded: forgotten all at once when full). */
const redactedUrls = new Map<string, string>();
const REDACTED_URLS = 1024;

function redactedUrl(url: string): string {
  let safe = redactedUrls.get(url);
  if (safe === undefined) {
    safe = redactKeys(url);
    if (redactedUrls.size >= REDACTED_URLS) redactedUrls.clear();
    redactedUrls.set(url, safe);
  }
  return safe;
}

/**
 * No path segment or parameter value of the API is longer than 20 characters (the longest,
 * `registered_trades`, has 17): anything longer may be a credential pasted into the URL.
 */
const LONGEST_PLAIN = 20;
/** Parameter names that announce a credential, whatever their value looks like. */
const CREDENTIAL_NAME =
  /^(?:api[-_]?key|key|token|access[-_]?token|auth|authorization|bearer|secret|password|credentials?)$/i;
const REDACTED = '[redacted]';

/**
 * A key pasted into the URL (a client's mistake) must not reach the log either, whatever its
 * form: every path segment and parameter name or value longer than any of the API's, and the
 * value of a parameter named like a credential, is logged as [redacted].
 */
export function redactKeys(url: string): string {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  let safe = path.length <= LONGEST_PLAIN ? path : path.split('/').map(redactLong).join('/');
  if (mark < 0) return safe;
  safe += '?';
  safe += url
    .slice(mark + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return redactLong(pair);
      const name = pair.slice(0, equals);
      const value = pair.slice(equals + 1);
      const credential = CREDENTIAL_NAME.test(decodedName(name));
      return `${redactLong(name)}=${credential ? REDACTED : redactLong(value)}`;
    })
    .join('&');
  return safe;
}

function redactLong(text: string): string {
  return text.length > LONGEST_PLAIN ? REDACTED : text;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replaceAll('+', ' '));
  } catch {
    return name;
  }
}
