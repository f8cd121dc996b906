import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import type { KeyStore, MarketReader } from '../store/store.js';
import { guardStore } from './guard-store.js';
import { type RouteDependencies, registerRoute } from './operation.js';
import {
  PROBLEM_CONTENT_TYPE,
  type Problem,
  type ProblemCode,
  problemBody,
  problemStatus,
} from './problems.js';
import { problemOf, sendProblem } from './reply.js';
import { dataRoute } from './routes/data.js';
import { datamineRoute } from './routes/datamine.js';
import { epiRoute } from './routes/epi.js';
import { intradayRoute } from './routes/intraday.js';
import { messagesRoute } from './routes/messages.js';
import { npiRoute } from './routes/npi.js';
import { tickerRoute } from './routes/ticker.js';
import { tradelogRoute } from './routes/tradelog.js';
import { tradesRoute } from './routes/trades.js';

export interface AppOptions {
  readonly reader: MarketReader;
  readonly keys: KeyStore;
  /** The exchange clock's source (tests pin it). */
  readonly clock?: () => Date;
  /** Pino level and destination, or false for none. The Authorization header is always redacted. */
  readonly logger?: false | { readonly level?: string; readonly stream?: DestinationStream };
}

export const API_VERSION = '1';

const COMMON_HEADERS = { 'api-version': API_VERSION, vary: 'Accept' } as const;
const ALLOWED_METHODS = 'GET, HEAD';
/** Keys must never reach a log line, whatever a log call includes. */
const REDACT = ['req.headers.authorization', 'headers.authorization', 'request.headers.authorization'];

/** Fastify's own 4xx errors, mapped into the catalogue; anything else is a failure. */
const FRAMEWORK_STATUS: Readonly<Record<number, ProblemCode>> = {
  400: 'bad-request',
  413: 'payload-too-large',
  414: 'uri-too-long',
  415: 'unsupported-media-type',
  431: 'header-fields-too-large',
};

export function buildApp(options: AppOptions): FastifyInstance {
  const deps: RouteDependencies = {
    reader: guardStore(options.reader),
    keys: guardStore(options.keys),
    clock: options.clock ?? (() => new Date()),
  };
  const app = Fastify({
    logger: options.logger
      ? {
          level: options.logger.level ?? 'info',
          redact: { paths: REDACT, censor: '[redacted]' },
          ...(options.logger.stream ? { stream: options.logger.stream } : {}),
        }
      : false,
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    routerOptions: {
      ignoreTrailingSlash: true,
      // Operations parse the raw query themselves (params.ts): repeated and unknown names matter.
      querystringParser: () => ({}),
    },
    frameworkErrors: (error, request, reply) => {
      reply.headers(COMMON_HEADERS).header('x-request-id', request.id);
      const detail =
        error.code === 'FST_ERR_BAD_URL' ? 'the URL is not validly percent-encoded' : error.message;
      sendProblem(reply, { code: 'bad-request', detail });
    },
    clientErrorHandler: writeClientError,
  } satisfies FastifyServerOptions);

  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(COMMON_HEADERS).header('x-request-id', request.id);
    done();
  });

  // Nothing here takes a body: never parse one, so other methods reach the 405 answer.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

  const paths = new Set([
    registerRoute(app, deps, tickerRoute),
    registerRoute(app, deps, epiRoute),
    registerRoute(app, deps, npiRoute),
    registerRoute(app, deps, tradelogRoute),
    registerRoute(app, deps, messagesRoute),
    registerRoute(app, deps, tradesRoute),
    registerRoute(app, deps, dataRoute),
    registerRoute(app, deps, intradayRoute),
    registerRoute(app, deps, datamineRoute),
  ]);

  app.setNotFoundHandler((request, reply) => {
    const path = pathOf(request.url);
    if (paths.has(path) && request.method !== 'GET' && request.method !== 'HEAD') {
      return sendProblem(reply, {
        code: 'method-not-allowed',
        detail: `${path} answers GET and HEAD only`,
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

function pathOf(url: string): string {
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (headers too large, garbage on
 * the wire): still answered as problem+json, written to the raw socket.
 */
function writeClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || !socket.writable) return;
  const code: ProblemCode = error.code === 'HPE_HEADER_OVERFLOW' ? 'header-fields-too-large' : 'bad-request';
  const problem: Problem = {
    code,
    detail:
      code === 'bad-request'
        ? 'the request could not be parsed as HTTP/1.1'
        : 'the request headers are too large',
  };
  const body = problemBody(problem);
  const status = problemStatus(code);
  socket.end(
    `HTTP/1.1 ${status} ${status === 431 ? 'Request Header Fields Too Large' : 'Bad Request'}\r\n` +
      `Content-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `API-Version: ${API_VERSION}\r\nConnection: close\r\n\r\n${body}`,
  );
}
