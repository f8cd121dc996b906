import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from 'fastify';
import type { DestinationStream } from 'pino';
import { type ExchangeClock, wallClock } from '../domain/exchange-clock.js';
import type { EventLog, KeyStore, MarketReader, MarketStore } from '../store/store.js';
import { createResponseCache } from './answer.js';
import { registerApiIndex } from './api-index.js';
import { registerCors } from './cors.js';
import { registerDashboard } from './dashboard.js';
import { DataVersions } from './data-versions.js';
import { exampleValuesSource } from './examples.js';
import { FastLane } from './fast-lane.js';
import { guardStore } from './guard-store.js';
import { registerHealth } from './health.js';
import { DrainingServer } from './http-server.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits, urlTooLong } from './limits.js';
import { batchedStdout } from './log-destination.js';
import { createMetrics } from './metrics.js';
import { registerMetricsEndpoint } from './metrics-endpoint.js';
import { type ClientErrorAnswer, createObservability, type Observability } from './observability.js';
import { examplePlaceholders } from './openapi.js';
import { type ListedRoute, listRoute, type RouteDependencies } from './operation.js';
import {
  PROBLEM_CONTENT_TYPE,
  type Problem,
  type ProblemCode,
  problemBody,
  problemStatus,
} from './problems.js';
import { createRateLimiter, type RateLimitOptions, type RateLimitStoreFactory } from './rate-limit.js';
import { registerDocumentation } from './reference-page.js';
import { problemOf, sendProblem } from './reply.js';
import { expectationProblem, hostProblem } from './request-head.js';
import { newRequestId } from './request-id.js';
import { lazyRequestLogger } from './request-logger.js';
import { dataRoute } from './routes/data.js';
import { datamineRoute } from './routes/datamine.js';
import { epiRoute } from './routes/epi.js';
import { intradayRoute } from './routes/intraday.js';
import { messagesRoute } from './routes/messages.js';
import { npiRoute } from './routes/npi.js';
import { tickerRoute } from './routes/ticker.js';
import { tradelogRoute } from './routes/tradelog.js';
import { tradesRoute } from './routes/trades.js';
import { sendingHeldFirst } from './sent-together.js';
import { STREAM_PATHS, STREAM_SECURITY_SCHEMES } from './stream/stream-docs.js';
import { StreamHub } from './stream/stream-hub.js';
import { StreamRegistry } from './stream/stream-registry.js';
import { registerStream, type StreamOptions } from './stream/stream-route.js';
import { createStreamTokens } from './stream/stream-token.js';

export interface AppOptions {
  readonly reader: MarketReader;
  readonly keys: KeyStore;
  /**
   * The exchange clock: every "now" of the operations, metrics and cache freshness (the wall
   * clock unless given; the demo gives its simulated exchange's, tests pin one).
   */
  readonly clock?: ExchangeClock;
  /** Pino level and destination, or false for none. The Authorization header is always redacted. */
  readonly logger?: false | { readonly level?: string; readonly stream?: DestinationStream };
  /** Request size and time limits (limits.ts); the defaults when omitted. */
  readonly limits?: HttpLimits;
  /** Requests per key and window by access level (0 = unlimited); default 10/s and 60/min. */
  readonly rateLimits?: RateLimitOptions;
  /** Where rate-limit counters live: in memory by default; a shared store for replicas. */
  readonly rateLimitStore?: RateLimitStoreFactory;
  /** Byte budget of the in-memory answer cache (default 32 MiB); 0 turns it off. */
  readonly cacheBytes?: number;
  /**
   * The store's commit notices: they keep the app's view of the data current without asking the
   * store per request, and drop stale cached answers at once. Without them the app keeps no
   * answer cache (it could not know when one is stale).
   */
  readonly onAppend?: MarketStore['onAppend'];
  /**
   * Whether the store's commit notices reach this process (MarketStore.changeNotices): /readyz
   * fails while they are lost and reports them when ready. Without it /readyz asks the reader only.
   */
  readonly changeNotices?: MarketStore['changeNotices'];
  /** How far the store's data trails its source (MarketStore.replicationLagSeconds): a metric. */
  readonly replicationLag?: () => number | undefined;
  /** Bearer token that opens GET /metrics to any client; without one only loopback clients may scrape. */
  readonly metricsToken?: string;
  /** Origins whose browser pages may call the API (cors.ts), `*` for any; none by default. */
  readonly corsOrigins?: readonly string[];
  /**
   * The stored event stream: with it and `onAppend`, the app serves GET /api/stream (server-sent
   * events, http/stream/); without either there is nothing to follow and no stream route.
   */
  readonly events?: EventLog;
  /** Event stream settings (config.ts); the defaults of DEFAULT_STREAM_OPTIONS when omitted. */
  readonly streams?: Partial<StreamOptions> & {
    /** HMAC secret of stream tokens, shared by replicas; a random one per process when omitted. */
    readonly tokenSecret?: string;
    readonly tokenTtlSeconds?: number;
  };
  /** The dashboard's build folder (dashboard.ts dashboardBuild): served at `/`; no page without it. */
  readonly dashboard?: string;
  /**
   * Whether cached answers are written before Fastify (fast-lane.ts; default true): the same bytes
   * either way, so turning it off is for comparing the two (tests, the benchmark).
   */
  readonly fastLane?: boolean;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = {
  perKey: 5,
  queueBytes: 1_048_576,
  heartbeatMs: 15_000,
  retryMs: 2_000,
  pageSize: 500,
};

/** Long enough to open (and re-open) a stream; short enough that a leaked token soon dies. */
export const STREAM_TOKEN_TTL_SECONDS = 600;

export const API_VERSION = '1';

/**
 * The nine operations in the specification's order: the one list the app registers, the
 * OpenAPI document describes and the tests iterate (no other copy to go stale).
 */
export const ROUTES: readonly ListedRoute[] = [
  listRoute(tickerRoute),
  listRoute(epiRoute),
  listRoute(npiRoute),
  listRoute(tradelogRoute),
  listRoute(messagesRoute),
  listRoute(tradesRoute),
  listRoute(dataRoute),
  listRoute(intradayRoute),
  listRoute(datamineRoute),
];

/**
 * An answer depends on its key (its level, its limits, whether it is refused), so a browser's
 * cache must not give one key's answer to a request made with another (Vary: Authorization).
 */
const COMMON_HEADERS = {
  'api-version': API_VERSION,
  vary: 'Accept, Accept-Encoding, Authorization',
} as const;
const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/**
 * Credentials must never reach a log line, whatever a log call includes: every header that can
 * carry one, whatever the credential's form (URLs: observability.ts, redactKeys).
 */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'x-api-key'];
const REDACT = ['req.headers', 'headers', 'request.headers'].flatMap((at) =>
  CREDENTIAL_HEADERS.map((name) => `${at}["${name}"]`),
);

/** Fastify's own 4xx errors, mapped into the catalogue; anything else is a failure. */
const FRAMEWORK_STATUS: Readonly<Record<number, ProblemCode>> = {
  400: 'bad-request',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  431: 'header-fields-too-large',
};

export function buildApp(options: AppOptions): FastifyInstance {
  const reader = guardStore(options.reader);
  const clock = options.clock ?? wallClock;
  const versions = new DataVersions(options.onAppend !== undefined);
  const stdout = options.logger && options.logger.stream === undefined ? batchedStdout() : undefined;
  const metrics = createMetrics({
    reader,
    clock,
    ...(stdout ? { logWriter: stdout.writer } : {}),
    ...(options.replicationLag ? { replicationLag: options.replicationLag } : {}),
  });
  const base = {
    reader,
    keys: guardStore(options.keys),
    versions,
    clock,
    rateLimiter: createRateLimiter({
      limits: options.rateLimits,
      store: options.rateLimitStore,
      onFallback: () => metrics.rateLimitFallback(),
    }),
    // Without commit notices a cached answer could never be known stale: no cache then.
    cache: versions.live ? createResponseCache(options.cacheBytes) : undefined,
    metrics,
  };
  const observability = createObservability({ metrics, logging: Boolean(options.logger) });
  const { maxUrlBytes } = options.limits ?? DEFAULT_HTTP_LIMITS;
  const lane =
    base.cache === undefined || options.fastLane === false
      ? undefined
      : new FastLane(base, {
          maxUrlBytes,
          keys: options.keys,
          commonHeaders: Object.entries(COMMON_HEADERS).flat(),
          observability,
        });
  const deps: RouteDependencies = { ...base, lane };
  const app = Fastify({
    logger: options.logger
      ? {
          level: options.logger.level ?? 'info',
          redact: { paths: REDACT, censor: '[redacted]' },
          stream: options.logger.stream ?? stdout,
        }
      : false,
    genReqId: newRequestId,
    // The request line carries the id itself (observability.ts): a child logger only when needed.
    childLoggerFactory: lazyRequestLogger,
    // observability.ts logs one line per request instead of Fastify's two.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    routerOptions: {
      ignoreTrailingSlash: true,
      // Operations parse the raw query themselves (params.ts): repeated and unknown names matter.
      querystringParser: () => ({}),
    },
    frameworkErrors: (error, request, reply) => {
      observability.observeFrameworkError(request, reply);
      reply.headers(COMMON_HEADERS).header('x-request-id', request.id);
      const detail =
        error.code === 'FST_ERR_BAD_URL' ? 'the URL is not validly percent-encoded' : error.message;
      sendProblem(reply, { code: 'bad-request', detail });
    },
    clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => {
      const answer = writeClientError(error, socket);
      if (answer) observability.observeClientError(app.log, answer);
    },
    serverFactory: (handler) => {
      // The fast lane's held answers do not wait for a computed one (sent-together.ts).
      const toFastify = sendingHeldFirst(handler);
      const server: DrainingServer = new DrainingServer(
        options.limits ?? DEFAULT_HTTP_LIMITS,
        (request, response) => {
          // While draining, Fastify's route adds Connection: close to every answer.
          if (lane === undefined || server.draining) toFastify(request, response);
          else lane.serve(request, response, toFastify);
        },
      );
      server.on('connect', (_request, socket: Socket) => {
        const answer = refuseConnect(socket);
        if (answer) observability.observeClientError(app.log, answer);
      });
      return server;
    },
    // While closing, a request that still arrives on an open connection is served (with
    // Connection: close) rather than refused with Fastify's non-problem 503: it was accepted.
    return503OnClosing: false,
  } satisfies FastifyServerOptions);

  if (stdout !== undefined) {
    // Lines of the current turn are not lost when the process exits or the app closes.
    const flush = () => stdout.flushSync();
    process.once('exit', flush);
    app.addHook('onClose', async () => {
      process.off('exit', flush);
      flush();
    });
  }
  const { cache } = deps;
  const unsubscribe = options.onAppend?.((notice) => {
    versions.apply(notice);
    cache?.dropStale(notice.dates);
  });
  if (unsubscribe) app.addHook('onClose', async () => unsubscribe());
  // Seeded after subscribing, so no commit falls between; a store down at start is read later.
  app.addHook('onReady', async () => {
    await versions.refresh(reader).catch(() => undefined);
  });
  const stopCounting = options.onAppend?.((notice) => deps.metrics.appended(notice));
  if (stopCounting) app.addHook('onClose', async () => stopCounting());
  // Before any route: each route gets its own log-and-metrics hook as it is registered.
  observability.install(app);

  // One hook for what every request meets first (each hook costs a turn of Fastify's runner).
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(COMMON_HEADERS).header('x-request-id', request.id);
    // A missing Host Node would answer itself, bare (http-server.ts turns that off); a repeated or
    // invalid one it would let through. Answered here, each is a problem with its request id,
    // logged and counted like any other answer.
    const badHost = hostProblem(request.raw);
    if (badHost !== undefined) {
      sendProblem(reply.header('connection', 'close'), { code: 'bad-request', detail: badHost });
      return;
    }
    // The asterisk form asks about the server itself, and only OPTIONS may (RFC 9112, 3.2.4).
    if (request.raw.url === '*') {
      if (request.method === 'OPTIONS') reply.code(204).header('allow', ALLOWED_METHODS).send();
      else sendProblem(reply, { code: 'bad-request', detail: 'the request target * is for OPTIONS only' });
      return;
    }
    const unmet = expectationProblem(request.raw);
    if (unmet !== undefined) {
      sendProblem(reply, { code: 'expectation-failed', detail: unmet });
      return;
    }
    const tooLong = urlTooLong(request.url, maxUrlBytes);
    if (tooLong !== undefined) {
      sendProblem(reply, tooLong);
      return;
    }
    done();
  });
  registerCors(app, options.corsOrigins ?? []);

  // Nothing here takes a body: never parse one, so other methods reach the 405 answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  for (const route of ROUTES) route.register(app, deps);
  const streamPaths = registerStreamRoutes(app, deps, options, observability);
  const examples = exampleValuesSource(deps.reader, examplePlaceholders(ROUTES));
  // Public: documentation, probes and (loopback or token) metrics need no API key.
  const paths = new Set([
    ...ROUTES.map((route) => route.path),
    ...streamPaths,
    ...registerDocumentation(
      app,
      ROUTES,
      examples,
      streamPaths.length > 0
        ? { paths: STREAM_PATHS, securitySchemes: STREAM_SECURITY_SCHEMES, tags: ['stream'] }
        : undefined,
    ),
    registerApiIndex(app, ROUTES, examples),
    ...registerHealth(app, deps.reader, options.changeNotices),
    registerMetricsEndpoint(app, deps.metrics, options.metricsToken),
    ...(options.dashboard === undefined ? [] : registerDashboard(app, options.dashboard)),
  ]);

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    // A plain OPTIONS (or a preflight from an origin CORS does not allow): what the path takes.
    if (paths.has(path) && request.method === 'OPTIONS') {
      return reply.code(204).header('allow', ALLOWED_METHODS).send();
    }
    if (paths.has(path) && request.method !== 'GET' && request.method !== 'HEAD') {
      return sendProblem(reply, {
        code: 'method-not-allowed',
        detail: `${path} answers GET, HEAD and OPTIONS only`,
        headers: { allow: ALLOWED_METHODS },
      });
    }
    return sendProblem(reply, {
      code: 'not-found',
      detail: `no operation at ${path}; the operations are ${[...paths].join(', ')}`,
    });
  });

  app.setErrorHandler((error, request, reply) => {
    const status =
      typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : undefined;
    const code = typeof status === 'number' ? FRAMEWORK_STATUS[status] : undefined;
    if (code !== undefined) {
      const detail = error instanceof Error ? error.message : 'the request was rejected';
      return sendProblem(reply, { code, detail });
    }
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendProblem(reply, {
        code: 'bad-request',
        detail: error instanceof Error ? error.message : 'bad request',
      });
    }
    return sendProblem(reply, problemOf(request, error));
  });

  return app;
}

/** GET /api/stream (and its token), fed by the store's commit notices through one hub. */
function registerStreamRoutes(
  app: FastifyInstance,
  deps: RouteDependencies,
  options: AppOptions,
  observability: Observability,
): string[] {
  const { events, onAppend } = options;
  if (events === undefined || onAppend === undefined) return [];
  const settings = { ...DEFAULT_STREAM_OPTIONS, ...options.streams };
  // Guarded like the reader: a store failure is a 503 before the stream starts, an error event after.
  const source = { events: guardStore(events), reader: deps.reader };
  const hub = new StreamHub(source, settings.pageSize);
  const unsubscribe = onAppend(() => hub.committed());
  app.addHook('onClose', async () => unsubscribe());
  return registerStream(app, {
    route: deps,
    source,
    hub,
    registry: new StreamRegistry({ keys: deps.keys, clock: deps.clock }),
    tokens: createStreamTokens(
      options.streams?.tokenSecret,
      options.streams?.tokenTtlSeconds ?? STREAM_TOKEN_TTL_SECONDS,
    ),
    options: settings,
    now: Date.now,
    observeHijacked: observability.observeHijacked,
  });
}

function pathOf(url: string): string {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers too large, a request
 * too slow, garbage on the wire): still answered as problem+json with a request id, written to
 * the raw socket. Returns what was written, for the request log and metrics; nothing when the
 * client is gone.
 */
function writeClientError(error: Error & { code?: string }, socket: Socket): ClientErrorAnswer | undefined {
  if (error.code === 'ECONNRESET' || !socket.writable) return undefined;
  const problem: Problem =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? { code: 'header-fields-too-large', detail: 'the request headers are too large' }
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? { code: 'request-timeout', detail: 'the request did not arrive in time' }
        : { code: 'bad-request', detail: 'the request could not be parsed as HTTP/1.1' };
  return writeRawProblem(socket, problem);
}

/**
 * CONNECT, which Node hands to a 'connect' listener with the raw socket (a proxy's business) and
 * otherwise closes without a word: answered as a problem, logged and counted, and closed.
 */
function refuseConnect(socket: Socket): ClientErrorAnswer | undefined {
  if (!socket.writable) return undefined;
  return writeRawProblem(socket, {
    code: 'method-not-allowed',
    detail: 'this server is not a proxy: it answers GET, HEAD and OPTIONS only',
    headers: { Allow: ALLOWED_METHODS },
  });
}

/** A problem written straight to the socket, which then closes (no request reached the app). */
function writeRawProblem(socket: Socket, problem: Problem): ClientErrorAnswer {
  const body = problemBody(problem);
  const status = problemStatus(problem.code);
  const requestId = newRequestId();
  const bytes = Buffer.byteLength(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${bytes}\r\n` +
      `API-Version: ${API_VERSION}\r\nX-Request-Id: ${requestId}\r\n${extraHeaders(problem)}Connection: close\r\n\r\n${body}`,
  );
  return { requestId, status, bytes };
}

function extraHeaders(problem: Problem): string {
  return Object.entries(problem.headers ?? {})
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
}
