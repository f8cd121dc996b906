import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ExchangeClock } from '../domain/exchange-clock.js';
import type { QueryContext } from '../query/context.js';
import type { KeyStore, MarketReader } from '../store/store.js';
import { sendAnswer } from './answer.js';
import { authenticate } from './auth.js';
import type { DataVersions } from './data-versions.js';
import type { FastLane } from './fast-lane.js';
import type { Metrics } from './metrics.js';
import { negotiate } from './negotiation.js';
import type { DocumentedOperation } from './openapi.js';
import type { OperationDocs } from './operation-docs.js';
import type { OperationSpec, ParamDefs, ParamValues } from './params.js';
import { HttpProblem } from './problems.js';
import { applyAdmission, type RateLimiter } from './rate-limit.js';
import { RememberedParams } from './remembered-params.js';
import { problemOf, sendProblem } from './reply.js';
import type { ResponseCache } from './response-cache.js';

/** One operation: its path, parameter spec, query and the two writers of its answer. */
export interface Route<S extends ParamDefs, R> {
  readonly path: string;
  readonly spec: OperationSpec<S>;
  readonly run: (context: QueryContext, values: ParamValues<S>) => Promise<R>;
  readonly json: (result: R) => string;
  /** The CSV writer; it may read the parameters where one shapes the CSV (datamine's layout). */
  readonly csv: (result: R, values: ParamValues<S>) => string;
  /** Summary, prose, examples and response schema for the OpenAPI document (openapi.ts). */
  readonly docs: OperationDocs<S>;
  /**
   * The trading day the answer is about (a range's last day). A past day that the request
   * names makes the answer a past day's, revalidated by the day's revision (answer.ts); without
   * it the answer is the current day's.
   */
  readonly dateOf?: (result: R) => string | undefined;
  /** A range's first day, when the answer covers several (a late event for any of them changes it). */
  readonly firstDateOf?: (result: R) => string | undefined;
}

export function defineRoute<S extends ParamDefs, R>(route: Route<S, R>): Route<S, R> {
  return route;
}

/**
 * A route with its parameter and result types hidden, so that the nine operations share one
 * list (app.ts ROUTES): what the OpenAPI generator reads, plus a way to register it.
 */
export interface ListedRoute extends DocumentedOperation {
  readonly register: (app: FastifyInstance, deps: RouteDependencies) => void;
}

export function listRoute<S extends ParamDefs, R>(route: Route<S, R>): ListedRoute {
  return {
    path: route.path,
    spec: route.spec,
    docs: route.docs,
    register: (app, deps) => registerRoute(app, deps, route),
  };
}

export interface RouteDependencies {
  readonly reader: MarketReader;
  readonly keys: KeyStore;
  /** The store's version and day revisions as the commit notices left them (cache validation). */
  readonly versions: DataVersions;
  readonly clock: ExchangeClock;
  readonly rateLimiter: RateLimiter;
  /** Serialised answers; undefined when caching is off. */
  readonly cache: ResponseCache | undefined;
  /** Prometheus metrics of the app; the cache counts its hits and misses here. */
  readonly metrics: Metrics;
  /** Cached answers written before Fastify (fast-lane.ts); undefined when off (no cache, or turned off). */
  readonly lane?: FastLane;
}

/**
 * Registers GET and HEAD for an operation. The pipeline, in this order: authenticate
 * (before any parameter is looked at), count against the key's rate limits (429), read
 * parameters (400 with every issue), negotiate (406), then answer.ts: the cached bytes or the
 * query (404) written in one string, with ETag, 304 and compression. Returns the route (app.ts
 * documents what it registered).
 */
export function registerRoute<S extends ParamDefs, R>(
  app: FastifyInstance,
  deps: RouteDependencies,
  route: Route<S, R>,
): Route<S, R> {
  const params = new RememberedParams(route.spec);
  deps.lane?.add(route.path, params);
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      // A request the fast lane could not answer comes authenticated and counted (fast-lane.ts).
      const handedOver = deps.lane?.handedOver(request.raw);
      const key =
        handedOver?.key ?? (await authenticate(deps.keys, request.headers.authorization, deps.clock));
      request.keyId = key.id;
      applyAdmission(handedOver ? handedOver.admission : await deps.rateLimiter.count(key), reply);
      const { values, format, ignored } = params.read(request.url, key.level);
      if (ignored.length > 0) reply.header('ignored-parameters', ignored.join(', '));
      const representation = format ?? negotiate(request.headers.accept);
      if (representation === undefined) {
        throw new HttpProblem({
          code: 'not-acceptable',
          detail: 'this operation answers application/json or text/csv (or send format=json|csv)',
        });
      }
      return await sendAnswer(deps, request, reply, route, { values, representation, level: key.level });
    } catch (error) {
      return sendProblem(reply, problemOf(request, error));
    }
  };
  // HEAD registered with GET, not derived from it: the derived one writes Content-Length: 0 on a 304.
  app.route({ method: ['GET', 'HEAD'], url: route.path, handler: handle });
  return route;
}
