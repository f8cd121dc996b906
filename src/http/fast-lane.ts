import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { AccessLevel } from '../query/context.js';
import type { ApiKeyRecord } from '../store/store.js';
import { cacheKey, currentAnswer, validatorsOf } from './answer.js';
import { authenticate } from './auth.js';
import { ConnectionKeys } from './connection-keys.js';
import { CONTENT_TYPES, negotiate } from './negotiation.js';
import type { Observability, RequestObserver } from './observability.js';
import type { RouteDependencies } from './operation.js';
import type { ParamDefs, ReadParams } from './params.js';
import type { Admission, RateLimiter } from './rate-limit.js';
import type { RememberedParams } from './remembered-params.js';
import { hostProblem } from './request-head.js';
import { newRequestId } from './request-id.js';
import { endTogether } from './sent-together.js';

/**
 * Cached answers written straight to Node's response, before Fastify sees the request. Pollers ask
 * for the same few answers many times a second, and Fastify's generic machinery per request (its
 * request and reply objects, hook runners, header bookkeeping, the send pipeline) cost more than
 * everything the answer itself needs (docs/benchmarks.md). A request takes the lane only when it is
 * a plain GET or HEAD of an operation whose answer is cached and current, from a valid key, with a
 * query read before and a coding already made; it meets the same steps in the same order
 * (authenticate, count against the key's limits, parameters, negotiation, the cached bytes with
 * ETag, 304 and coding) and gets the same bytes, the same request line and the same metrics as on
 * Fastify's route. Anything else goes to Fastify: as it came when the key is refused, else with
 * the key and what counting decided (handedOver), so no request is authenticated or counted twice.
 */

export interface FastLaneOptions {
  readonly maxUrlBytes: number;
  /**
   * The key store itself, not its guard (guard-store.ts): the lane only asks what it remembers
   * (connection-keys.ts) and hands the request to the route on any throw, so the guard's wrapper
   * would only cost every cached answer its call.
   */
  readonly keys: RouteDependencies['keys'];
  /** The headers every answer carries (app.ts), as name/value pairs. */
  readonly commonHeaders: readonly string[];
  /** The routes' request lines and metrics, which the lane's answers share. */
  readonly observability: Pick<Observability, 'operationObserver'>;
}

interface LaneRoute {
  readonly path: string;
  /** The route's remembered parameters (remembered-params.ts known): queries read before only. */
  readonly known: (url: string, access: AccessLevel) => ReadParams<ParamDefs> | undefined;
  readonly observer: RequestObserver;
}

export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

/** A request the lane authenticated and counted, then handed to the route (a refusal, or no cached answer). */
export interface HandedOver {
  readonly key: ApiKeyRecord;
  readonly admission: Admission | undefined;
}

export class FastLane {
  readonly #routes = new Map<string, LaneRoute>();
  readonly #handedOver = new WeakMap<IncomingMessage, HandedOver>();
  readonly #connectionKeys: ConnectionKeys;

  constructor(
    private readonly deps: Omit<RouteDependencies, 'lane'>,
    private readonly options: FastLaneOptions,
  ) {
    this.#connectionKeys = new ConnectionKeys(options.keys, deps.clock);
  }

  /** An operation's path and its remembered parameters (shared with its route). */
  add<S extends ParamDefs>(path: string, params: RememberedParams<S>): void {
    this.#routes.set(path, {
      path,
      known: (url, access) => params.known(url, access),
      observer: this.options.observability.operationObserver(path),
    });
  }

  /** For the route a request was handed to: its key and what counting it decided, if the lane did both. */
  handedOver(request: IncomingMessage): HandedOver | undefined {
    return this.#handedOver.get(request);
  }

  /** Answers the request from the cache, or hands it to `next` (Fastify) untouched. */
  serve(request: IncomingMessage, response: ServerResponse, next: RequestHandler): void {
    const route = this.#routeOf(request);
    if (route === undefined) {
      next(request, response);
      return;
    }
    const started = performance.now();
    let key: ApiKeyRecord | undefined;
    try {
      key = this.#connectionKeys.known(request.socket, request.headers.authorization);
    } catch {
      // A key expired since, or a store that failed: the route answers it.
      next(request, response);
      return;
    }
    if (key === undefined) void this.#authenticate(route, request, response, next, started);
    else this.#count(route, key, request, response, next, started);
  }

  /** The operation of a request that nothing but its answer's state keeps from the lane. */
  #routeOf(request: IncomingMessage): LaneRoute | undefined {
    const { method, url, headers } = request;
    if ((method !== 'GET' && method !== 'HEAD') || url === undefined) return undefined;
    if (url.length > this.options.maxUrlBytes) return undefined;
    // Fastify's route answers these: a missing, repeated or invalid Host (400), CORS, a body it refuses to read.
    if (hostProblem(request) !== undefined) return undefined;
    if (headers.origin !== undefined || headers['transfer-encoding'] !== undefined) return undefined;
    // An expectation: met by Node (100-continue) or refused by the route (417); rare either way.
    if (headers.expect !== undefined) return undefined;
    if (headers['content-length'] !== undefined && headers['content-length'] !== '0') return undefined;
    if (headers.authorization === undefined) return undefined;
    const mark = url.indexOf('?');
    return this.#routes.get(mark < 0 ? url : url.slice(0, mark));
  }

  async #authenticate(
    route: LaneRoute,
    request: IncomingMessage,
    response: ServerResponse,
    next: RequestHandler,
    started: number,
  ): Promise<void> {
    const header = request.headers.authorization ?? '';
    // A refused key goes to Fastify as it came: its route answers the 401.
    const key = await authenticate(this.deps.keys, header, this.deps.clock).catch(() => undefined);
    if (key === undefined) {
      next(request, response);
      return;
    }
    this.#connectionKeys.remember(request.socket, header, key);
    this.#count(route, key, request, response, next, started);
  }

  #count(
    route: LaneRoute,
    key: ApiKeyRecord,
    request: IncomingMessage,
    response: ServerResponse,
    next: RequestHandler,
    started: number,
  ): void {
    let counting: ReturnType<RateLimiter['count']>;
    try {
      counting = this.deps.rateLimiter.count(key);
    } catch {
      next(request, response);
      return;
    }
    // The process's own counters answer at once: no turn of the microtask queue for them.
    if (counting instanceof Promise) {
      counting.then(
        (admission) => this.#answer(route, { key, admission }, request, response, next, started),
        () => next(request, response),
      );
    } else this.#answer(route, { key, admission: counting }, request, response, next, started);
  }

  /** Counted: whatever the lane cannot answer goes to Fastify with the key and the count. */
  #answer(
    route: LaneRoute,
    handover: HandedOver,
    request: IncomingMessage,
    response: ServerResponse,
    next: RequestHandler,
    started: number,
  ): void {
    const { deps } = this;
    const { headers } = request;
    const url = request.url ?? '';
    const { key, admission } = handover;
    try {
      if (admission?.refusal !== undefined) {
        this.#handOver(handover, request, response, next);
        return;
      }
      const read = route.known(url, key.level);
      const representation = read && (read.format ?? negotiate(headers.accept));
      const answer =
        representation &&
        currentAnswer(deps, cacheKey(route.path, { values: read.values, representation, level: key.level }));
      const out = answer && validatorsOf(answer, headers['accept-encoding'], headers['if-none-match']);
      // A coded body is made (and kept) by the route on first demand.
      const body = out && (out.coding === undefined ? answer.body : answer.coded[out.coding]);
      if (!read || !representation || !answer || !out || !body) {
        this.#handOver(handover, request, response, next);
        return;
      }

      deps.metrics.cacheHit();
      deps.metrics.fastLaneAnswer();
      const requestId = newRequestId();
      const fields = [...this.options.commonHeaders, 'x-request-id', requestId];
      if (admission !== undefined)
        fields.push('ratelimit-policy', admission.policy, 'ratelimit', admission.state);
      if (read.ignored.length > 0) fields.push('ignored-parameters', read.ignored.join(', '));
      fields.push('etag', out.etag, 'cache-control', out.cacheControl);
      let status = 304;
      let sent = 0;
      if (out.notModified) {
        response.writeHead(304, fields);
        endTogether(response);
      } else {
        status = 200;
        if (out.coding !== undefined) fields.push('content-encoding', out.coding);
        if (answer.contentDisposition !== undefined)
          fields.push('content-disposition', answer.contentDisposition);
        fields.push('content-type', CONTENT_TYPES[representation], 'content-length', String(body.length));
        response.writeHead(200, fields);
        if (request.method === 'HEAD') endTogether(response);
        else {
          endTogether(response, body);
          sent = body.length;
        }
      }
      route.observer.observe(
        requestId,
        key.id,
        request.method ?? 'GET',
        url,
        status,
        performance.now() - started,
        sent,
      );
    } catch (error) {
      // Not expected (every refusal above returns): Fastify answers it, with what was counted.
      if (response.headersSent) {
        response.destroy(error instanceof Error ? error : undefined);
        return;
      }
      this.#handOver(handover, request, response, next);
    }
  }

  #handOver(
    handover: HandedOver,
    request: IncomingMessage,
    response: ServerResponse,
    next: RequestHandler,
  ): void {
    this.#handedOver.set(request, handover);
    next(request, response);
  }
}
