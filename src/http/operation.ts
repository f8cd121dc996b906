import type { FastifyInstance } from 'fastify';
import type { QueryContext } from '../query/context.js';
import type { KeyStore, MarketReader } from '../store/store.js';
import { authenticate } from './auth.js';
import { CONTENT_TYPES, negotiate } from './negotiation.js';
import { type OperationSpec, type ParamDefs, type ParamValues, readParams } from './params.js';
import { HttpProblem } from './problems.js';
import { problemOf, sendProblem } from './reply.js';

/** One operation: its path, parameter spec, query and the two writers of its answer. */
export interface Route<S extends ParamDefs, R> {
  readonly path: string;
  readonly spec: OperationSpec<S>;
  readonly run: (context: QueryContext, values: ParamValues<S>) => R;
  readonly json: (result: R) => string;
  readonly csv: (result: R) => string;
}

export function defineRoute<S extends ParamDefs, R>(route: Route<S, R>): Route<S, R> {
  return route;
}

export interface RouteDependencies {
  readonly reader: MarketReader;
  readonly keys: KeyStore;
  readonly clock: () => Date;
}

/**
 * Registers GET (and so HEAD) for an operation. The pipeline, in this order: authenticate
 * (before any parameter is looked at), read parameters (400 with every issue), negotiate (406),
 * query (404), write the answer in one string. Returns the path.
 */
export function registerRoute<S extends ParamDefs, R>(
  app: FastifyInstance,
  deps: RouteDependencies,
  route: Route<S, R>,
): string {
  app.get(route.path, (request, reply) => {
    try {
      const key = authenticate(deps.keys, request.headers.authorization, deps.clock);
      const { values, format, ignored } = readParams(route.spec, request.url, key.level);
      if (ignored.length > 0) reply.header('ignored-parameters', ignored.join(', '));
      const representation = format ?? negotiate(request.headers.accept);
      if (representation === undefined) {
        throw new HttpProblem({
          code: 'not-acceptable',
          detail: 'this operation answers application/json or text/csv (or send format=json|csv)',
        });
      }
      const result = route.run({ reader: deps.reader, access: key.level, clock: deps.clock }, values);
      const body = representation === 'csv' ? route.csv(result) : route.json(result);
      return reply.code(200).header('content-type', CONTENT_TYPES[representation]).send(body);
    } catch (error) {
      return sendProblem(reply, problemOf(request, error));
    }
  });
  return route.path;
}
